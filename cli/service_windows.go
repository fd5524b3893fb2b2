package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"frameindex/admin"
	"frameindex/logging"
)

// installService registers the service name to run this executable with
// args under its own virtual account, restarts it on failure, and limits
// dataDir (created when missing) to that account and the Administrators
// group.
func installService(name string, args []string, dataDir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager (run this as administrator): %w", err)
	}
	defer m.Disconnect()
	if s, err := m.OpenService(name); err == nil {
		s.Close()
		return fmt.Errorf("service %s exists already: `frameindex service remove --name %s` first", name, name)
	}
	account := `NT SERVICE\` + name
	s, err := m.CreateService(name, exe, mgr.Config{
		ServiceType:      windows.SERVICE_WIN32_OWN_PROCESS,
		StartType:        mgr.StartAutomatic,
		ErrorControl:     mgr.ErrorNormal,
		DisplayName:      "frameindex (" + name + ")",
		Description:      "frameindex: the API over a national grid of ~1 km frames",
		ServiceStartName: account,
		SidType:          windows.SERVICE_SID_TYPE_UNRESTRICTED,
	}, args...)
	if err != nil {
		return fmt.Errorf("create service %s: %w", name, err)
	}
	defer s.Close()
	// Restart after 10 s, then 60 s; the count resets after a day.
	err = s.SetRecoveryActions([]mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 10 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 60 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 60 * time.Second},
	}, 24*60*60)
	if err != nil {
		return fmt.Errorf("service %s: recovery actions: %w", name, err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	sid, _, _, err := windows.LookupSID("", account)
	if err != nil {
		return fmt.Errorf("service %s: its account %s: %w", name, account, err)
	}
	if err := admin.RestrictDir(dataDir, sid); err != nil {
		return fmt.Errorf("service %s: limit the data folder: %w", name, err)
	}
	return nil
}

// removeService stops the service name (waiting up to 45 s) and deletes it.
func removeService(ctx context.Context, name string) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager (run this as administrator): %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return fmt.Errorf("service %s: %w", name, err)
	}
	defer s.Close()
	if st, err := s.Control(svc.Stop); err == nil {
		deadline := time.Now().Add(45 * time.Second)
		for st.State != svc.Stopped && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(300 * time.Millisecond)
			if st, err = s.Query(); err != nil {
				break
			}
		}
	}
	if err := s.Delete(); err != nil {
		return fmt.Errorf("delete service %s: %w", name, err)
	}
	return nil
}

// runService serves as the service manager's service: it answers its
// stop and shutdown requests by stopping serve gracefully.
func runService(o serviceOptions) error {
	is, err := svc.IsWindowsService()
	if err != nil {
		return err
	}
	if !is {
		return errors.New("`service run` is started by the Windows service manager; in a console run `frameindex serve`")
	}
	return svc.Run(o.Name, &winService{o: o})
}

type winService struct{ o serviceOptions }

// Execute runs serve until the service manager stops it. A serve that
// fails on its own ends the service with exit code 1, so that the
// recovery actions restart it; the reason is in the log file.
func (w *winService) Execute(_ []string, requests <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending}
	lf, err := openRotating(w.o.logPath(), serviceLogMax, serviceLogKeep)
	if err != nil {
		return true, 1
	}
	defer lf.Close()
	logw := logging.NewBuffer(lf)
	defer logw.Close()
	log, err := w.o.serve.logger(logw)
	if err != nil {
		fmt.Fprintln(lf, "frameindex service:", err)
		return true, 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, w.o.serve, log, nil) }()
	status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown}
	for {
		select {
		case err := <-done:
			if err != nil {
				log.Error("serve stopped", "err", err.Error())
				return true, 1
			}
			return false, 0
		case r := <-requests:
			switch r.Cmd {
			case svc.Interrogate:
				status <- r.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending, WaitHint: 40_000}
				cancel()
				if err := <-done; err != nil {
					log.Error("serve stopped", "err", err.Error())
				}
				return false, 0
			}
		}
	}
}
