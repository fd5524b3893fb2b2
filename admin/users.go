package admin

import (
	"context"
	"encoding/json"
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

// doUser runs the operations on people and the audit log.
func (o *Ops) doUser(_ context.Context, op string, args json.RawMessage) (any, error) {
	switch op {
	case OpUserAdd:
		var a UserAdd
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		if err := o.mirrorOrg(a.OrgID); err != nil {
			return nil, err
		}
		u, otp, err := o.Store.AddUser(state.NewUser{Name: a.Name, Email: a.Email, Org: a.OrgID, Role: a.Role, Now: o.now()})
		if err != nil {
			return nil, err
		}
		return UserIssued{User: ViewUser(u), Password: otp}, nil
	case OpUserList:
		var a UserList
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		users, err := o.Store.Users(a.OrgID)
		if err != nil {
			return nil, err
		}
		views := make([]UserView, len(users))
		for i, u := range users {
			views[i] = ViewUser(u)
		}
		return views, nil
	case OpUserRemove:
		var a UserRemove
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		if a.OrgID == "" {
			u, err := o.Store.RemoveUser(a.Name)
			if err != nil {
				return nil, err
			}
			return UserRemoved{User: ViewUser(u), Deleted: true}, nil
		}
		u, deleted, err := o.Store.RemoveMember(a.Name, a.OrgID)
		if err != nil {
			return nil, err
		}
		return UserRemoved{User: ViewUser(u), Deleted: deleted}, nil
	case OpUserReset:
		var a UserReset
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		u, otp, err := o.Store.ResetPassword(a.Name, o.now())
		if err != nil {
			return nil, err
		}
		return UserIssued{User: ViewUser(u), Password: otp}, nil
	case OpUserRole:
		var a UserRole
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		if err := o.mirrorOrg(a.OrgID); err != nil {
			return nil, err
		}
		u, err := o.Store.SetRole(a.Name, a.OrgID, a.Role)
		if err != nil {
			return nil, err
		}
		return ViewUser(u), nil
	case OpUserPassword:
		var a UserPassword
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
		u, err := o.Store.ChangePassword(a.Name, a.Current, a.New, o.now())
		if err != nil {
			return nil, err
		}
		return ViewUser(u), nil
	case OpAuditList:
		var a AuditList
		if err := decodeArgs(args, &a); err != nil {
			return nil, err
		}
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
	return nil, fmt.Errorf("%w: unknown operation %q", state.ErrInvalid, op)
}
