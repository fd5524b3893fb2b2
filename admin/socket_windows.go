package admin

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// restrictSocket gives the admin socket a protected access control list
// that lets only the account the server runs as, and the machine's
// administrators (who can take ownership of any file anyway), reach it:
// Windows' equivalent of mode 0600. AF_UNIX on Windows (10 1803 and later,
// Server 2019 and later) checks this list when a client connects. The
// list is set right after the socket is made; until then (microseconds)
// the socket has the data directory's inherited list, which is why the
// data directory should itself be limited to the service account and
// administrators (`frameindex service install` makes it so).
func restrictSocket(path string) error {
	return restrictPath(path, false)
}

// restrictPath sets path's list to full control for the current account,
// the Administrators group and the extra accounts, protected from
// inheritance; inherit makes the entries flow to files and folders
// created inside (a directory).
func restrictPath(path string, inherit bool, extra ...*windows.SID) error {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("%s: the current account: %w", path, err)
	}
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		return fmt.Errorf("%s: the Administrators group: %w", path, err)
	}
	inheritance := uint32(windows.NO_INHERITANCE)
	if inherit {
		inheritance = windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT
	}
	entry := func(sid *windows.SID, typ windows.TRUSTEE_TYPE) windows.EXPLICIT_ACCESS {
		return windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       inheritance,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  typ,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		}
	}
	entries := []windows.EXPLICIT_ACCESS{
		entry(user.User.Sid, windows.TRUSTEE_IS_USER),
		entry(admins, windows.TRUSTEE_IS_GROUP),
	}
	for _, sid := range extra {
		entries = append(entries, entry(sid, windows.TRUSTEE_IS_USER))
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return fmt.Errorf("%s: access list: %w", path, err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("%s: set access list: %w", path, err)
	}
	return nil
}

// RestrictDir limits a directory (the data directory of a service) to the
// current account, the Administrators group and the extra accounts (the
// service's own), inherited by everything created inside it. Errors: the
// system's, naming the path.
func RestrictDir(path string, extra ...*windows.SID) error { return restrictPath(path, true, extra...) }
