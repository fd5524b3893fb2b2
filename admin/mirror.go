package admin

import (
	"errors"

	"frameindex/state"
)

// mirrorOrg makes sure the data file knows organisation id when the shared
// state is kept apart from it (serve --state): people, their memberships
// and datasets' owners are checked against the file, while organisations
// are created in the shared state, on any node. It copies the
// organisation's id, name, plan and creation time from State into Store
// when Store lacks it; its credits, ledger and usage stay in State, which
// is the only place they are read from. Without a separate state it does
// nothing. Errors: state.ErrNotFound when State does not hold id either;
// errors of either store.
func (o *Ops) mirrorOrg(id string) error {
	if !o.shared() || id == "" {
		return nil
	}
	org, err := o.State.Org(id)
	if err != nil {
		return err
	}
	if _, err := o.Store.Org(id); !errors.Is(err, state.ErrNotFound) {
		return err
	}
	_, err = o.Store.AddOrg(state.Org{ID: org.ID, Name: org.Name, Plan: org.Plan, Created: org.Created})
	if errors.Is(err, state.ErrExists) { // another request mirrored it meanwhile
		return nil
	}
	return err
}
