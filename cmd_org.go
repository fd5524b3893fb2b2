package main

import (
	"fmt"
	"text/tabwriter"

	"frameindex/admin"
	"frameindex/bolt"
	"github.com/spf13/cobra"
)

func newOrgCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "org",
		Short: "Add and list organisations",
		Example: `  frameindex org add lagos-gis --name "Lagos State GIS" --plan pro
  frameindex org list`,
	}
	cmd.AddCommand(newOrgAddCommand(), newOrgListCommand())
	return cmd
}

func newOrgAddCommand() *cobra.Command {
	var data string
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
			var o bolt.Org
			if err := runOp(cmd.Context(), cmd.ErrOrStderr(), data, false, admin.OpOrgAdd, a, &o); err != nil {
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
	cmd.Flags().StringVar(&a.Name, "name", "", "display name (default: the id)")
	cmd.Flags().StringVar(&a.Plan, "plan", "trial", "plan: trial, pro or scale")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newOrgListCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List organisations",
		Example: `  frameindex org list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var orgs []bolt.Org
			if err := runOp(cmd.Context(), cmd.ErrOrStderr(), data, false, admin.OpOrgList, struct{}{}, &orgs); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), orgs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPLAN\tCREATED")
			for _, o := range orgs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.ID, o.Name, o.Plan, o.Created.Format("2006-01-02"))
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
