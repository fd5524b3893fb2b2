package cli

import (
	"fmt"

	"frameindex/admin"

	"github.com/spf13/cobra"
)

func newUsageCommand() *cobra.Command {
	var data, st string
	var a admin.UsageReq
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "usage --org ID",
		Short: "Show an organisation's worded answers, credit balance and per-query charges",
		Long: `Show an organisation's usage: worded answers this month (calendar month,
UTC) against its plan's allowance, worded answers today (UTC) against the
daily ceiling of 1,000, its credit balance, and this month's per-query
dataset charges by dataset.`,
		Example: `  frameindex usage --org lagos-gis
  frameindex usage --org lagos-gis --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.OrgID == "" {
				return fmt.Errorf("--org is required")
			}
			u, err := runAdminOp(cmd, data, st, admin.UsageOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), u)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "organisation %s, plan %s\n", u.OrgID, u.Plan)
			fmt.Fprintf(w, "worded answers %s: %d of %d included in the plan\n", u.Month, u.AnswersThisMonth, u.Allowance)
			fmt.Fprintf(w, "worded answers %s: %d of the daily ceiling of %d\n", u.Day, u.AnswersToday, u.DailyCeiling)
			fmt.Fprintf(w, "credit balance: %d\n", u.Credits)
			if len(u.Charges) == 0 {
				fmt.Fprintf(w, "per-query charges %s: none\n", u.Month)
				return nil
			}
			fmt.Fprintf(w, "per-query charges %s:\n", u.Month)
			for _, c := range u.Charges {
				fmt.Fprintf(w, "  %s: %d requests, %d credits\n", c.Dataset, c.Requests, c.Credits)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "organisation id (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
