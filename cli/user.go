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

func newUserCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Add, list, remove people of the web application; issue one-time passwords",
		Long: `People sign in to the web application (/console/ on the serve address) with a
user name or e-mail address and a password. Each belongs to one or more
organisations with a role: owner (everything, and the audit log), admin
(members and keys) or member (sees keys and usage). There is no e-mail
server: a new person, or one who forgot their password, gets a one-time
password from an operator here or from an admin in the web application,
and must choose their own at first sign-in. Nodes that share their state
(serve --state) share their people too: give these commands --state (or
FRAMEINDEX_STATE) and a person added once signs in on every node.`,
		Example: `  frameindex user add amina --org lagos-gis --role owner --email amina@lagos.gov.ng
  frameindex user list --org lagos-gis
  frameindex user role amina --org lagos-gis --role admin
  frameindex user reset amina
  frameindex user remove amina --org lagos-gis`,
	}
	cmd.AddCommand(newUserAddCommand(), newUserListCommand(), newUserRemoveCommand(), newUserResetCommand(), newUserRoleCommand())
	return cmd
}

func newUserAddCommand() *cobra.Command {
	var data, st string
	var a admin.UserAdd
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add NAME --org ID --role owner|admin|member",
		Short: "Add a person to an organisation and print a one-time password",
		Long: `Add a person to an organisation with a role. A new person gets a one-time
password, printed once: it works for 7 days and must be changed at first
sign-in. A person who already exists joins the organisation with their own
password (none is printed). NAME is 1-64 characters of a-z, 0-9, '.', '_'
and '-'; --email gives a second sign-in name.`,
		Example: `  frameindex user add amina --org lagos-gis --role owner
  frameindex user add tunde --org lagos-gis --role member --email tunde@lagos.gov.ng`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.Name = args[0]
			if a.OrgID == "" || a.Role == "" {
				return fmt.Errorf("--org and --role are required (roles: owner, admin, member)")
			}
			r, err := runAdminOp(cmd, data, st, admin.AddUserOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), r)
			}
			w := cmd.OutOrStdout()
			if r.Password == "" {
				fmt.Fprintf(w, "user %s joined organisation %s as %s; their password is unchanged\n", r.User.Name, a.OrgID, a.Role)
				return nil
			}
			fmt.Fprintf(w, "user %s added to organisation %s as %s\n", r.User.Name, a.OrgID, a.Role)
			printOneTimePassword(w, r)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "organisation id (required)")
	cmd.Flags().StringVar(&a.Role, "role", "", "owner, admin or member (required)")
	cmd.Flags().StringVar(&a.Email, "email", "", "e-mail address, a second sign-in name")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printOneTimePassword(w io.Writer, r admin.UserIssued) {
	fmt.Fprintf(w, "one-time password: %s\n", r.Password)
	exp := ""
	if r.User.TempExpires != nil {
		exp = " until " + r.User.TempExpires.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "It is shown only once and works%s; %s must choose a new password at first sign-in.\n", exp, r.User.Name)
}

func newUserListCommand() *cobra.Command {
	var data, st string
	var a admin.UserList
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [--org ID]",
		Short:   "List people and their roles (never passwords)",
		Example: `  frameindex user list --org lagos-gis`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			users, err := runAdminOp(cmd, data, st, admin.UsersOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), users)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tEMAIL\tORGANISATIONS\tPASSWORD")
			for _, u := range users {
				orgs := make([]string, len(u.Orgs))
				for i, m := range u.Orgs {
					orgs[i] = m.Org + " (" + m.Role + ")"
				}
				pw := "set " + u.PasswordSet.Format("2006-01-02")
				if u.MustChange {
					pw = "one-time, not yet changed"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name, u.Email, strings.Join(orgs, ", "), pw)
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "only this organisation's people")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newUserRemoveCommand() *cobra.Command {
	var data, st string
	var a admin.UserRemove
	cmd := &cobra.Command{
		Use:   "remove NAME [--org ID]",
		Short: "Remove a person from an organisation, or from all of them",
		Long: `Remove a person from one organisation (--org), or delete them altogether
(no --org). A person left in no organisation is deleted. Their sessions end
at once. An organisation always keeps an owner: make someone else owner
first (user role).`,
		Example: `  frameindex user remove tunde --org lagos-gis
  frameindex user remove tunde`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.Name = args[0]
			r, err := runAdminOp(cmd, data, st, admin.RemoveUserOp, a)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch {
			case r.Deleted:
				fmt.Fprintf(w, "user %s deleted\n", r.User.Name)
			default:
				fmt.Fprintf(w, "user %s removed from organisation %s\n", r.User.Name, a.OrgID)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "remove from this organisation only")
	return cmd
}

func newUserResetCommand() *cobra.Command {
	var data, st string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reset NAME",
		Short: "Replace a person's password with a one-time password and print it",
		Long: `Replace a person's password with a one-time password, printed once (there
is no e-mail on an air-gapped install: hand it over in person). Their
sessions end at once; they choose a new password at their next sign-in.`,
		Example: `  frameindex user reset amina`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := runAdminOp(cmd, data, st, admin.ResetPasswordOp, admin.UserReset{Name: args[0]})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "password of %s reset\n", r.User.Name)
			printOneTimePassword(cmd.OutOrStdout(), r)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newUserRoleCommand() *cobra.Command {
	var data, st string
	var a admin.UserRole
	cmd := &cobra.Command{
		Use:     "role NAME --org ID --role owner|admin|member",
		Short:   "Change a person's role in an organisation",
		Example: `  frameindex user role tunde --org lagos-gis --role admin`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.Name = args[0]
			if a.OrgID == "" || a.Role == "" {
				return fmt.Errorf("--org and --role are required (roles: owner, admin, member)")
			}
			u, err := runAdminOp(cmd, data, st, admin.SetRoleOp, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s is %s of organisation %s\n", u.Name, a.Role, a.OrgID)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "organisation id (required)")
	cmd.Flags().StringVar(&a.Role, "role", "", "owner, admin or member (required)")
	return cmd
}
