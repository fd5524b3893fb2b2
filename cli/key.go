package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"frameindex/admin"

	"github.com/spf13/cobra"
)

func newKeyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Mint, list and revoke API keys",
		Example: `  frameindex key mint --org lagos-gis --preset analyst
  frameindex key list --org lagos-gis
  frameindex key revoke key_3kq7w2m9x4ab`,
	}
	cmd.AddCommand(newKeyMintCommand(), newKeyListCommand(), newKeyRevokeCommand())
	return cmd
}

func newKeyMintCommand() *cobra.Command {
	var data, st, datasets string
	var a admin.KeyMint
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "mint --org ID --preset locality|analyst|full",
		Short: "Mint an API key and print its secret once",
		Long: `Mint an API key for an organisation. The secret (svc_sk_...) is printed
once and never again: only its SHA-256 digest is stored. Presets:
  locality  frame.read, feature.read
  analyst   frame.read, ask.query
  full      frame.read, feature.read, ask.query
--datasets narrows the key to the named datasets. --ttl is the lifetime:
90d by default, at most 366d (units: h, d, w, y, or a Go duration).`,
		Example: `  frameindex key mint --org lagos-gis --preset analyst --name "dashboard"
  frameindex key mint --org lagos-gis --preset locality --datasets population,buildings --ttl 30d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.OrgID == "" || a.Preset == "" {
				return fmt.Errorf("--org and --preset are required (presets: locality, analyst, full)")
			}
			if datasets != "" {
				a.Datasets = strings.Split(datasets, ",")
			}
			m, err := runAdminOp(cmd, data, st, admin.MintKeyOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), m)
			}
			printMinted(cmd.OutOrStdout(), m)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "organisation id (required)")
	cmd.Flags().StringVar(&a.Preset, "preset", "", "locality, analyst or full (required)")
	cmd.Flags().StringVar(&a.Name, "name", "", "a name to recognise the key by")
	cmd.Flags().StringVar(&datasets, "datasets", "", "comma-separated dataset ids the key is narrowed to")
	cmd.Flags().StringVar(&a.TTL, "ttl", "90d", "lifetime, at most 366d")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printMinted(w io.Writer, m admin.Minted) {
	k := m.Key
	fmt.Fprintf(w, "key %s for organisation %s, preset %s (%s), expires %s\n", k.ID, k.OrgID, k.Preset,
		capList(k), k.Expires.Format(time.RFC3339))
	fmt.Fprintf(w, "secret: %s\n", m.Secret)
	fmt.Fprintln(w, "Keep the secret now: it is shown only once and cannot be recovered.")
}

func capList(k admin.KeyView) string {
	s := make([]string, len(k.Caps))
	for i, c := range k.Caps {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func newKeyListCommand() *cobra.Command {
	var data, st string
	var a admin.KeyList
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [--org ID]",
		Short:   "List API keys (never their secrets)",
		Example: `  frameindex key list --org lagos-gis`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := runAdminOp(cmd, data, st, admin.KeysOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), keys)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tORG\tPRESET\tNAME\tEXPIRES\tSTATE")
			now := time.Now()
			for _, k := range keys {
				state := "active"
				switch {
				case k.Revoked != nil:
					state = "revoked " + k.Revoked.Format("2006-01-02")
				case !now.Before(k.Expires):
					state = "expired"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.OrgID, k.Preset, k.Name, k.Expires.Format("2006-01-02"), state)
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "only this organisation's keys")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newKeyRevokeCommand() *cobra.Command {
	var data, st string
	cmd := &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Revoke an API key (takes effect on its next request)",
		Example: `  frameindex key revoke key_3kq7w2m9x4ab
  frameindex key list --org lagos-gis   # find the id`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := runAdminOp(cmd, data, st, admin.RevokeKeyOp, admin.KeyRevoke{ID: args[0]})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key %s revoked\n", k.ID)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	return cmd
}
