package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"frameindex/admin"
	"frameindex/state"
)

// newDatasetOfferCommand offers a dataset in the web application's
// marketplace, through the operation the web application runs.
func newDatasetOfferCommand() *cobra.Command {
	var data, st string
	var a admin.DatasetOffer
	cmd := &cobra.Command{
		Use:   "offer ID --mode private|subscription|per_query [--price N] [--licence-text T]",
		Short: "Offer a dataset to other organisations in the marketplace",
		Long: `Offer a dataset to other organisations in the web application's marketplace.

  subscription  licensing it debits --price credits once from the licensee
  per_query     licensing it is free; each request it contributes to costs
                --price credits (the dataset's price, as "dataset price" sets)
  private       not offered (the same as "dataset withdraw")

Licences already granted keep their terms until revoked.`,
		Example: `  frameindex dataset offer nightlights --mode per_query --price 2 --licence-text "CC BY 4.0"
  frameindex dataset offer census --mode subscription --price 500`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			if a.Mode == "" {
				return fmt.Errorf("--mode is required: private, subscription or per_query")
			}
			o, err := runAdminOp(cmd, data, st, admin.OfferDatasetOp, a)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch o.Mode {
			case state.OfferSubscription:
				fmt.Fprintf(w, "dataset %s offered by subscription for %d credits\n", o.Dataset, o.Price)
			case state.OfferPerQuery:
				fmt.Fprintf(w, "dataset %s offered per query at %d credits a request\n", o.Dataset, o.Price)
			default:
				fmt.Fprintf(w, "dataset %s is private; licences already granted are kept\n", o.Dataset)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.Mode, "mode", "", "private, subscription or per_query")
	cmd.Flags().Int64Var(&a.Credits, "price", 0, "credits: once for a subscription, per contributing request for per_query")
	cmd.Flags().StringVar(&a.LicenceText, "licence-text", "", "the terms a licensee accepts")
	return cmd
}

// newDatasetWithdrawCommand withdraws a dataset's offer.
func newDatasetWithdrawCommand() *cobra.Command {
	var data, st string
	cmd := &cobra.Command{
		Use:     "withdraw ID",
		Short:   "Withdraw a dataset's offer from the marketplace (licences already granted are kept)",
		Example: `  frameindex dataset withdraw nightlights`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := runAdminOp(cmd, data, st, admin.WithdrawOfferOp, admin.DatasetWithdraw{ID: args[0]}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dataset %s withdrawn from the marketplace; licences already granted are kept\n", args[0])
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	return cmd
}
