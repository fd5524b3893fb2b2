package cli

import (
	"fmt"
	"text/tabwriter"

	"frameindex/admin"

	"github.com/spf13/cobra"
)

func newAuditCommand() *cobra.Command {
	var data, st string
	var a admin.AuditList
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit [--org ID] [--limit N]",
		Short: "Show the audit log: who changed what, when and from where",
		Long: `Show the newest entries of the audit log kept in the data file (with
--state, in the shared state), newest first: every administrative action,
from the web application (sign-ins, members, keys), the admin socket or the
command line, whether it was done, refused or failed. Passwords and key
secrets are never recorded.`,
		Example: `  frameindex audit
  frameindex audit --org lagos-gis --limit 20
  frameindex audit --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			entries, err := runAdminOp(cmd, data, st, admin.AuditLogOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), entries)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME (UTC)\tWHO\tFROM\tORG\tACTION\tTARGET\tOUTCOME\tDETAIL")
			for _, e := range entries {
				detail := e.Detail
				if e.Reason != "" {
					detail = e.Reason
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Format("2006-01-02 15:04:05"),
					e.Actor, e.Addr, e.Org, e.Action, e.Target, e.Outcome, detail)
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "only this organisation's entries")
	cmd.Flags().IntVar(&a.Limit, "limit", 100, "how many of the newest entries to show")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
