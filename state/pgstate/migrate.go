package pgstate

import (
	"context"
	"embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// migrations returns the embedded migrations in version order; their
// versions are 1, 2, 3... without gaps (a test checks).
func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("pgstate: migration file %s is not named NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: m[2], sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("pgstate: migrations are not numbered 1, 2, 3...: %04d_%s.sql is number %d", m.version, m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema this build migrates to: the number of the
// newest embedded migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// advisoryLock is the key of the advisory lock Migrate holds, so that two
// nodes migrating at once apply each migration once.
const advisoryLock = 0x6672616d65 // "frame"

const createVersions = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version int PRIMARY KEY,
	name    text NOT NULL,
	applied timestamptz NOT NULL DEFAULT now()
)`

// Migrate applies the schema migrations url's database lacks, in order,
// each in one transaction with its record in schema_migrations, under a
// session advisory lock (several processes migrating at once wait for
// each other and apply each migration once), and returns the versions it
// applied (none when the schema is current). Errors: the database cannot
// be reached; it holds migrations this build does not know (written by a
// newer build: ErrSchema); a migration failed (that one and the later ones
// are not applied).
func Migrate(ctx context.Context, url string) ([]int, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("invalid shared state URL (--state): %v", redactErr(err, url))
	}
	s := &Store{where: whereOf(&cfg.Config), timeout: DefaultTimeout}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", advisoryLock); err != nil {
		return nil, s.wrap(err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", advisoryLock)
	if _, err := conn.Exec(ctx, createVersions); err != nil {
		return nil, s.wrap(err)
	}
	have, err := appliedVersions(ctx, conn)
	if err != nil {
		return nil, s.wrap(err)
	}
	if n := len(have); n > 0 && have[n-1] > len(ms) {
		return nil, fmt.Errorf("%w: %s is at schema %d, newer than this build's %d: run a newer frameindex", ErrSchema, s.where, have[n-1], len(ms))
	}
	var applied []int
	for _, m := range ms {
		if slices.Contains(have, m.version) {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("migration %04d_%s.sql: %w", m.version, m.name, s.wrap(err))
		}
		applied = append(applied, m.version)
	}
	return applied, nil
}

func appliedVersions(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]int, error) {
	rows, err := q.Query(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// checkSchema refuses a database whose schema is behind or ahead of this
// build's.
func (s *Store) checkSchema(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	want := SchemaVersion()
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('schema_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return s.wrap(err)
	}
	var have []int
	if exists {
		var err error
		if have, err = appliedVersions(ctx, s.pool); err != nil {
			return s.wrap(err)
		}
	}
	got := 0
	if len(have) > 0 {
		got = have[len(have)-1]
	}
	switch {
	case got > want:
		return fmt.Errorf("%w: %s is at schema %d, newer than this build's %d: run a newer frameindex", ErrSchema, s.where, got, want)
	case got < want || len(have) != got:
		return fmt.Errorf("%w: %s is at schema %d, this build needs %d: run `frameindex state migrate --state URL`", ErrSchema, s.where, got, want)
	}
	return nil
}
