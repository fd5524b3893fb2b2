package pgstate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Catalogue is the node's own datasets (its bbolt file); *bolt.Store
// implements it.
type Catalogue interface {
	Datasets() ([]state.Dataset, error)
	Dataset(id string) (state.Dataset, error)
}

// Options configure Open.
type Options struct {
	// Catalogue is the node's datasets. nil (an administrative command
	// run without --data) makes the operations that need datasets fail
	// with an error saying so.
	Catalogue Catalogue
	// RecoverAfter is how old a pending worded-answer reservation must be
	// before RecoverPending refunds it; zero means DefaultRecoverAfter.
	// It must exceed the longest request (the request budget), or a node
	// would refund an answer another node is still wording.
	RecoverAfter time.Duration
	// Timeout bounds each method's work in the database, connecting
	// included; zero means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock for zero times; nil means time.Now.
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultRecoverAfter = 60 * time.Second
	DefaultTimeout      = 10 * time.Second
)

// Store is the shared state in PostgreSQL. Safe for concurrent use.
type Store struct {
	pool         *pgxpool.Pool
	cat          Catalogue
	where        string // the URL without its password, for messages
	recoverAfter time.Duration
	timeout      time.Duration
	now          func() time.Time
	// meters is the group committer of Charge, ReserveAnswer and
	// RefundAnswer (committer.go), shared
	// by the handles Audited makes.
	meters *meterCommitter
	// audit, on a handle of Audited, is the entry its next write
	// transaction writes with its change (audit_tx.go).
	audit *pendingAudit
}

var _ state.Store = (*Store)(nil)

// ErrSchema is returned by Open for a database whose schema is not the one
// this build migrates to (behind: run `frameindex state migrate`; ahead:
// written by a newer build), and by Migrate for one ahead of it.
var ErrSchema = errors.New("shared state schema mismatch")

// Redact returns a URL with its password (user information or password
// parameter) replaced by "xxxxx", for logs and messages; text that does
// not parse as a URL is returned as "(unparsable URL)" unless it plainly
// holds no password. Safe for concurrent use.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		if raw != "" && !strings.Contains(raw, "password") && !strings.Contains(raw, "@") {
			return raw
		}
		return "(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// whereOf names the database for messages: host:port/database.
func whereOf(cfg *pgconn.Config) string {
	return fmt.Sprintf("PostgreSQL at %s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// Open connects to the database at url (postgres://…), checks that its
// schema is the one this build migrates to, and returns the Store. The
// pool holds at most 10 connections unless the URL sets pool_max_conns.
// Errors: a URL that does not parse; a database that cannot be reached
// (naming host, port and database, never the password); ErrSchema, saying
// what to run. Close the Store when done.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("invalid shared state URL (--state): %v", redactErr(err, url))
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 10
	}
	s := &Store{
		cat: opt.Catalogue, where: whereOf(cfg.ConnConfig.Config.Copy()),
		recoverAfter: opt.RecoverAfter, timeout: opt.Timeout, now: opt.Now,
		meters: &meterCommitter{},
	}
	if s.recoverAfter <= 0 {
		s.recoverAfter = DefaultRecoverAfter
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.wrap(err)
	}
	s.pool = pool
	if err := s.checkSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the connections; calls after Close fail.
func (s *Store) Close() {
	s.stopMeterCommitter()
	s.pool.Close()
}

// Where names the database: host, port and database, never the password.
func (s *Store) Where() string { return s.where }

// Pool is the connection pool, for tests and tools that read the
// database directly.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func (s *Store) clock() time.Time { return s.now() }

// ts is t as PostgreSQL keeps it: UTC, to the microsecond.
func ts(t time.Time) time.Time { return t.Round(0).UTC().Truncate(time.Microsecond) }

// nowOr is t, or the clock when t is zero, as PostgreSQL keeps it.
func (s *Store) nowOr(t time.Time) time.Time {
	if t.IsZero() {
		t = s.clock()
	}
	return ts(t)
}

// ctx bounds one method's work in the database.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// SQLSTATE codes this package tells apart.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// pgCode is the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// isKind reports whether err is already one of the kinds a caller tests
// for, worded for a person.
func isKind(err error) bool {
	for _, k := range []error{state.ErrInvalid, state.ErrNotFound, state.ErrExists, state.ErrNoAllowance, state.ErrCorrupt, ErrSchema, errNoCatalogue,
		state.ErrBadSignIn, state.ErrPasswordExpired, state.ErrSessionExpired} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// wrap turns a database error into one a person can act on, naming the
// database (never the password) on one line; errors of bolt's kinds pass
// unchanged.
func (s *Store) wrap(err error) error {
	if err == nil || isKind(err) {
		return err
	}
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s: %s (SQLSTATE %s)", s.where, pe.Message, pe.Code)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %s: is it overloaded or unreachable?", s.where, s.timeout)
	case pgconn.Timeout(err) || isConnectError(err):
		return fmt.Errorf("cannot reach %s: %s: is PostgreSQL running, and does --state (or FRAMEINDEX_STATE) name it?", s.where, oneLine(err.Error()))
	}
	return fmt.Errorf("%s: %w", s.where, err)
}

// isConnectError reports an error of connecting, or one before anything was sent.
func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err)
}

// oneLine joins the lines of a message (pgx lists each address it tried on
// a line of its own), leaving out repeated ones.
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// redactErr is err's text without the password of the URL raw.
func redactErr(err error, raw string) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// tx runs fn in a read-write transaction. It starts again, from nothing,
// when PostgreSQL aborts the transaction for a deadlock or a
// serialization failure, or when a pooled connection turns out dead at
// BEGIN (the server restarted): nothing was done then. On a handle of
// Audited it inserts the pending audit entry after fn, in the same
// transaction.
func (s *Store) tx(fn func(ctx context.Context, tx pgx.Tx) error) error {
	if s.audit == nil || s.audit.done {
		return s.inTx(pgx.TxOptions{}, fn)
	}
	var stored state.AuditEntry
	err := s.inTx(pgx.TxOptions{}, func(ctx context.Context, tx pgx.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		var err error
		stored, err = s.audit.write(ctx, tx, s.clock())
		return err
	})
	if err == nil {
		*s.audit.e, s.audit.done = stored, true
	}
	return err
}

// view runs fn in a read-only transaction that sees one snapshot.
func (s *Store) view(fn func(ctx context.Context, tx pgx.Tx) error) error {
	return s.inTx(pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// inTx runs fn in a transaction of opts; see tx.
func (s *Store) inTx(opts pgx.TxOptions, fn func(ctx context.Context, tx pgx.Tx) error) error {
	ctx, cancel := s.ctx()
	defer cancel()
	for attempt := 0; ; attempt++ {
		tx, err := s.pool.BeginTx(ctx, opts)
		if err != nil {
			if attempt < 3 && s.deadConn(ctx, err) {
				continue
			}
			return s.wrap(err)
		}
		err = fn(ctx, tx)
		if err == nil {
			err = tx.Commit(ctx)
		}
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
		if c := pgCode(err); (c == codeDeadlockDetected || c == codeSerializationFailure) && attempt < 5 {
			continue
		}
		return s.wrap(err)
	}
}

// deadConn reports whether err, of a statement that is safe to send again
// (BEGIN, or a read outside a transaction), came from a connection rather
// than from the statement: one the server closed for a restart, or one
// that broke. Every idle connection of the pool is then likely dead too:
// the pool is emptied, so that the next try connects afresh.
func (s *Store) deadConn(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && !isShutdown(err) {
		return false
	}
	s.pool.Reset()
	return true
}

// isShutdown reports an error of a connection the server closed (class
// 57: operator intervention, such as a restart).
func isShutdown(err error) bool {
	return strings.HasPrefix(pgCode(err), "57P")
}

// Ping checks that the database answers. Errors: as Open's.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.wrap(s.pool.Ping(ctx))
}
