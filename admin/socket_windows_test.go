package admin

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"frameindex/state"
)

// TestListen_WindowsAccessList: on Windows the admin socket is limited by
// a protected access list to the server's account and the Administrators
// group (the equivalent of mode 0600), and a client of that account can
// still call through it.
func TestListen_WindowsAccessList(t *testing.T) {
	s, path := openStore(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen (AF_UNIX needs Windows 10 1803 / Server 2019 or later): %v", err)
	}
	sd, err := windows.GetNamedSecurityInfo(SocketPath(path), windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	control, _, err := sd.Control()
	if err != nil || control&windows.SE_DACL_PROTECTED == 0 {
		t.Fatalf("access list not protected from inheritance: control %#x, %v", control, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{user.User.Sid.String(): false, admins.String(): false}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if _, ok := want[sid.String()]; !ok {
			t.Errorf("the socket lets %s in", sid.String())
			continue
		}
		want[sid.String()] = true
	}
	for sid, seen := range want {
		if !seen {
			t.Errorf("no entry for %s", sid)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, &Ops{Store: s}, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	defer func() { cancel(); <-done }()
	var o state.Org
	if err := call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, &o); err != nil || o.ID != "acme" {
		t.Fatalf("org.add through the socket: %+v, %v", o, err)
	}
}
