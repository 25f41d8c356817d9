// Package postgres is the store.Store on a PostgreSQL server
// (github.com/jackc/pgx/v5 with a connection pool), for servers that run
// several replicas on one database. It behaves as server/store/sqlite
// does, with the same errors.
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

	"github.com/voxkit/voxkit/server/store"
)

// lastUsedEvery is the resolution of store.Key.LastUsed: a key used again
// within this time is not written again, so verification stays a read.
const lastUsedEvery = time.Minute

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
}

// Store is the store.Store on a PostgreSQL database.
type Store struct {
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

var _ store.Store = (*Store)(nil)

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

// Close ends the running WatchVoices calls, waiting for them to return
// (so it must not be called from their callback), and closes the pool's
// connections. Calling it again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.unwatch()
	s.watchers.Wait()
	s.pool.Close()
	return nil
}

// stamp returns the current time as the database keeps it.
func (s *Store) stamp() time.Time { return s.now().Truncate(time.Microsecond) }

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

// time returns a nullable column's time, zero for NULL.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// CreateAccount implements store.Store.
func (s *Store) CreateAccount(ctx context.Context, name string) (store.Account, error) {
	if err := store.ValidateAccountName(name); err != nil {
		return store.Account{}, err
	}
	a := store.Account{Name: name, Created: s.stamp()}
	_, err := s.pool.Exec(ctx, "INSERT INTO accounts(name, created) VALUES($1, $2)", name, a.Created)
	if isUnique(err) {
		return store.Account{}, fmt.Errorf("%w: %q", store.ErrAccountExists, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: create account: %w", err)
	}
	return a, nil
}

// CreateAccountWithPassword implements store.Sessions.
func (s *Store) CreateAccountWithPassword(ctx context.Context, name, hash string) (store.Account, error) {
	if err := store.ValidateAccountName(name); err != nil {
		return store.Account{}, err
	}
	a := store.Account{Name: name, Created: s.stamp()}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO accounts(name, created) VALUES($1, $2)", name, a.Created); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO passwords(account, hash, updated) VALUES($1, $2, $3)", name, hash, a.Created)
		return err
	})
	if isUnique(err) {
		return store.Account{}, fmt.Errorf("%w: %q", store.ErrAccountExists, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: create account: %w", err)
	}
	return a, nil
}

// Account implements store.Store.
func (s *Store) Account(ctx context.Context, name string) (store.Account, error) {
	if !storable(name) {
		return store.Account{}, fmt.Errorf("%w: account %q", store.ErrNotFound, name)
	}
	a := store.Account{Name: name}
	err := s.pool.QueryRow(ctx, "SELECT created FROM accounts WHERE name = $1", name).Scan(&a.Created)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Account{}, fmt.Errorf("%w: account %q", store.ErrNotFound, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: account: %w", err)
	}
	return a, nil
}

// Accounts implements store.Store. Names are ordered by their bytes, as
// SQLite orders them, whatever the database's collation.
func (s *Store) Accounts(ctx context.Context) ([]store.Account, error) {
	rows, _ := s.pool.Query(ctx, `SELECT name, created FROM accounts ORDER BY name COLLATE "C"`)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Account, error) {
		var a store.Account
		err := row.Scan(&a.Name, &a.Created)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: accounts: %w", err)
	}
	return out, nil
}

// lockAccount locks the row of account until tx ends, so that creations
// for one account count and insert one after the other; ErrNotFound if
// there is no such account.
func lockAccount(ctx context.Context, tx pgx.Tx, account string) error {
	var one int
	err := tx.QueryRow(ctx, "SELECT 1 FROM accounts WHERE name = $1 FOR NO KEY UPDATE", account).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	return err
}

// below returns whether the count query gives less than max (no limit
// when max <= 0). Run after lockAccount, in READ COMMITTED its statement
// sees every creation committed before the lock was granted.
func below(ctx context.Context, tx pgx.Tx, max int, count string, args ...any) (bool, error) {
	if max <= 0 {
		return true, nil
	}
	var n int64
	if err := tx.QueryRow(ctx, count, args...).Scan(&n); err != nil {
		return false, err
	}
	return n < int64(max), nil
}

// errLimit stops a creation's transaction at its limit.
var errLimit = errors.New("limit")

// CreateKey implements store.Store.
func (s *Store) CreateKey(ctx context.Context, nk store.NewKey) (store.Key, string, error) {
	if !nk.Scope.Valid() {
		return store.Key{}, "", fmt.Errorf("store: create key: unknown scope %q", nk.Scope)
	}
	for range 5 { // a display-prefix collision (47 bits) is retried
		plain, prefix, hash, err := store.GenerateKey()
		if err != nil {
			return store.Key{}, "", err
		}
		k := store.Key{Prefix: prefix, Account: nk.Account, Scope: nk.Scope, Name: nk.Name, Created: s.stamp()}
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := lockAccount(ctx, tx, k.Account); err != nil {
				return err
			}
			ok, err := below(ctx, tx, nk.Max, "SELECT count(*) FROM api_keys WHERE account = $1 AND revoked IS NULL", k.Account)
			if err != nil || !ok {
				return cmp(err, errLimit)
			}
			_, err = tx.Exec(ctx, "INSERT INTO api_keys(prefix, hash, account, scope, name, created) VALUES($1, $2, $3, $4, $5, $6)",
				prefix, hash, k.Account, string(k.Scope), k.Name, k.Created)
			return err
		})
		switch {
		case isUnique(err):
			continue
		case errors.Is(err, errLimit):
			return store.Key{}, "", fmt.Errorf("%w: account %q holds %d keys", store.ErrLimit, k.Account, nk.Max)
		case errors.Is(err, store.ErrNotFound):
			return store.Key{}, "", err
		case err != nil:
			return store.Key{}, "", fmt.Errorf("store: create key: %w", err)
		}
		return k, plain, nil
	}
	return store.Key{}, "", errors.New("store: create key: prefix collisions")
}

// cmp returns err, or alt when err is nil.
func cmp(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

const keyColumns = "prefix, account, scope, name, created, last_used, revoked"

func scanKey(row pgx.Row, extra ...any) (store.Key, error) {
	var k store.Key
	var used, revoked *time.Time
	dest := append(extra, &k.Prefix, &k.Account, &k.Scope, &k.Name, &k.Created, &used, &revoked)
	if err := row.Scan(dest...); err != nil {
		return store.Key{}, err
	}
	k.LastUsed, k.Revoked = timeOf(used), timeOf(revoked)
	return k, nil
}

func collectKey(row pgx.CollectableRow) (store.Key, error) { return scanKey(row) }

// Keys implements store.Store.
func (s *Store) Keys(ctx context.Context, account string) ([]store.Key, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+keyColumns+
		` FROM api_keys WHERE $1 = '' OR account = $1 ORDER BY created DESC, prefix COLLATE "C"`, account)
	out, err := pgx.CollectRows(rows, collectKey)
	if err != nil {
		return nil, fmt.Errorf("store: keys: %w", err)
	}
	return out, nil
}

// RevokeKey implements store.Store.
func (s *Store) RevokeKey(ctx context.Context, account, prefix string) (store.Key, error) {
	if len(prefix) < len(store.KeyPrefix)+4 || !strings.HasPrefix(prefix, store.KeyPrefix) || !storable(account, prefix) {
		return store.Key{}, fmt.Errorf("%w: key prefix %q (give sk_ and at least 4 more characters)", store.ErrNotFound, prefix)
	}
	prefix = store.DisplayPrefix(prefix) // a whole key may be given
	var k store.Key
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, "SELECT "+keyColumns+
			" FROM api_keys WHERE starts_with(prefix, $1) AND ($2 = '' OR account = $2) FOR UPDATE", prefix, account)
		found, err := pgx.CollectRows(rows, collectKey)
		switch {
		case err != nil:
			return err
		case len(found) == 0:
			return fmt.Errorf("%w: no key starts with %q", store.ErrNotFound, prefix)
		case len(found) > 1:
			return fmt.Errorf("%w: %q matches %d keys", store.ErrAmbiguous, prefix, len(found))
		}
		k = found[0]
		if !k.Revoked.IsZero() {
			return nil
		}
		k.Revoked = s.stamp()
		_, err = tx.Exec(ctx, "UPDATE api_keys SET revoked = $1 WHERE prefix = $2", k.Revoked, k.Prefix)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		return store.Key{}, err
	case err != nil:
		return store.Key{}, fmt.Errorf("store: revoke: %w", err)
	}
	return k, nil
}

// VerifyKey implements store.Store.
func (s *Store) VerifyKey(ctx context.Context, key string) (store.Key, error) {
	if !store.WellFormed(key) {
		return store.Key{}, store.ErrInvalidKey
	}
	var hash []byte
	k, err := scanKey(s.pool.QueryRow(ctx, "SELECT hash, "+keyColumns+" FROM api_keys WHERE prefix = $1", store.DisplayPrefix(key)), &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		store.HashEqual(make([]byte, 32), key) // same work as a hit
		return store.Key{}, store.ErrInvalidKey
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("store: verify key: %w", err)
	}
	if !store.HashEqual(hash, key) {
		return store.Key{}, store.ErrInvalidKey
	}
	if !k.Revoked.IsZero() {
		return k, store.ErrRevokedKey
	}
	if now := s.now(); now.Sub(k.LastUsed) >= lastUsedEvery {
		k.LastUsed = now.Truncate(time.Microsecond)
		if _, err := s.pool.Exec(ctx, "UPDATE api_keys SET last_used = $1 WHERE prefix = $2", k.LastUsed, k.Prefix); err != nil {
			return store.Key{}, fmt.Errorf("store: verify key: %w", err)
		}
	}
	return k, nil
}

// CreateVoice implements store.Store.
func (s *Store) CreateVoice(ctx context.Context, v store.Voice, max int) (store.Voice, error) {
	if err := v.Check(); err != nil {
		return store.Voice{}, err
	}
	v.Created = s.stamp()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, v.Account); err != nil {
			return err
		}
		ok, err := below(ctx, tx, max, "SELECT count(*) FROM voices WHERE account = $1", v.Account)
		if err != nil || !ok {
			return cmp(err, errLimit)
		}
		_, err = tx.Exec(ctx, "INSERT INTO voices("+voiceColumns+") VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
			v.ID, v.Account, v.Base, v.Name, v.Speed, v.Pitch, v.Range, v.Volume, v.Whisper, v.Created, v.Sample)
		if err != nil {
			return err
		}
		return notifyVoice(ctx, tx, v.Account, v.ID)
	})
	switch {
	case isUnique(err):
		return store.Voice{}, fmt.Errorf("%w: %q", store.ErrVoiceExists, v.ID)
	case errors.Is(err, errLimit):
		return store.Voice{}, fmt.Errorf("%w: account %q holds %d voices", store.ErrLimit, v.Account, max)
	case errors.Is(err, store.ErrNotFound):
		return store.Voice{}, err
	case err != nil:
		return store.Voice{}, fmt.Errorf("store: create voice: %w", err)
	}
	return v, nil
}

const voiceColumns = "id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample"

func scanVoice(row pgx.Row) (store.Voice, error) {
	var v store.Voice
	err := row.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, &v.Created, &v.Sample)
	return v, err
}

func collectVoice(row pgx.CollectableRow) (store.Voice, error) { return scanVoice(row) }

// Voice implements store.Store.
func (s *Store) Voice(ctx context.Context, account, id string) (store.Voice, error) {
	if !storable(account, id) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	v, err := scanVoice(s.pool.QueryRow(ctx, "SELECT "+voiceColumns+" FROM voices WHERE account = $1 AND id = $2", account, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: voice: %w", err)
	}
	return v, nil
}

// Voices implements store.Store.
func (s *Store) Voices(ctx context.Context, account string) ([]store.Voice, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+voiceColumns+
		` FROM voices WHERE $1 = '' OR account = $1 ORDER BY id COLLATE "C", account COLLATE "C"`, account)
	out, err := pgx.CollectRows(rows, collectVoice)
	if err != nil {
		return nil, fmt.Errorf("store: voices: %w", err)
	}
	return out, nil
}

var _ store.VoiceHeader = (*Store)(nil)

// VoiceHeads implements store.VoiceHeader.
func (s *Store) VoiceHeads(ctx context.Context, account string) ([]store.Voice, error) {
	rows, _ := s.pool.Query(ctx, "SELECT id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample IS NOT NULL"+
		` FROM voices WHERE $1 = '' OR account = $1 ORDER BY id COLLATE "C", account COLLATE "C"`, account)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Voice, error) {
		var v store.Voice
		var sampled bool
		err := row.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, &v.Created, &sampled)
		if sampled {
			v.Sample = []byte{}
		}
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: voices: %w", err)
	}
	return out, nil
}

var _ store.VoiceCounter = (*Store)(nil)

// VoiceCount implements store.VoiceCounter.
func (s *Store) VoiceCount(ctx context.Context, account string) (n int, err error) {
	if err = s.pool.QueryRow(ctx, "SELECT count(*) FROM voices WHERE account = $1", account).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting voices: %w", err)
	}
	return n, nil
}

// DeleteVoice implements store.Store.
func (s *Store) DeleteVoice(ctx context.Context, account, id string) (store.Voice, error) {
	if !storable(account, id) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	var v store.Voice
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		v, err = scanVoice(tx.QueryRow(ctx, "DELETE FROM voices WHERE account = $1 AND id = $2 RETURNING "+voiceColumns, account, id))
		if err != nil {
			return err
		}
		return notifyVoice(ctx, tx, account, id)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: delete voice: %w", err)
	}
	return v, nil
}

func isForeignKey(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503" // foreign_key_violation
}
