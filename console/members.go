package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"frameindex/admin"
	"frameindex/state"
)

// action is something a role may or may not do.
type action int

const (
	actMint    action = iota // mint and revoke keys
	actMembers               // see and manage members
	actAudit                 // read the audit log
)

// can reports whether role may do a. Members see keys and usage; admins
// and owners also mint and revoke keys and manage members; owners alone
// read the audit log. Every handler of a change asks, whatever its page
// showed.
func can(role string, a action) bool {
	switch a {
	case actMint, actMembers:
		return role == state.RoleOwner || role == state.RoleAdmin
	case actAudit:
		return role == state.RoleOwner
	}
	return false
}

// assignable returns the roles actorRole may give: owners any, admins
// admin and member.
func assignable(actorRole string) []string {
	if actorRole == state.RoleOwner {
		return state.Roles
	}
	return []string{state.RoleAdmin, state.RoleMember}
}

// mayManage reports why actor (role actorRole) may not change target's
// membership, or "" when they may: nobody changes themselves here, and
// only owners change owners.
func mayManage(actor, actorRole string, target admin.UserView, targetRole string) string {
	switch {
	case target.Name == actor:
		return "you cannot change your own membership here; ask another owner"
	case targetRole == state.RoleOwner && actorRole != state.RoleOwner:
		return "only owners change an owner's membership"
	}
	return ""
}

type memberRow struct {
	Name, Email, Role string
	Password          string // its state, in words
	Manage            bool   // the signed-in person may change this membership
	Roles             []string
}

type issuedView struct {
	Name, Password, Expires string
	New                     bool // a new member (not a reset)
}

type membersData struct {
	Members []memberRow
	Roles   []string // roles the person may give
	Name    string
	Email   string
	Role    string
	Issued  *issuedView
}

func (s *Server) orgMembers(r *http.Request, org string) ([]admin.UserView, error) {
	return s.ops.Users(s.as(r), admin.UserList{OrgID: org})
}

func roleIn(u admin.UserView, org string) string {
	for _, m := range u.Orgs {
		if m.Org == org {
			return m.Role
		}
	}
	return ""
}

// findMember returns the member of org with the given name; a person of
// another organisation is not found.
func (s *Server) findMember(r *http.Request, org, name string) (admin.UserView, bool, error) {
	users, err := s.orgMembers(r, org)
	if err != nil {
		return admin.UserView{}, false, err
	}
	for _, u := range users {
		if u.Name == name {
			return u, true, nil
		}
	}
	return admin.UserView{}, false, nil
}

var memberMessages = map[string]string{
	"role":    "Role changed.",
	"removed": "Member removed. Their sessions in this organisation have ended.",
}

func (s *Server) handleMembers(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if !can(rq.role, actMembers) {
		s.deny(w, r, "member.list", "", "only admins and owners see and manage members")
		return
	}
	p := s.newPage(r, "Members", "members")
	p.Flash = memberMessages[r.URL.Query().Get("msg")]
	s.renderMembers(w, r, http.StatusOK, p, membersData{Role: state.RoleMember})
}

func (s *Server) renderMembers(w http.ResponseWriter, r *http.Request, status int, p *page, d membersData) {
	rq := requestOf(r)
	users, err := s.orgMembers(r, rq.org)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, u := range users {
		role := roleIn(u, rq.org)
		row := memberRow{Name: u.Name, Email: u.Email, Role: role, Password: "chosen " + u.PasswordSet.Format("2006-01-02")}
		if u.MustChange {
			row.Password = "one-time password, not yet changed"
		}
		if mayManage(rq.user, rq.role, u, role) == "" {
			row.Manage, row.Roles = true, assignable(rq.role)
		}
		d.Members = append(d.Members, row)
	}
	d.Roles = assignable(rq.role)
	p.Data = d
	s.render(w, r, status, "members", p)
}

func (s *Server) handleAddMember(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	name := strings.ToLower(strings.TrimSpace(r.PostFormValue("name")))
	email := strings.TrimSpace(r.PostFormValue("email"))
	role := r.PostFormValue("role")
	if !can(rq.role, actMembers) {
		s.deny(w, r, admin.OpUserAdd, name, "only admins and owners add members")
		return
	}
	p := s.newPage(r, "Members", "members")
	d := membersData{Name: name, Email: email, Role: role}
	refuse := func(status int, msg string) {
		p.Error = msg
		s.renderMembers(w, r, status, p, d)
	}
	if role == state.RoleOwner && rq.role != state.RoleOwner {
		s.deny(w, r, admin.OpUserAdd, name, "only owners add owners")
		return
	}
	if err := state.CheckUserName(name); err != nil {
		refuse(http.StatusBadRequest, "Choose a user name of 1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit.")
		return
	}
	// A name taken by anyone, in any organisation, is refused without
	// saying more; adding one person to several organisations is an
	// operator's job (frameindex user add).
	if _, err := s.state.User(name); err == nil {
		refuse(http.StatusConflict, "The user name "+name+" is taken. Choose another.")
		return
	} else if !errors.Is(err, state.ErrNotFound) {
		s.fail(w, r, err)
		return
	}
	issued, err := s.ops.AddUser(s.as(r), admin.UserAdd{Name: name, Email: email, OrgID: rq.org, Role: role})
	switch {
	case errors.Is(err, state.ErrInvalid):
		refuse(http.StatusBadRequest, personMessage(err))
		return
	case errors.Is(err, state.ErrExists):
		refuse(http.StatusConflict, "That user name or e-mail address is taken. Choose another.")
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	d = membersData{Role: state.RoleMember, Issued: &issuedView{Name: issued.User.Name, Password: issued.Password, New: true}}
	if issued.User.TempExpires != nil {
		d.Issued.Expires = timeText(*issued.User.TempExpires)
	}
	s.renderMembers(w, r, http.StatusCreated, p, d)
}

// member checks that the signed-in person may change the membership of
// the person named in the path, answering the request when not. It returns
// the member and their role.
func (s *Server) member(w http.ResponseWriter, r *http.Request, op string) (admin.UserView, string, bool) {
	rq := requestOf(r)
	name := r.PathValue("name")
	if !can(rq.role, actMembers) {
		s.deny(w, r, op, name, "only admins and owners manage members")
		return admin.UserView{}, "", false
	}
	u, ok, err := s.findMember(r, rq.org, name)
	if err != nil {
		s.fail(w, r, err)
		return admin.UserView{}, "", false
	}
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "No such member", "Your organisation has no member of that name.")
		return admin.UserView{}, "", false
	}
	role := roleIn(u, rq.org)
	if why := mayManage(rq.user, rq.role, u, role); why != "" {
		s.deny(w, r, op, name, why)
		return admin.UserView{}, "", false
	}
	return u, role, true
}

func (s *Server) handleRole(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	u, _, ok := s.member(w, r, admin.OpUserRole)
	if !ok {
		return
	}
	role := r.PostFormValue("role")
	if role == state.RoleOwner && rq.role != state.RoleOwner {
		s.deny(w, r, admin.OpUserRole, u.Name, "only owners make owners")
		return
	}
	_, err := s.ops.SetRole(s.as(r), admin.UserRole{Name: u.Name, OrgID: rq.org, Role: role})
	if errors.Is(err, state.ErrInvalid) {
		p := s.newPage(r, "Members", "members")
		p.Error = personMessage(err)
		s.renderMembers(w, r, http.StatusBadRequest, p, membersData{Role: state.RoleMember})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"members?msg=role", http.StatusSeeOther)
}

func (s *Server) handleRemoveForm(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	u, _, ok := s.member(w, r, admin.OpUserRemove)
	if !ok {
		return
	}
	p := s.newPage(r, "Remove member", "members")
	p.Data = confirmData{Heading: "Remove " + u.Name + " from " + rq.org + "?",
		Text:   "They will be signed out of this organisation at once and can no longer see its keys or usage. Keys they minted keep working until revoked.",
		Action: Prefix + "members/" + url.PathEscape(u.Name) + "/remove", Button: "Remove member", Cancel: Prefix + "members", Danger: true}
	s.render(w, r, http.StatusOK, "confirm", p)
}

func (s *Server) handleRemove(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	u, _, ok := s.member(w, r, admin.OpUserRemove)
	if !ok {
		return
	}
	_, err := s.ops.RemoveUser(s.as(r), admin.UserRemove{Name: u.Name, OrgID: rq.org})
	if errors.Is(err, state.ErrInvalid) {
		p := s.newPage(r, "Members", "members")
		p.Error = personMessage(err)
		s.renderMembers(w, r, http.StatusBadRequest, p, membersData{Role: state.RoleMember})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"members?msg=removed", http.StatusSeeOther)
}

// resettable says why the console may not reset the person's password, or
// "": someone who belongs to another organisation too would get a password
// that opens that organisation as well, which no admin of this one may
// decide.
func resettable(u admin.UserView) string {
	if len(u.Orgs) > 1 {
		return "this person belongs to other organisations too; an operator resets their password with `frameindex user reset`"
	}
	return ""
}

func (s *Server) handleResetForm(w http.ResponseWriter, r *http.Request) {
	u, _, ok := s.member(w, r, admin.OpUserReset)
	if !ok {
		return
	}
	if why := resettable(u); why != "" {
		s.deny(w, r, admin.OpUserReset, u.Name, why)
		return
	}
	p := s.newPage(r, "Reset password", "members")
	p.Data = confirmData{Heading: "Issue a one-time password to " + u.Name + "?",
		Text:   "Their current password stops working and they are signed out everywhere. You will see the one-time password once: hand it over in person; they choose a new password when they sign in with it.",
		Action: Prefix + "members/" + url.PathEscape(u.Name) + "/reset", Button: "Issue one-time password", Cancel: Prefix + "members"}
	s.render(w, r, http.StatusOK, "confirm", p)
}

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	u, _, ok := s.member(w, r, admin.OpUserReset)
	if !ok {
		return
	}
	if why := resettable(u); why != "" {
		s.deny(w, r, admin.OpUserReset, u.Name, why)
		return
	}
	issued, err := s.ops.ResetPassword(s.as(r), admin.UserReset{Name: u.Name})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.newPage(r, "Members", "members")
	d := membersData{Role: state.RoleMember, Issued: &issuedView{Name: issued.User.Name, Password: issued.Password}}
	if issued.User.TempExpires != nil {
		d.Issued.Expires = timeText(*issued.User.TempExpires)
	}
	s.renderMembers(w, r, http.StatusOK, p, d)
}
