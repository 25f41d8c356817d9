// Package postgres is the store.Store on a PostgreSQL server
// (github.com/jackc/pgx/v5 with a connection pool), for servers that run
// several replicas on one database. It behaves as server/store/sqlite
// does, with the same errors: the queries and transactions are package
// sqlstore's, which both share, run through database/sql on the pool
// (pgx's stdlib); this package holds PostgreSQL's dialect, the
// connection, the migrations, and what only a shared database does
// (Limiter, VoiceWatcher).
//
// Open applies the schema migrations the database lacks: an append-only
// list, recorded in the table schema_migrations, applied in one
// transaction under a transaction-scoped advisory lock, so replicas that
// start together migrate once (the others wait, then find nothing to do)
// and a failed migration leaves the schema as it was. The tables go in
// the connection's search_path (public by default; give
// options=-csearch_path%3Dvoxkit in the URL for another schema).
//
// The limits of CreateKey, CreateVoice and CreateLexicon hold under
// concurrent creation from any number of connections and replicas: each
// creation locks its account's row, then counts and inserts in the same
// transaction. AddLexiconVersion locks its lexicon's row the same way, so
// versions added at once are each kept, in the order they committed.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/voxkit/voxkit/server/store/sqlstore"
)

// migrationLock is the advisory lock key Open holds while it migrates
// ("voxkit" in ASCII). Advisory locks are per database.
const migrationLock = 0x766f786b6974

// migrations are applied in order; schema_migrations holds the number of
// each one applied. Append, never edit.
var migrations = []string{
	`CREATE TABLE accounts (
		name    text PRIMARY KEY,
		created timestamptz NOT NULL
	);
	CREATE TABLE api_keys (
		prefix    text PRIMARY KEY,
		hash      bytea NOT NULL,
		account   text NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		scope     text NOT NULL,
		name      text NOT NULL DEFAULT '',
		created   timestamptz NOT NULL,
		last_used timestamptz,
		revoked   timestamptz
	);
	CREATE INDEX api_keys_account ON api_keys(account);
	CREATE TABLE voices (
		account     text NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		id          text NOT NULL,
		base        text NOT NULL,
		name        text NOT NULL DEFAULT '',
		speed       double precision NOT NULL DEFAULT 1,
		pitch       double precision NOT NULL DEFAULT 0,
		pitch_range double precision NOT NULL DEFAULT 1,
		volume      double precision NOT NULL DEFAULT 1,
		whisper     boolean NOT NULL DEFAULT false,
		created     timestamptz NOT NULL,
		PRIMARY KEY (account, id)
	);`,
	// Passwords and sign-in sessions (store.Sessions), and the counts of
	// the request limits (store.Limiter).
	`CREATE TABLE passwords (
		account text PRIMARY KEY REFERENCES accounts(name) ON DELETE CASCADE,
		hash    text NOT NULL,
		updated timestamptz NOT NULL
	);
	CREATE TABLE sessions (
		token_hash bytea PRIMARY KEY,
		account    text NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		created    timestamptz NOT NULL,
		expires    timestamptz NOT NULL
	);
	CREATE INDEX sessions_account ON sessions(account);
	CREATE TABLE rate_windows (
		account      text NOT NULL,
		window_start timestamptz NOT NULL,
		n            integer NOT NULL,
		PRIMARY KEY (account, window_start)
	);
	CREATE TABLE leases (
		id      bigserial PRIMARY KEY,
		account text NOT NULL,
		expires timestamptz NOT NULL
	);
	CREATE INDEX leases_account ON leases(account, expires);`,
	// Voices cloned from a recording keep what the engine made of it.
	`ALTER TABLE voices ADD COLUMN sample bytea;`,
	// Pronunciation lexicons (store.Lexicons): a lexicon names its latest
	// version; versions are numbered in order (seq) within their lexicon,
	// their documents last in the row, so that reading the columns before
	// does not read the document; an account's defaults go with their
	// lexicon when it is deleted.
	`CREATE TABLE lexicons (
		account text NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		id      text NOT NULL,
		ordinal bigint GENERATED ALWAYS AS IDENTITY,
		name    text NOT NULL DEFAULT '',
		created timestamptz NOT NULL,
		latest  text NOT NULL,
		PRIMARY KEY (account, id)
	);
	CREATE TABLE lexicon_versions (
		account text NOT NULL,
		id      text NOT NULL,
		version text NOT NULL,
		seq     integer NOT NULL,
		lexemes integer NOT NULL,
		created timestamptz NOT NULL,
		pls     bytea NOT NULL,
		PRIMARY KEY (account, id, version),
		UNIQUE (account, id, seq),
		FOREIGN KEY (account, id) REFERENCES lexicons(account, id) ON DELETE CASCADE
	);
	CREATE TABLE default_lexicons (
		account  text NOT NULL,
		id       text NOT NULL,
		position integer NOT NULL,
		PRIMARY KEY (account, id),
		FOREIGN KEY (account, id) REFERENCES lexicons(account, id) ON DELETE CASCADE
	);`,
	// Long-form jobs (store.Jobs): a job's segments, each with its audio
	// once rendered, and its result files in parts.
	`CREATE TABLE jobs (
		id            text PRIMARY KEY,
		account       text NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		status        text NOT NULL,
		spec          bytea NOT NULL,
		segments      integer NOT NULL,
		segments_done integer NOT NULL,
		chars         bigint NOT NULL,
		chars_done    bigint NOT NULL,
		audio_ms      bigint NOT NULL,
		bytes         bigint NOT NULL,
		error         text NOT NULL,
		created       timestamptz NOT NULL,
		started       timestamptz,
		finished      timestamptz
	);
	CREATE INDEX jobs_account ON jobs(account, created);
	CREATE TABLE job_segments (
		job     text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		seq     integer NOT NULL,
		chapter integer NOT NULL,
		text    text NOT NULL,
		done    boolean NOT NULL,
		rate    integer NOT NULL,
		samples bigint NOT NULL,
		renders integer NOT NULL,
		words   bytea,
		pcm     bytea,
		PRIMARY KEY (job, seq)
	);
	CREATE TABLE job_files (
		job          text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		name         text NOT NULL,
		content_type text NOT NULL,
		size         bigint NOT NULL,
		parts        integer NOT NULL,
		PRIMARY KEY (job, name)
	);
	CREATE TABLE job_file_parts (
		job  text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		name text NOT NULL,
		part integer NOT NULL,
		data bytea NOT NULL,
		PRIMARY KEY (job, name, part)
	);`,
	// Progress in sentences (each segment's count, what a segment
	// rendering has done so far) and the code of a job's failure.
	`ALTER TABLE jobs ADD COLUMN sentences integer NOT NULL DEFAULT 0;
	ALTER TABLE jobs ADD COLUMN sentences_done integer NOT NULL DEFAULT 0;
	ALTER TABLE jobs ADD COLUMN error_code text NOT NULL DEFAULT '';
	ALTER TABLE job_segments ADD COLUMN sentences integer NOT NULL DEFAULT 0;
	ALTER TABLE job_segments ADD COLUMN sentences_done integer NOT NULL DEFAULT 0;
	ALTER TABLE job_segments ADD COLUMN chars_done bigint NOT NULL DEFAULT 0;`,
}

// Store is the store.Store on a PostgreSQL database. Its queries are
// package sqlstore's, in PostgreSQL's dialect, run through database/sql
// on the pool; the limiter and the watch use the pool itself.
type Store struct {
	*sqlstore.Store
	pool *pgxpool.Pool
	now  func() time.Time

	// watchers counts the WatchVoices calls running; Close ends them
	// (unwatch) and waits for them. mu guards closed and watchers.Add.
	mu       sync.Mutex
	closed   bool
	unwatch  context.CancelFunc
	watchCtx context.Context
	watchers sync.WaitGroup
}

var _ sqlstore.All = (*Store)(nil)

// dialect is PostgreSQL's: $n placeholders, times as timestamptz (NULL
// for none, microseconds), row locks, names compared by bytes whatever
// the database's collation, lookups by strings it cannot hold answered
// without asking, and a NOTIFY for each clone created or deleted.
var dialect = sqlstore.Dialect{
	Numbered:     true,
	Resolution:   time.Microsecond,
	Collate:      ` COLLATE "C"`,
	RowLocks:     true,
	InsertOrder:  "ordinal",
	IsUnique:     isUnique,
	IsForeignKey: isForeignKey,
	Storable:     storable,
	VoiceChanged: notifyVoice,
}

// Open connects to the database at dsn, a URL
// (postgres://user:password@host:5432/database?sslmode=verify-full) or a
// libpq key=value string, with a pool (its size set by pool_max_conns in
// dsn, default the larger of 4 and the number of CPUs), and applies
// pending migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	s := &Store{pool: pool, now: time.Now}
	s.watchCtx, s.unwatch = context.WithCancel(context.Background())
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	if s.Store, err = sqlstore.New(ctx, db, dialect, func() time.Time { return s.now() }); err != nil {
		db.Close()
		pool.Close()
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Held until the transaction ends: a replica starting meanwhile
		// waits here, then finds the migrations applied.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			applied timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		var version int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&version); err != nil {
			return err
		}
		if version > len(migrations) {
			return &SchemaError{Database: version, Program: len(migrations)}
		}
		for i := version; i < len(migrations); i++ {
			if _, err := tx.Exec(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations(version) VALUES($1)", i+1); err != nil {
				return err
			}
		}
		return nil
	})
}

// SchemaError is Open's error for a database whose schema is newer than
// this program's: a newer voxkit has migrated it. Open changed nothing; a
// server meeting it should stay up, not ready, rather than exit and be
// restarted in a loop.
type SchemaError struct {
	Database, Program int // schema versions
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this program's (%d): a newer voxkit migrated it; run that version or a later one",
		e.Database, e.Program)
}

// Pool returns the store's connection pool, on which a job queue
// (River's pgx driver) runs beside the store's tables.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close ends the running WatchVoices calls, waiting for them to return
// (so it must not be called from their callback), and closes the pool's
// connections. Calling it again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.unwatch()
	s.watchers.Wait()
	err := s.Store.Close()
	s.pool.Close()
	return err
}

// stamp returns the current time as the database keeps it.
func (s *Store) stamp() time.Time { return s.now().Truncate(time.Microsecond) }

// isUnique and isForeignKey classify the server's errors by SQLSTATE.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" // unique_violation
}

// storable reports whether every string can be a text value: PostgreSQL
// refuses a NUL byte or invalid UTF-8 outright (an error, not "no row"),
// so a lookup by such an id, which a client may put in a path, is
// answered as not found without asking.
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}

func isForeignKey(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503" // foreign_key_violation
}
