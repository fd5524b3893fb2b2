package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"frameindex/admin"
	"frameindex/state"

	"github.com/spf13/cobra"
)

func newOrgCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "org",
		Short: "Add, list and show organisations; set plans; grant credits",
		Example: `  frameindex org add lagos-gis --name "Lagos State GIS" --plan pro
  frameindex org list
  frameindex org show lagos-gis
  frameindex org plan lagos-gis --plan scale
  frameindex org credits lagos-gis --add 500 --note "invoice 2026-114"`,
	}
	cmd.AddCommand(newOrgAddCommand(), newOrgListCommand(), newOrgShowCommand(), newOrgPlanCommand(), newOrgCreditsCommand())
	return cmd
}

func newOrgAddCommand() *cobra.Command {
	var data, st string
	var a admin.OrgAdd
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add ID",
		Short: "Add an organisation",
		Long: `Add an organisation. ID is 1-64 characters of a-z, 0-9, "_" and "-",
starting with a letter or digit. The plan sets the monthly allowance of
worded answers: trial 100, pro 2,000, scale 20,000.`,
		Example: `  frameindex org add lagos-gis --name "Lagos State GIS" --plan pro`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			o, err := runAdminOp(cmd, data, st, admin.AddOrgOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), o)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "organisation %s added (%s, plan %s)\n", o.ID, o.Name, o.Plan)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.Name, "name", "", "display name (default: the id)")
	cmd.Flags().StringVar(&a.Plan, "plan", "trial", "plan: trial, pro or scale")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newOrgListCommand() *cobra.Command {
	var data, st string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List organisations",
		Example: `  frameindex org list
  frameindex org show lagos-gis
  frameindex org plan lagos-gis --plan scale
  frameindex org credits lagos-gis --add 500 --note "invoice 2026-114"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			orgs, err := runAdminOp(cmd, data, st, admin.OrgsOp, admin.NoArgs{})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), orgs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPLAN\tCREDITS\tCREATED")
			for _, o := range orgs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", o.ID, o.Name, o.Plan, o.Credits, o.Created.Format("2006-01-02"))
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newOrgShowCommand() *cobra.Command {
	var data, st string
	var a admin.OrgShow
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show an organisation, its plan, credit balance and credit history",
		Example: `  frameindex org show lagos-gis
  frameindex org show lagos-gis --history 0 --json   # the whole ledger`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			d, err := runAdminOp(cmd, data, st, admin.ShowOrgOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), d)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "organisation %s (%s)\nplan: %s, %d worded answers a month\ncredits: %d\ncreated: %s\n",
				d.ID, d.Name, d.Plan, d.Allowance, d.Credits, d.Created.Format("2006-01-02"))
			if len(d.Ledger) == 0 {
				fmt.Fprintln(w, "credit history: none")
				return nil
			}
			fmt.Fprintln(w, "credit history (oldest first):")
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  TIME\tKIND\tCHANGE\tBALANCE\tNOTE")
			for _, e := range d.Ledger {
				note := e.Note
				if e.Dataset != "" {
					note = strings.TrimSpace(note + " dataset " + e.Dataset)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%+d\t%d\t%s\n", e.Time.Format("2006-01-02 15:04:05"), e.Kind, e.Credits, e.Balance, note)
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().IntVar(&a.Limit, "history", 20, "how many of the newest ledger entries to show; 0 for all")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newOrgPlanCommand() *cobra.Command {
	var data, st string
	var a admin.OrgPlan
	cmd := &cobra.Command{
		Use:   "plan ID --plan trial|pro|scale",
		Short: "Move an organisation to a plan (its monthly allowance of worded answers)",
		Long: `Move an organisation to a plan. Plans set the monthly allowance of worded
answers: trial 100, pro 2,000, scale 20,000. Answers already given this month
still count against the new allowance.`,
		Example: `  frameindex org plan lagos-gis --plan pro`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			if a.Plan == "" {
				return fmt.Errorf("--plan is required: trial, pro or scale")
			}
			o, err := runAdminOp(cmd, data, st, admin.SetPlanOp, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "organisation %s is on plan %s (%d worded answers a month)\n", o.ID, o.Plan, state.PlanAllowance[o.Plan])
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.Plan, "plan", "", "trial, pro or scale (required)")
	return cmd
}

func newOrgCreditsCommand() *cobra.Command {
	var data, st string
	var a admin.OrgCredits
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "credits ID --add N --note TEXT",
		Short: "Grant credits to an organisation (or take some back), recorded in its ledger",
		Long: `Grant credits to an organisation, or take them back with a negative --add.
Every change is an entry in the organisation's append-only ledger, with the
note saying why; the balance never goes below zero. Credits pay for worded
answers beyond the plan's allowance and for datasets licensed per query.`,
		Example: `  frameindex org credits lagos-gis --add 500 --note "invoice 2026-114"
  frameindex org credits lagos-gis --add -20 --note "correction of invoice 2026-114"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			if a.Add == 0 || a.Note == "" {
				return fmt.Errorf("--add N (not zero) and --note are required")
			}
			c, err := runAdminOp(cmd, data, st, admin.AddCreditsOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "organisation %s: %+d credits (%s); balance %d\n", c.Org.ID, c.Entry.Credits, c.Entry.Note, c.Org.Credits)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().Int64Var(&a.Add, "add", 0, "credits to add; negative to take back (required)")
	cmd.Flags().StringVar(&a.Note, "note", "", "why, at most 200 characters (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
