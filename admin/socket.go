package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"frameindex/state"
)

// SocketPath returns the admin socket of the data file at dataPath.
func SocketPath(dataPath string) string { return dataPath + ".sock" }

// maxUnixPath is the room sockaddr_un leaves for a path on Linux.
const maxUnixPath = 107

// maxRequest bounds what the server reads of one admin request.
const maxRequest = 1 << 20

// maxReply bounds what a command reads of the server's reply, so that a
// reply too large to be meant (a busy organisation's whole ledger) fails
// with a message instead of filling the command's memory.
var maxReply int64 = 64 << 20

type wireRequest struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args,omitempty"`
}

type wireResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// RemoteError is an operation's failure as reported by the server.
type RemoteError struct {
	Kind    string
	Message string
}

func (e *RemoteError) Error() string { return e.Message }

// Unwrap lets errors.Is match the bolt sentinel of the error's kind.
func (e *RemoteError) Unwrap() error { return kindError(e.Kind) }

// Listen opens the admin socket for dataPath, owner-only. The caller must
// hold the data file's lock: any socket file already there is then stale (its
// server is gone) and is removed.
func Listen(dataPath string) (net.Listener, error) {
	path := SocketPath(dataPath)
	if len(path) > maxUnixPath {
		return nil, fmt.Errorf("admin socket path %q is longer than %d bytes; move the data file to a shorter path", path, maxUnixPath)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale admin socket: %w", err)
	}
	// The umask makes the socket owner-only from the moment it exists; the
	// chmod below is a second guard for unusual file systems.
	old := umask(0o177)
	l, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := restrictSocket(path); err != nil {
		l.Close()
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	return l, nil
}

// socketOp is an Operation as the socket's table holds it, its argument
// and result types hidden.
type socketOp interface {
	name() string
	// serve decodes the JSON arguments, calls the Ops method and
	// encodes its result.
	serve(ctx context.Context, o *Ops, args json.RawMessage) (json.RawMessage, error)
}

func (op Operation[A, R]) name() string { return op.Name }

// decodeRun decodes the JSON arguments strictly (decodeArgs; the error
// names the operation) and runs op's method with them.
func (op Operation[A, R]) decodeRun(ctx context.Context, o *Ops, args json.RawMessage) (R, error) {
	var a A
	if err := decodeArgs(args, &a); err != nil {
		var zero R
		return zero, fmt.Errorf("%s: %w", op.Name, err)
	}
	return op.Run(o, ctx, a)
}

func (op Operation[A, R]) serve(ctx context.Context, o *Ops, args json.RawMessage) (json.RawMessage, error) {
	r, err := op.decodeRun(ctx, o, args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", op.Name, err)
	}
	return b, nil
}

// socketOps is the socket's table: what each operation name runs.
var socketOps = table(
	AddOrgOp, OrgsOp, ShowOrgOp, SetPlanOp, AddCreditsOp, UsageOp,
	MintKeyOp, KeysOp, RevokeKeyOp,
	BuildGridOp, ImportGridOp, ExportGridOp, GridInfoOp, CheckOp, CompactOp, AskOp, ReportOp,
	ImportDatasetOp, SyncDatasetsOp, DatasetsOp, ShowDatasetOp, PriceDatasetOp, RemoveDatasetOp,
	GrantLicenceOp, RevokeLicenceOp, LicencesOp,
	OfferDatasetOp, WithdrawOfferOp, MarketOp, AcquireLicenceOp,
	AddUserOp, UsersOp, RemoveUserOp, ResetPasswordOp, SetRoleOp, ChangePasswordOp, AuditLogOp,
)

func table(ops ...socketOp) map[string]socketOp {
	t := make(map[string]socketOp, len(ops))
	for _, op := range ops {
		if _, dup := t[op.name()]; dup {
			panic("admin: operation " + op.name() + " is in the socket's table twice")
		}
		t[op.name()] = op
	}
	return t
}

// runSocketOp runs the operation named name with JSON arguments args.
// Errors: state.ErrInvalid for an unknown name or bad arguments; the
// operation's own.
func runSocketOp(ctx context.Context, o *Ops, name string, args json.RawMessage) (json.RawMessage, error) {
	op, ok := socketOps[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown operation %q (a client newer than this server?)", state.ErrInvalid, name)
	}
	return op.serve(ctx, o, args)
}

// Handler serves admin requests over the socket with ops. Each request is
// logged by operation name only: arguments may hold names a log should not.
func Handler(ops *Ops, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == backupPath {
			serveBackup(w, r, ops, log)
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/admin" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req wireRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequest))
		dec.DisallowUnknownFields()
		var resp wireResponse
		if err := dec.Decode(&req); err != nil {
			resp.Error = &wireError{Kind: "invalid", Message: "admin request: " + err.Error()}
		} else if resp.Result, err = runSocketOp(r.Context(), ops, req.Op, req.Args); err != nil {
			resp.Error = &wireError{Kind: ErrorKind(err), Message: err.Error()}
			log.Warn("admin operation failed", "op", req.Op, "kind", resp.Error.Kind)
		} else {
			log.Info("admin operation", "op", req.Op)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
}

// Serve answers admin requests on l until ctx is done.
func Serve(ctx context.Context, l net.Listener, ops *Ops, log *slog.Logger) error {
	srv := &http.Server{Handler: Handler(ops, log), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ErrNoServer means no server answers on the data file's admin socket.
var ErrNoServer = errors.New("no server is running on this data file")

// Call runs op with args on the server running on dataPath and returns
// its result. It returns ErrNoServer when nothing listens there (no
// socket, or a stale one), so the caller can open the file itself and
// call op.Run.
func Call[A, R any](ctx context.Context, dataPath string, op Operation[A, R], args A) (R, error) {
	var r R
	err := call(ctx, dataPath, op.Name, args, &r)
	return r, err
}

// call sends operation name with args to the server on dataPath and
// decodes its result into out (unless nil).
func call(ctx context.Context, dataPath, name string, args, out any) error {
	path := SocketPath(dataPath)
	if _, err := os.Stat(path); err != nil {
		return ErrNoServer
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return ErrNoServer
	}
	conn.Close()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		},
	}}
	defer client.CloseIdleConnections()
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	body, err := json.Marshal(wireRequest{Op: name, Args: raw})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://admin/admin", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("admin socket %s: %w", path, err)
	}
	defer res.Body.Close()
	var resp wireResponse
	reply := &io.LimitedReader{R: res.Body, N: maxReply}
	if err := json.NewDecoder(reply).Decode(&resp); err != nil {
		if reply.N == 0 {
			return fmt.Errorf("admin socket %s: the reply is larger than %d MiB, more than a command reads: ask for less (a ledger's newest entries with --history N, say)", path, maxReply>>20)
		}
		return fmt.Errorf("admin socket %s: bad reply: %w", path, err)
	}
	if resp.Error != nil {
		return &RemoteError{Kind: resp.Error.Kind, Message: resp.Error.Message}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, out)
}
