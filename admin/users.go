package admin

import (
	"context"
	"fmt"
	"time"

	"frameindex/state"
)

// Operations on the people of the web application and the audit log.
const (
	OpUserAdd      = "user.add"
	OpUserList     = "user.list"
	OpUserRemove   = "user.remove"
	OpUserReset    = "user.reset"
	OpUserRole     = "user.role"
	OpUserPassword = "user.password"
	OpAuditList    = "audit.list"
)

// UserAdd adds a person to an organisation with a role (owner, admin or
// member). A new person gets a one-time password; an existing one joins.
type UserAdd struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	OrgID string `json:"org"`
	Role  string `json:"role"`
}

// UserList lists the people of one organisation, or all when OrgID is "".
type UserList struct {
	OrgID string `json:"org,omitempty"`
}

// UserRemove takes a person out of an organisation (deleting them when it
// was their last), or, with OrgID "", deletes them from every one.
type UserRemove struct {
	Name  string `json:"name"`
	OrgID string `json:"org,omitempty"`
}

// UserReset replaces a person's password with a one-time password.
type UserReset struct {
	Name string `json:"name"`
}

// UserRole changes a person's role in an organisation.
type UserRole struct {
	Name  string `json:"name"`
	OrgID string `json:"org"`
	Role  string `json:"role"`
}

// UserPassword changes a person's own password; Current is their password
// or one-time password. The audit log records that it happened, never the
// passwords.
type UserPassword struct {
	Name    string `json:"name"`
	Current string `json:"current"`
	New     string `json:"new"`
}

// AuditList lists the newest Limit audit entries (0: 100), of one
// organisation or all when OrgID is "".
type AuditList struct {
	OrgID string `json:"org,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// UserView is what commands show of a person: never a password or hash.
type UserView struct {
	Name        string             `json:"name"`
	Email       string             `json:"email,omitempty"`
	Orgs        []state.Membership `json:"orgs"`
	MustChange  bool               `json:"mustChange,omitempty"`
	TempExpires *time.Time         `json:"oneTimePasswordExpires,omitempty"`
	Created     time.Time          `json:"created"`
	PasswordSet time.Time          `json:"passwordSet"`
}

// UserIssued is the result of UserAdd and UserReset: the person and, when
// one was issued, the one-time password, shown this once.
type UserIssued struct {
	User     UserView `json:"user"`
	Password string   `json:"oneTimePassword,omitempty"`
}

// UserRemoved is the result of UserRemove: the person as they were, and
// whether they were deleted (no organisation left).
type UserRemoved struct {
	User    UserView `json:"user"`
	Deleted bool     `json:"deleted"`
}

// ViewUser returns what may be shown of u.
func ViewUser(u state.User) UserView {
	v := UserView{Name: u.Name, Email: u.Email, Orgs: u.Orgs, MustChange: u.MustChange,
		Created: u.Created, PasswordSet: u.PasswordSet}
	if v.Orgs == nil {
		v.Orgs = []state.Membership{}
	}
	if !u.TempExpires.IsZero() {
		t := u.TempExpires
		v.TempExpires = &t
	}
	return v
}

// defaultAuditLimit is how many audit entries AuditList returns by default.
const defaultAuditLimit = 100

// AddUser adds a person to an organisation; a new person gets a one-time
// password, shown this once in the result.
func (o *Ops) AddUser(ctx context.Context, a UserAdd) (_ UserIssued, err error) {
	detail := []string{"role", text(a.Role)}
	if a.Email != "" {
		detail = append(detail, "email", a.Email)
	}
	au := o.audit(ctx, OpUserAdd, a.OrgID, a.Name, detail...)
	defer au.done(&err)
	u, otp, err := au.state().AddUser(state.NewUser{Name: a.Name, Email: a.Email, Org: a.OrgID, Role: a.Role, Now: o.now()})
	if err != nil {
		return UserIssued{}, err
	}
	return UserIssued{User: ViewUser(u), Password: otp}, nil
}

// Users lists people, never their passwords.
func (o *Ops) Users(_ context.Context, a UserList) ([]UserView, error) {
	users, err := o.state().Users(a.OrgID)
	if err != nil {
		return nil, err
	}
	views := make([]UserView, len(users))
	for i, u := range users {
		views[i] = ViewUser(u)
	}
	return views, nil
}

// RemoveUser takes a person out of an organisation, or out of all.
func (o *Ops) RemoveUser(ctx context.Context, a UserRemove) (_ UserRemoved, err error) {
	au := o.audit(ctx, OpUserRemove, a.OrgID, a.Name)
	defer au.done(&err)
	f := au.state()
	if a.OrgID == "" {
		u, err := f.RemoveUser(a.Name)
		if err != nil {
			return UserRemoved{}, err
		}
		return UserRemoved{User: ViewUser(u), Deleted: true}, nil
	}
	u, deleted, err := f.RemoveMember(a.Name, a.OrgID)
	if err != nil {
		return UserRemoved{}, err
	}
	return UserRemoved{User: ViewUser(u), Deleted: deleted}, nil
}

// ResetPassword gives a person a one-time password, shown this once.
func (o *Ops) ResetPassword(ctx context.Context, a UserReset) (_ UserIssued, err error) {
	au := o.audit(ctx, OpUserReset, "", a.Name)
	defer au.done(&err)
	u, otp, err := au.state().ResetPassword(a.Name, o.now())
	if err != nil {
		return UserIssued{}, err
	}
	return UserIssued{User: ViewUser(u), Password: otp}, nil
}

// SetRole changes a person's role in an organisation.
func (o *Ops) SetRole(ctx context.Context, a UserRole) (_ UserView, err error) {
	au := o.audit(ctx, OpUserRole, a.OrgID, a.Name, "role", text(a.Role))
	defer au.done(&err)
	u, err := au.state().SetRole(a.Name, a.OrgID, a.Role)
	if err != nil {
		return UserView{}, err
	}
	return ViewUser(u), nil
}

// ChangePassword changes a person's own password. The audit entry says
// that it happened, never the passwords.
func (o *Ops) ChangePassword(ctx context.Context, a UserPassword) (_ UserView, err error) {
	au := o.audit(ctx, OpUserPassword, "", a.Name)
	defer au.done(&err)
	u, err := au.state().ChangePassword(a.Name, a.Current, a.New, o.now())
	if err != nil {
		return UserView{}, err
	}
	return ViewUser(u), nil
}

// AuditLog lists the newest audit entries.
func (o *Ops) AuditLog(_ context.Context, a AuditList) ([]state.AuditEntry, error) {
	if a.Limit == 0 {
		a.Limit = defaultAuditLimit
	}
	if a.Limit < 0 {
		return nil, fmt.Errorf("%w: limit must be positive", state.ErrInvalid)
	}
	entries, err := o.state().AuditLog(a.OrgID, a.Limit)
	if err != nil {
		return nil, err
	}
	if entries == nil {
		entries = []state.AuditEntry{}
	}
	return entries, nil
}
