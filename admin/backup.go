package admin

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"frameindex/bolt"
	"frameindex/state"
)

// Operation names of keeping the data file.
const (
	// OpCheck checks the data file (bolt.Store.Check) through a snapshot,
	// so that it can run while the server writes.
	OpCheck = "check"
	// OpCompact rewrites the data file without free pages
	// (bolt.Store.Compact).
	OpCompact = "compact"
)

// backupPath is the admin socket's path that streams a snapshot of the
// data file (POST, no body): the file's bytes, with Content-Length.
const backupPath = "/backup"

// CheckLive checks the data file while it may be in use: it writes a
// snapshot beside the file (DATA.check-*, removed afterwards; it needs as
// much free room as the file takes), checks the snapshot and reports on it
// under the file's path. Errors: ctx's (nothing is left behind), file
// errors (no room for the snapshot).
func (o *Ops) CheckLive(ctx context.Context) (bolt.CheckReport, error) {
	c, err := o.catalogue()
	if err != nil {
		return bolt.CheckReport{}, err
	}
	path := c.Path()
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".check-*")
	if err != nil {
		return bolt.CheckReport{}, fmt.Errorf("check %s: snapshot: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = c.Snapshot(ctx, f, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return bolt.CheckReport{}, fmt.Errorf("check %s: snapshot: %w", path, err)
	}
	rep, err := bolt.CheckFile(ctx, tmp)
	if err != nil {
		return bolt.CheckReport{}, fmt.Errorf("check %s: %w", path, err)
	}
	// Report the file's own size: bbolt grows a file ahead of its last
	// page, which a snapshot leaves out.
	rep.Path = path
	if fi, err := os.Stat(path); err == nil && fi.Size() > rep.Size {
		rep.FreeBytes += fi.Size() - rep.Size
		rep.Size = fi.Size()
	}
	return rep, nil
}

// serveBackup streams a snapshot of the data file: the server side of
// Backup. A failure after the first byte cuts the stream short, which the
// client detects by Content-Length.
func serveBackup(w http.ResponseWriter, r *http.Request, ops *Ops, log *slog.Logger) {
	started := false
	start := time.Now()
	n, err := ops.Store.Snapshot(r.Context(), w, func(size int64) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(http.StatusOK)
		started = true
	})
	if err != nil {
		log.Warn("admin operation failed", "op", "backup", "bytes", n, "err", err.Error())
		if !started {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			json.NewEncoder(w).Encode(wireResponse{Error: &wireError{Kind: ErrorKind(err), Message: err.Error()}})
		}
		return
	}
	log.Info("admin operation", "op", "backup", "bytes", n, "ms", time.Since(start).Milliseconds())
}

// BackupOptions control Backup.
type BackupOptions struct {
	Overwrite bool     // replace Out when it exists (otherwise refused)
	Check     bool     // run the full check on the copy before keeping it
	Progress  Progress // bytes written so far; may be nil
}

// BackupView is the result of Backup.
type BackupView struct {
	Out     string            `json:"out"`
	Bytes   int64             `json:"bytes"`
	Through string            `json:"through"` // "server" (its admin socket) or "file"
	Check   *bolt.CheckReport `json:"check,omitempty"`
}

// Backup writes a consistent copy of the data file at dataPath to out:
// through the admin socket when a server runs on the file (the server
// streams one read transaction's snapshot, so serving and writes go on),
// otherwise from the file itself, opened read-only. The copy is written
// beside out (out.partial-*, mode 0600), flushed, opened to verify its
// header and schema (and, with opts.Check, fully checked) and only then
// renamed to out: an interrupted or failed backup leaves nothing at out.
//
// Errors: state.ErrExists when out exists and opts.Overwrite is not set;
// state.ErrInvalid when out is the data file or the copy fails its check;
// those of bolt.Open for the data file; ctx's error (nothing written);
// file errors.
func Backup(ctx context.Context, dataPath, out string, opts BackupOptions) (BackupView, error) {
	v := BackupView{Out: out}
	if same, _ := samePath(dataPath, out); same {
		return v, fmt.Errorf("%w: --out %s is the data file itself", state.ErrInvalid, out)
	}
	if _, err := os.Stat(out); err == nil && !opts.Overwrite {
		return v, fmt.Errorf("%w: %s exists: choose another name, or give --force to replace it", state.ErrExists, out)
	}
	f, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".partial-*")
	if err != nil {
		return v, fmt.Errorf("backup: %w", err)
	}
	tmp := f.Name()
	keep := false
	defer func() {
		if !keep {
			f.Close()
			os.Remove(tmp)
		}
	}()
	var total int64
	pw := &progressWriter{w: f, total: &total, report: opts.Progress}
	v.Through = "server"
	v.Bytes, err = streamBackup(ctx, dataPath, pw, &total)
	if errors.Is(err, ErrNoServer) {
		v.Through = "file"
		var s *bolt.Store
		if s, err = bolt.Open(dataPath, bolt.Options{ReadOnly: true}); err == nil {
			v.Bytes, err = s.Snapshot(ctx, pw, func(n int64) { total = n })
			if cerr := s.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		return v, fmt.Errorf("backup of %s: %w", dataPath, err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return v, fmt.Errorf("backup: %w", err)
	}
	// The copy must open as a data file of this build; with opts.Check it
	// must pass the whole check.
	if opts.Check {
		rep, err := bolt.CheckFile(ctx, tmp)
		if err != nil {
			return v, fmt.Errorf("backup of %s: the copy does not open: %w", dataPath, err)
		}
		rep.Path = out
		v.Check = &rep
		if !rep.OK() {
			return v, fmt.Errorf("%w: backup of %s: the copy fails its check (%d problems; first: %s); %s is not written",
				state.ErrInvalid, dataPath, len(rep.Problems), rep.Problems[0], out)
		}
	} else {
		s, err := bolt.Open(tmp, bolt.Options{ReadOnly: true})
		if err != nil {
			return v, fmt.Errorf("backup of %s: the copy does not open: %w", dataPath, err)
		}
		s.Close()
	}
	if err := ctx.Err(); err != nil {
		return v, err
	}
	if err := os.Rename(tmp, out); err != nil {
		return v, fmt.Errorf("backup: %w", err)
	}
	keep = true
	syncDir(filepath.Dir(out))
	return v, nil
}

// streamBackup fetches a snapshot from the server running on dataPath into
// w, setting *total to its announced size. ErrNoServer when none runs.
func streamBackup(ctx context.Context, dataPath string, w io.Writer, total *int64) (int64, error) {
	client, path, err := socketClient(ctx, dataPath)
	if err != nil {
		return 0, err
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://admin"+backupPath, nil)
	if err != nil {
		return 0, err
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("admin socket %s: %w", path, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var resp wireResponse
		if json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&resp) == nil && resp.Error != nil {
			return 0, &RemoteError{Kind: resp.Error.Kind, Message: resp.Error.Message}
		}
		return 0, fmt.Errorf("admin socket %s: backup: status %s (a server older than this command?)", path, res.Status)
	}
	*total = res.ContentLength
	n, err := io.Copy(w, res.Body)
	if err != nil {
		return n, fmt.Errorf("admin socket %s: backup cut short after %d of %d bytes: %w", path, n, res.ContentLength, err)
	}
	if n != res.ContentLength {
		return n, fmt.Errorf("admin socket %s: backup cut short after %d of %d bytes", path, n, res.ContentLength)
	}
	return n, nil
}

// socketClient returns an HTTP client that reaches the server on
// dataPath's admin socket, or ErrNoServer when none answers there.
func socketClient(ctx context.Context, dataPath string) (*http.Client, string, error) {
	path := SocketPath(dataPath)
	if _, err := os.Stat(path); err != nil {
		return nil, path, ErrNoServer
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, path, ErrNoServer
	}
	conn.Close()
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		},
	}}, path, nil
}

// ServerRunning reports whether a server answers on the admin socket of
// the data file at dataPath.
func ServerRunning(ctx context.Context, dataPath string) bool {
	c, _, err := socketClient(ctx, dataPath)
	if err != nil {
		return false
	}
	c.CloseIdleConnections()
	return true
}

type progressWriter struct {
	w      io.Writer
	done   int64
	total  *int64
	report Progress
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.report != nil {
		p.report("writing backup", p.done, *p.total)
	}
	return n, err
}

// RestoreView is the result of Restore.
type RestoreView struct {
	From     string           `json:"from"`
	Data     string           `json:"data"`
	Bytes    int64            `json:"bytes"`
	Previous string           `json:"previous,omitempty"` // where the replaced file was moved
	Check    bolt.CheckReport `json:"check"`
}

// Restore replaces the data file at dataPath with the backup at from,
// after checking the backup in full (bolt.Store.Check) and copying it
// beside the data file (DATA.restoring-*, compared byte for byte by
// SHA-256 with the backup). The file it replaces is kept, renamed
// DATA.pre-restore-<UTC time>, and named in the result; delete it when
// the restored file serves as it should.
//
// It refuses, before anything is written: while a server runs on the file
// (its admin socket answers, or it holds the file's lock); a backup that
// does not open as a data file of this build, or that fails its check;
// a data file written by a newer build. Errors: bolt.ErrLocked,
// state.ErrInvalid, the errors of bolt.Open for the backup, ctx's, file
// errors.
func Restore(ctx context.Context, from, dataPath string) (RestoreView, error) {
	v := RestoreView{From: from, Data: dataPath}
	if same, _ := samePath(from, dataPath); same {
		return v, fmt.Errorf("%w: the backup %s is the data file itself", state.ErrInvalid, from)
	}
	if ServerRunning(ctx, dataPath) {
		return v, fmt.Errorf("%w: a server is running on %s (its admin socket %s answers): stop it first (for example `systemctl stop frameindex`); restore never replaces a file in use",
			bolt.ErrLocked, dataPath, SocketPath(dataPath))
	}
	rep, err := bolt.CheckFile(ctx, from)
	if err != nil {
		return v, fmt.Errorf("backup %s cannot be restored: %w", from, err)
	}
	v.Check = rep
	if !rep.OK() {
		return v, fmt.Errorf("%w: backup %s fails its check (%d problems; first: %s): nothing was changed",
			state.ErrInvalid, from, len(rep.Problems), rep.Problems[0])
	}
	tmp, n, err := copyVerified(ctx, from, dataPath)
	if err != nil {
		return v, err
	}
	v.Bytes = n
	committed := false
	defer func() {
		if !committed {
			os.Remove(tmp)
		}
	}()

	// Hold the data file's lock while it is moved aside, so that no
	// server starts on it meanwhile. A file that does not open (damaged:
	// the reason to restore) cannot be locked; the socket was checked.
	var held *bolt.Store
	if _, err := os.Stat(dataPath); err == nil {
		s, err := bolt.Open(dataPath, bolt.Options{Timeout: 200 * time.Millisecond})
		switch {
		case err == nil:
			held = s
		case errors.Is(err, bolt.ErrLocked):
			return v, fmt.Errorf("%w: %s is in use by another process (a server?): stop it first; nothing was changed", bolt.ErrLocked, dataPath)
		case errors.Is(err, bolt.ErrNewerSchema):
			return v, fmt.Errorf("%w: nothing was changed; move the newer file away yourself if you mean to go back to this backup", err)
		case errors.Is(err, state.ErrCorrupt), errors.Is(err, bolt.ErrForeign):
			// Replace it: the previous file is kept all the same.
		default:
			return v, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return v, err
	}
	if runtime.GOOS == "windows" && held != nil {
		// Windows cannot rename an open file.
		held.Close()
		held = nil
	}
	if err := ctx.Err(); err != nil {
		if held != nil {
			held.Close()
		}
		return v, err
	}
	// The restored file belongs to whoever owned the one it replaces (or
	// the data folder): the service's user, when root restores.
	owner := dataPath
	if _, err := os.Stat(owner); err != nil {
		owner = filepath.Dir(dataPath)
	}
	if err := bolt.CopyOwner(tmp, owner); err != nil {
		if held != nil {
			held.Close()
		}
		return v, fmt.Errorf("restore: %w", err)
	}
	if _, err := os.Stat(dataPath); err == nil {
		v.Previous = dataPath + ".pre-restore-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(dataPath, v.Previous); err != nil {
			if held != nil {
				held.Close()
			}
			return v, fmt.Errorf("restore: move the current file aside: %w", err)
		}
		// The ledger journal a crashed server left belongs to the file
		// moved aside (opening that file replays it), not to the backup.
		if err := os.Rename(bolt.JournalPath(dataPath), bolt.JournalPath(v.Previous)); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Rename(v.Previous, dataPath)
			if held != nil {
				held.Close()
			}
			return v, fmt.Errorf("restore: move the current file's journal aside: %w", err)
		}
	}
	if err := os.Rename(tmp, dataPath); err != nil {
		if v.Previous != "" {
			os.Rename(v.Previous, dataPath)
		}
		if held != nil {
			held.Close()
		}
		return v, fmt.Errorf("restore: %w", err)
	}
	committed = true
	syncDir(filepath.Dir(dataPath))
	if held != nil {
		held.Close()
	}
	return v, nil
}

// copyVerified copies from into a new file beside dataPath, flushes it and
// compares it by SHA-256 with from. It returns the new file and its size.
func copyVerified(ctx context.Context, from, dataPath string) (string, int64, error) {
	src, err := os.Open(from)
	if err != nil {
		return "", 0, err
	}
	defer src.Close()
	dst, err := os.CreateTemp(filepath.Dir(dataPath), filepath.Base(dataPath)+".restoring-*")
	if err != nil {
		return "", 0, fmt.Errorf("restore: %w", err)
	}
	tmp := dst.Name()
	fail := func(err error) (string, int64, error) {
		dst.Close()
		os.Remove(tmp)
		if ctx.Err() != nil {
			return "", 0, ctx.Err()
		}
		return "", 0, fmt.Errorf("restore: copy %s: %w", from, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, h), &ctxReader{ctx: ctx, r: src})
	if err != nil {
		return fail(err)
	}
	if err := dst.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if err := dst.Sync(); err != nil {
		return fail(err)
	}
	if _, err := dst.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	h2 := sha256.New()
	if _, err := io.Copy(h2, &ctxReader{ctx: ctx, r: dst}); err != nil {
		return fail(err)
	}
	if string(h.Sum(nil)) != string(h2.Sum(nil)) {
		return fail(errors.New("the copy differs from the backup (disk error?)"))
	}
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return "", 0, err
	}
	return tmp, n, nil
}

// ctxReader fails reads once ctx has ended.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// samePath reports whether a and b name the same file (or the same path
// when either does not exist).
func samePath(a, b string) (bool, error) {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb), nil
	}
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	bb, err := filepath.Abs(b)
	if err != nil {
		return false, err
	}
	return aa == bb, nil
}

// syncDir flushes a directory's entries (a rename) to disk where the
// system allows it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
