//go:build !windows

package cli

import (
	"context"
	"errors"
)

// errNotWindows is what the service commands say off Windows.
var errNotWindows = errors.New("the service commands are for the Windows service manager; on Linux the Debian package installs the systemd unit frameindex.service (systemctl enable --now frameindex), elsewhere run `frameindex serve` under the system's own service manager")

func installService(string, []string, string) error { return errNotWindows }
func removeService(context.Context, string) error   { return errNotWindows }
func runService(serviceOptions) error               { return errNotWindows }
