package admin

import (
	"context"

	"frameindex/bolt"
	"frameindex/state"
)

// Operation is one administrative operation as the admin socket carries
// it: its name on the wire and the Ops method that runs it. The command
// line runs it through the socket when a server holds the data file
// (Call) and by calling Run on an Ops of its own otherwise, so that both
// paths run the same method.
type Operation[A, R any] struct {
	Name string
	Run  func(*Ops, context.Context, A) (R, error)
	// StateOnly: the operation touches nothing but the shared state, so
	// that it runs on an Ops without a data file (Store nil).
	StateOnly bool
}

// NoArgs is the argument of an operation that takes none.
type NoArgs struct{}

// The operations, by the Ops method each runs.
var (
	AddOrgOp     = Operation[OrgAdd, state.Org]{OpOrgAdd, (*Ops).AddOrg, true}
	OrgsOp       = Operation[NoArgs, []state.Org]{OpOrgList, noArgs((*Ops).Orgs), true}
	ShowOrgOp    = Operation[OrgShow, OrgDetail]{OpOrgShow, (*Ops).ShowOrg, true}
	SetPlanOp    = Operation[OrgPlan, state.Org]{OpOrgPlan, (*Ops).SetPlan, true}
	AddCreditsOp = Operation[OrgCredits, Credited]{OpOrgCredits, (*Ops).AddCredits, true}
	UsageOp      = Operation[UsageReq, state.Usage]{OpUsage, (*Ops).Usage, true}

	MintKeyOp   = Operation[KeyMint, Minted]{OpKeyMint, (*Ops).MintKey, true}
	KeysOp      = Operation[KeyList, []KeyView]{OpKeyList, (*Ops).Keys, true}
	RevokeKeyOp = Operation[KeyRevoke, KeyView]{OpKeyRevoke, (*Ops).RevokeKey, true}

	BuildGridOp  = Operation[GridBuild, GridView]{OpGridBuild, (*Ops).BuildGrid, false}
	ImportGridOp = Operation[GridImport, GridView]{OpGridImport, (*Ops).ImportGrid, false}
	ExportGridOp = Operation[GridExport, ExportView]{OpGridExport, (*Ops).ExportGrid, false}
	GridInfoOp   = Operation[NoArgs, GridView]{OpGridInfo, noArgs((*Ops).GridInfo), false}
	AskOp        = Operation[AskReq, AskResult]{OpAsk, (*Ops).Ask, false}
	ReportOp     = Operation[ReportReq, ReportResult]{OpReport, (*Ops).Report, false}
	CheckOp      = Operation[NoArgs, bolt.CheckReport]{OpCheck, noArgs((*Ops).CheckLive), false}
	CompactOp    = Operation[NoArgs, bolt.CompactReport]{OpCompact, noArgs((*Ops).Compact), false}

	ImportDatasetOp = Operation[DatasetImport, DatasetView]{OpDatasetImport, (*Ops).ImportDataset, false}
	SyncDatasetsOp  = Operation[DatasetSync, bolt.SyncReport]{OpDatasetSync, (*Ops).SyncDatasets, false}
	DatasetsOp      = Operation[NoArgs, []state.Dataset]{OpDatasetList, noArgs((*Ops).Datasets), false}
	ShowDatasetOp   = Operation[DatasetShow, DatasetDetail]{OpDatasetShow, (*Ops).ShowDataset, false}
	PriceDatasetOp  = Operation[DatasetPrice, state.Dataset]{OpDatasetPrice, (*Ops).PriceDataset, false}
	RemoveDatasetOp = Operation[DatasetRemove, state.Dataset]{OpDatasetRemove, (*Ops).RemoveDataset, false}
	GrantLicenceOp  = Operation[LicenceGrant, state.Licence]{OpLicenceGrant, (*Ops).GrantLicence, false}
	RevokeLicenceOp = Operation[LicenceRevoke, state.Licence]{OpLicenceRevoke, (*Ops).RevokeLicence, true}
	LicencesOp      = Operation[LicenceList, []state.Licence]{OpLicenceList, (*Ops).Licences, true}

	OfferDatasetOp   = Operation[DatasetOffer, state.Offer]{OpDatasetOffer, (*Ops).OfferDataset, false}
	WithdrawOfferOp  = Operation[DatasetWithdraw, state.Offer]{OpDatasetWithdraw, (*Ops).WithdrawOffer, false}
	MarketOp         = Operation[MarketList, []state.Listing]{OpMarketList, (*Ops).Market, true}
	AcquireLicenceOp = Operation[LicenceAcquire, Acquired]{OpLicenceAcquire, (*Ops).AcquireLicence, false}

	AddUserOp        = Operation[UserAdd, UserIssued]{OpUserAdd, (*Ops).AddUser, true}
	UsersOp          = Operation[UserList, []UserView]{OpUserList, (*Ops).Users, true}
	RemoveUserOp     = Operation[UserRemove, UserRemoved]{OpUserRemove, (*Ops).RemoveUser, true}
	ResetPasswordOp  = Operation[UserReset, UserIssued]{OpUserReset, (*Ops).ResetPassword, true}
	SetRoleOp        = Operation[UserRole, UserView]{OpUserRole, (*Ops).SetRole, true}
	ChangePasswordOp = Operation[UserPassword, UserView]{OpUserPassword, (*Ops).ChangePassword, true}
	AuditLogOp       = Operation[AuditList, []state.AuditEntry]{OpAuditList, (*Ops).AuditLog, true}
)

// noArgs adapts the method of an operation without arguments.
func noArgs[R any](m func(*Ops, context.Context) (R, error)) func(*Ops, context.Context, NoArgs) (R, error) {
	return func(o *Ops, ctx context.Context, _ NoArgs) (R, error) { return m(o, ctx) }
}
