package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/state/pgstate"

	"github.com/spf13/cobra"
)

// stateConnectTimeout bounds how long a command waits for the shared
// state's database to answer, so that a wrong host fails in seconds, not
// after the system's TCP timeout of minutes.
const stateConnectTimeout = 15 * time.Second

// catalogueLockTimeout is how long a command with --state waits for the
// data file's lock when another process (an import, a backup) holds it.
const catalogueLockTimeout = 2 * time.Second

// addAdminStateFlag adds --state to an administrative command. The flag
// has no default of its own: $FRAMEINDEX_STATE is read when the command
// runs (adminStateURL), so that help never prints a password from the
// environment.
func addAdminStateFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "state", "",
		"act directly on the state several nodes share, postgres://USER:PASSWORD@HOST:PORT/DB (env "+envState+
			"), not on the data file's")
}

// adminStateURL returns the shared state's URL: --state when given (an
// empty --state= turns the environment's off), $FRAMEINDEX_STATE
// otherwise; "" is none.
func adminStateURL(cmd *cobra.Command, flag string) string {
	if f := cmd.Flags().Lookup("state"); f != nil && f.Changed {
		return flag
	}
	return os.Getenv(envState)
}

// runAdminOp runs operation op of an administrative command: without a
// shared state (--state, $FRAMEINDEX_STATE) as runOp does, on the data
// file or through its server; with one, directly on the shared state (no
// server involved: serving nodes pick the change up themselves), reading
// the data file at dataPath only when op needs the node's datasets.
func runAdminOp[A, R any](cmd *cobra.Command, dataPath, stateFlag string, op admin.Operation[A, R], args A) (R, error) {
	u := adminStateURL(cmd, stateFlag)
	if u == "" {
		return runOp(cmd.Context(), cmd.ErrOrStderr(), dataPath, false, op, args)
	}
	return runOnState(cmd.Context(), dataPath, u, op, args)
}

// runOnState runs op on the shared state at stateURL, with the data file
// at dataPath, opened read-only, as the catalogue when op needs datasets.
func runOnState[A, R any](ctx context.Context, dataPath, stateURL string, op admin.Operation[A, R], args A) (res R, err error) {
	defer func() { err = interrupted(ctx, "the command", err) }()
	var opts pgstate.Options
	var catalogue *bolt.Store
	if !op.StateOnly {
		catalogue, err = openCatalogue(ctx, dataPath)
		if err != nil {
			return res, err
		}
		defer catalogue.Close()
		opts.Catalogue = catalogue
	}
	st, closeState, err := openSharedState(ctx, stateURL, opts)
	if err != nil {
		return res, err
	}
	defer closeState()
	return op.Run(&admin.Ops{Store: catalogue, State: st}, ctx, args)
}

// openCatalogue opens the data file read-only for its datasets. A server
// running on the file holds it: the message then says what to do instead.
func openCatalogue(ctx context.Context, dataPath string) (*bolt.Store, error) {
	if admin.ServerRunning(ctx, dataPath) {
		return nil, fmt.Errorf("data file %s is held by the server running on it, and with --state this command reads "+
			"the node's datasets from the file itself: run it without --state (the server acts on the state it was "+
			"started with), or give --data a copy of the file (frameindex backup --out COPY)", dataPath)
	}
	s, err := bolt.Open(dataPath, bolt.Options{ReadOnly: true, Timeout: catalogueLockTimeout})
	if errors.Is(err, bolt.ErrLocked) {
		return nil, fmt.Errorf("data file %s is in use by another process (an import, a backup or a server): "+
			"with --state this command reads the node's datasets from it; try again when that has finished", dataPath)
	}
	return s, err
}

// openSharedState opens the shared state at stateURL within
// stateConnectTimeout. The returned function closes it. An error is one
// line naming the database's host, never its password, and saying what to
// check.
func openSharedState(ctx context.Context, stateURL string, opts pgstate.Options) (*pgstate.Store, func(), error) {
	// The timer stops only the opening: pgstate may keep ctx for as long
	// as the store is open, so it is cancelled only when it is closed.
	openCtx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(stateConnectTimeout, cancel)
	st, err := pgstate.Open(openCtx, stateURL, opts)
	timedOut := !timer.Stop()
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err() // interrupted: the caller says so
		}
		reason := redactState(stateURL, err.Error())
		if timedOut {
			reason = fmt.Sprintf("no answer within %s (%s)", stateConnectTimeout, reason)
		}
		return nil, nil, fmt.Errorf("shared state (--state or %s) at %s cannot be opened: %s; "+
			"check that PostgreSQL runs and is reachable there, that the URL is right "+
			"(postgres://USER:PASSWORD@HOST:PORT/DATABASE) and that its schema is migrated",
			envState, stateHost(stateURL), reason)
	}
	return st, func() { st.Close(); cancel() }, nil
}

// urlPassword finds the password of a postgres://user:password@host URL,
// even one url.Parse refuses.
var urlPassword = regexp.MustCompile(`(://[^:/@?#]*:)([^@]*)@`)

// dsnPassword and dsnHost find the password and host of a key=value
// connection string (host=db password=secret ...).
var (
	dsnPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)
	dsnHost     = regexp.MustCompile(`(?i)\bhost\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)
)

// stateHost names where the shared state is: "host HOST:PORT" of the URL
// (or "host H" of a key=value string), never the rest of it.
func stateHost(stateURL string) string {
	if u, err := url.Parse(stateURL); err == nil && u.Scheme != "" {
		h := u.Host
		if h == "" {
			h = u.Query().Get("host")
		}
		if h == "" {
			return "the default host (localhost)"
		}
		return "host " + h
	}
	if m := dsnHost.FindStringSubmatch(stateURL); m != nil {
		return "host " + strings.Trim(m[1], "'")
	}
	return "the host the URL names"
}

// redactState returns text (an error's) with stateURL's password, in any
// of its spellings, replaced by xxxxx, and on one line.
func redactState(stateURL, text string) string {
	var secrets []string
	if m := urlPassword.FindStringSubmatch(stateURL); m != nil && m[2] != "" {
		secrets = append(secrets, m[2])
		if p, err := url.PathUnescape(m[2]); err == nil {
			secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	if u, err := url.Parse(stateURL); err == nil {
		if p := u.Query().Get("password"); p != "" {
			secrets = append(secrets, p, url.QueryEscape(p))
		}
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
	}
	for _, m := range dsnPassword.FindAllStringSubmatch(stateURL, -1) {
		secrets = append(secrets, m[1], strings.Trim(m[1], "'"))
	}
	for _, s := range secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, "xxxxx")
		}
	}
	text = urlPassword.ReplaceAllString(text, "${1}xxxxx@")
	text = dsnPassword.ReplaceAllString(text, "password=xxxxx")
	return strings.Join(strings.Fields(text), " ")
}
