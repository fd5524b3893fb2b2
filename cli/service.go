package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serviceOptions are the flags of `service install` and `service run`.
type serviceOptions struct {
	Name    string
	LogFile string
	serve   serveOptions
}

// Log files of the Windows service: rotated at 64 MiB, 4 old ones kept.
const (
	serviceLogMax  = 64 << 20
	serviceLogKeep = 4
)

func (o *serviceOptions) addFlags(cmd *cobra.Command, withServe bool) {
	cmd.Flags().StringVar(&o.Name, "name", "frameindex", "name of the service")
	if withServe {
		o.serve.AddFlags(cmd)
		cmd.Flags().StringVar(&o.LogFile, "log-file", "", "log file of the service, rotated at 64 MiB with 4 old files kept (default: frameindex.log beside the data file)")
	}
}

// logPath is the service's log file.
func (o *serviceOptions) logPath() string {
	if o.LogFile != "" {
		return o.LogFile
	}
	return filepath.Join(filepath.Dir(o.serve.Data), "frameindex.log")
}

func newServiceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run as a Windows service: install, remove (Linux: the systemd unit of the package)",
		Long: `Run frameindex as a Windows service, started at boot and restarted when it
fails. "service install" (as administrator) registers the service to run
"frameindex service run" with the serve flags given, under its own virtual
account (NT SERVICE\frameindex), creates the data file's folder and limits
it to that account and the Administrators group; the admin socket is
limited the same way, so administrative commands run elevated. Logs go to
frameindex.log beside the data file (rotated at 64 MiB). Start and stop it
with "sc.exe start frameindex" / "sc.exe stop frameindex" or the Services
console. "service remove" unregisters it (the data file stays).

On Linux the Debian package installs the systemd unit frameindex.service
instead: "systemctl enable --now frameindex".`,
		Example: `  frameindex service install --data C:\ProgramData\frameindex\frames.db --addr 0.0.0.0:8080
  sc.exe start frameindex
  frameindex service remove`,
	}
	cmd.AddCommand(newServiceInstallCommand(), newServiceRemoveCommand(), newServiceRunCommand())
	return cmd
}

func newServiceInstallCommand() *cobra.Command {
	var o serviceOptions
	cmd := &cobra.Command{
		Use:   "install --data FILE [serve flags]",
		Short: "Register the Windows service (as administrator)",
		Example: `  frameindex service install --data C:\ProgramData\frameindex\frames.db
  frameindex service install --name frameindex-test --data D:\frameindex\test.db --addr 127.0.0.1:8081`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := absPath(o.serve.Data)
			if err != nil {
				return err
			}
			o.serve.Data = data
			// The service runs `service run` with the flags given here.
			args := []string{"service", "run", "--name", o.Name, "--data", data}
			cmd.Flags().Visit(func(f *pflag.Flag) {
				switch f.Name {
				case "name", "data":
					return
				}
				args = append(args, "--"+f.Name+"="+f.Value.String())
			})
			if err := installService(o.Name, args, filepath.Dir(data)); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "service %s installed: it serves %s and logs to %s\nstart it with: sc.exe start %s\n",
				o.Name, data, o.logPath(), o.Name)
			return nil
		},
	}
	o.addFlags(cmd, true)
	return cmd
}

func newServiceRemoveCommand() *cobra.Command {
	var o serviceOptions
	var data string
	cmd := &cobra.Command{
		Use:     "remove",
		Short:   "Stop and unregister the Windows service (the data file stays)",
		Example: `  frameindex service remove --name frameindex`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := removeService(cmd.Context(), o.Name); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "service %s removed; its data file and log are kept\n", o.Name)
			return nil
		},
	}
	o.addFlags(cmd, false)
	// --data is accepted (every command takes it) and not used: the
	// service is found by --name.
	addDataFlag(cmd, &data)
	return cmd
}

func newServiceRunCommand() *cobra.Command {
	var o serviceOptions
	cmd := &cobra.Command{
		Use:     "run --data FILE [serve flags]",
		Short:   "Serve as the Windows service manager's service (started by it, not by hand)",
		Example: `  (started by the service manager as: frameindex.exe service run --name frameindex --data C:\ProgramData\frameindex\frames.db)`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runService(o)
		},
	}
	o.addFlags(cmd, true)
	return cmd
}
