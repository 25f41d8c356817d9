// Package sqlite is the embedded store.Store: one SQLite database file in
// WAL mode (modernc.org/sqlite, pure Go, no cgo). Open applies the schema
// migrations a database lacks, in one transaction, so an older database is
// upgraded in place without losing a row.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/voxkit/voxkit/server/store"
)

// FileName is the name of the database file in a data directory (the one
// examples/server keeps in its -data directory).
const FileName = "voxkit.db"

// lastUsedEvery is the resolution of store.Key.LastUsed: a key used again within
// this time is not written again, so verification stays a read.
const lastUsedEvery = time.Minute

// migrations are applied in order; the database's user_version is the
// number applied. Append, never edit.
var migrations = []string{
	`CREATE TABLE accounts (
		name    TEXT PRIMARY KEY,
		created INTEGER NOT NULL
	) STRICT;
	CREATE TABLE api_keys (
		prefix    TEXT PRIMARY KEY,
		hash      BLOB NOT NULL,
		account   TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		name      TEXT NOT NULL DEFAULT '',
		created   INTEGER NOT NULL,
		last_used INTEGER NOT NULL DEFAULT 0,
		revoked   INTEGER NOT NULL DEFAULT 0
	) STRICT;
	CREATE INDEX api_keys_account ON api_keys(account);`,
	`CREATE TABLE voices (
		id          TEXT PRIMARY KEY,
		account     TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		base        TEXT NOT NULL,
		name        TEXT NOT NULL DEFAULT '',
		speed       REAL NOT NULL DEFAULT 1,
		pitch       REAL NOT NULL DEFAULT 0,
		pitch_range REAL NOT NULL DEFAULT 1,
		volume      REAL NOT NULL DEFAULT 1,
		whisper     INTEGER NOT NULL DEFAULT 0,
		created     INTEGER NOT NULL
	) STRICT;
	CREATE INDEX voices_account ON voices(account);`,
	// Keys made before scopes could do everything: they stay admin keys.
	`ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin';`,
	// Clone ids become per account: the key is (account, id).
	`CREATE TABLE voices_by_account (
		id          TEXT NOT NULL,
		account     TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		base        TEXT NOT NULL,
		name        TEXT NOT NULL DEFAULT '',
		speed       REAL NOT NULL DEFAULT 1,
		pitch       REAL NOT NULL DEFAULT 0,
		pitch_range REAL NOT NULL DEFAULT 1,
		volume      REAL NOT NULL DEFAULT 1,
		whisper     INTEGER NOT NULL DEFAULT 0,
		created     INTEGER NOT NULL,
		PRIMARY KEY (account, id)
	) STRICT;
	INSERT INTO voices_by_account SELECT id, account, base, name, speed, pitch, pitch_range, volume, whisper, created FROM voices;
	DROP TABLE voices;
	ALTER TABLE voices_by_account RENAME TO voices;`,
	// Passwords and sign-in sessions of the web playground.
	`CREATE TABLE passwords (
		account TEXT PRIMARY KEY REFERENCES accounts(name) ON DELETE CASCADE,
		hash    TEXT NOT NULL,
		updated INTEGER NOT NULL
	) STRICT;
	CREATE TABLE sessions (
		token_hash BLOB PRIMARY KEY,
		account    TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		created    INTEGER NOT NULL,
		expires    INTEGER NOT NULL
	) STRICT;
	CREATE INDEX sessions_account ON sessions(account);`,
	// Voices cloned from a recording keep what the engine made of it.
	`ALTER TABLE voices ADD COLUMN sample BLOB;`,
	// Pronunciation lexicons (store.Lexicons): a lexicon names its latest
	// version; versions are numbered in order (seq) within their lexicon,
	// their documents last in the row, so that reading the columns before
	// does not read the document; an account's defaults go with their
	// lexicon when it is deleted.
	`CREATE TABLE lexicons (
		account TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		id      TEXT NOT NULL,
		name    TEXT NOT NULL DEFAULT '',
		created INTEGER NOT NULL,
		latest  TEXT NOT NULL,
		PRIMARY KEY (account, id)
	) STRICT;
	CREATE TABLE lexicon_versions (
		account TEXT NOT NULL,
		id      TEXT NOT NULL,
		version TEXT NOT NULL,
		seq     INTEGER NOT NULL,
		lexemes INTEGER NOT NULL,
		created INTEGER NOT NULL,
		pls     BLOB NOT NULL,
		PRIMARY KEY (account, id, version),
		UNIQUE (account, id, seq),
		FOREIGN KEY (account, id) REFERENCES lexicons(account, id) ON DELETE CASCADE
	) STRICT;
	CREATE TABLE default_lexicons (
		account  TEXT NOT NULL,
		id       TEXT NOT NULL,
		position INTEGER NOT NULL,
		PRIMARY KEY (account, id),
		FOREIGN KEY (account, id) REFERENCES lexicons(account, id) ON DELETE CASCADE
	) STRICT;`,
}

// SQLite is the embedded Store: one database file in WAL mode.
type Store struct {
	db  *sql.DB
	now func() time.Time
	// verify is VerifyKey's query, prepared once: it runs on every
	// request, and preparing it took as long as running it.
	verify *sql.Stmt
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Sessions = (*Store)(nil)
	_ store.Lexicons = (*Store)(nil)
)

// Open opens (creating if needed) the database at path and applies
// pending migrations. The database holds key and password hashes: its
// file is created readable and writable by its owner only (0600), and
// SQLite gives its -wal and -shm files the same mode; an existing file
// that other users may use (an earlier version made it 0644) loses their
// permissions.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := ownerOnly(path); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if s.verify, err = db.PrepareContext(ctx, "SELECT hash, "+keyColumns+" FROM api_keys WHERE prefix = ?"); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// ownerOnly creates the file at path with mode 0600 unless it exists,
// and takes the group's and others' permissions from it and from its
// -wal and -shm files when they have any.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case fi.Mode().Perm()&0o077 != 0:
			if err := os.Chmod(p, fi.Mode().Perm()&^0o077); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this program (%d)", version, len(migrations))
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error { return errors.Join(s.verify.Close(), s.db.Close()) }

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromUnix(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// CreateAccount implements store.Store.
func (s *Store) CreateAccount(ctx context.Context, name string) (store.Account, error) {
	if err := store.ValidateAccountName(name); err != nil {
		return store.Account{}, err
	}
	a := store.Account{Name: name, Created: s.now().Truncate(time.Millisecond)}
	_, err := s.db.ExecContext(ctx, "INSERT INTO accounts(name, created) VALUES(?, ?)", name, unix(a.Created))
	if isConstraint(err) {
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
	a := store.Account{Name: name, Created: s.now().Truncate(time.Millisecond)}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return store.Account{}, fmt.Errorf("store: create account: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "INSERT INTO accounts(name, created) VALUES(?, ?)", name, unix(a.Created))
	if isConstraint(err) {
		return store.Account{}, fmt.Errorf("%w: %q", store.ErrAccountExists, name)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, "INSERT INTO passwords(account, hash, updated) VALUES(?, ?, ?)", name, hash, unix(a.Created))
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: create account: %w", err)
	}
	return a, nil
}

func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// Account implements store.Store.
func (s *Store) Account(ctx context.Context, name string) (store.Account, error) {
	var created int64
	err := s.db.QueryRowContext(ctx, "SELECT created FROM accounts WHERE name = ?", name).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Account{}, fmt.Errorf("%w: account %q", store.ErrNotFound, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: account: %w", err)
	}
	return store.Account{Name: name, Created: fromUnix(created)}, nil
}

// Accounts implements store.Store.
func (s *Store) Accounts(ctx context.Context) ([]store.Account, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name, created FROM accounts ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("store: accounts: %w", err)
	}
	defer rows.Close()
	var out []store.Account
	for rows.Next() {
		var a store.Account
		var created int64
		if err := rows.Scan(&a.Name, &created); err != nil {
			return nil, fmt.Errorf("store: accounts: %w", err)
		}
		a.Created = fromUnix(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// CreateKey implements store.Store.
func (s *Store) CreateKey(ctx context.Context, nk store.NewKey) (store.Key, string, error) {
	if !nk.Scope.Valid() {
		return store.Key{}, "", fmt.Errorf("store: create key: unknown scope %q", nk.Scope)
	}
	if _, err := s.Account(ctx, nk.Account); err != nil {
		return store.Key{}, "", err
	}
	max := int64(nk.Max)
	if max <= 0 {
		max = math.MaxInt64
	}
	for range 5 { // a display-prefix collision (47 bits) is retried
		plain, prefix, hash, err := store.GenerateKey()
		if err != nil {
			return store.Key{}, "", err
		}
		k := store.Key{Prefix: prefix, Account: nk.Account, Scope: nk.Scope, Name: nk.Name, Created: s.now().Truncate(time.Millisecond)}
		// One statement counts and inserts, so concurrent creations
		// cannot pass the limit together.
		res, err := s.db.ExecContext(ctx,
			`INSERT INTO api_keys(prefix, hash, account, name, created, scope)
			SELECT ?, ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM api_keys WHERE account = ? AND revoked = 0) < ?`,
			prefix, hash, k.Account, k.Name, unix(k.Created), string(k.Scope), k.Account, max)
		if isConstraint(err) {
			continue
		}
		if err != nil {
			return store.Key{}, "", fmt.Errorf("store: create key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return store.Key{}, "", fmt.Errorf("%w: account %q holds %d keys", store.ErrLimit, k.Account, nk.Max)
		}
		return k, plain, nil
	}
	return store.Key{}, "", errors.New("store: create key: prefix collisions")
}

const keyColumns = "prefix, account, scope, name, created, last_used, revoked"

func scanKey(sc scanner) (store.Key, error) {
	var k store.Key
	var created, used, revoked int64
	if err := sc.Scan(&k.Prefix, &k.Account, &k.Scope, &k.Name, &created, &used, &revoked); err != nil {
		return store.Key{}, err
	}
	k.Created, k.LastUsed, k.Revoked = fromUnix(created), fromUnix(used), fromUnix(revoked)
	return k, nil
}

// Keys implements store.Store.
func (s *Store) Keys(ctx context.Context, account string) ([]store.Key, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+keyColumns+
		" FROM api_keys WHERE ? = '' OR account = ? ORDER BY created DESC, prefix", account, account)
	out, err := collect(rows, err, scanKey)
	if err != nil {
		return nil, fmt.Errorf("store: keys: %w", err)
	}
	return out, nil
}

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// collect scans every row of a query's result with scan, and closes
// rows; err is the query's error.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// RevokeKey implements store.Store.
func (s *Store) RevokeKey(ctx context.Context, account, prefix string) (store.Key, error) {
	if len(prefix) < len(store.KeyPrefix)+4 || !strings.HasPrefix(prefix, store.KeyPrefix) {
		return store.Key{}, fmt.Errorf("%w: key prefix %q (give sk_ and at least 4 more characters)", store.ErrNotFound, prefix)
	}
	prefix = store.DisplayPrefix(prefix) // a whole key may be given

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return store.Key{}, fmt.Errorf("store: revoke: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT "+keyColumns+
		" FROM api_keys WHERE substr(prefix, 1, ?) = ? AND (? = '' OR account = ?)",
		len(prefix), prefix, account, account)
	if err != nil {
		return store.Key{}, fmt.Errorf("store: revoke: %w", err)
	}
	var found []store.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			rows.Close()
			return store.Key{}, fmt.Errorf("store: revoke: %w", err)
		}
		found = append(found, k)
	}
	rows.Close()
	switch {
	case len(found) == 0:
		return store.Key{}, fmt.Errorf("%w: no key starts with %q", store.ErrNotFound, prefix)
	case len(found) > 1:
		return store.Key{}, fmt.Errorf("%w: %q matches %d keys", store.ErrAmbiguous, prefix, len(found))
	}
	k := found[0]
	if k.Revoked.IsZero() {
		k.Revoked = s.now().Truncate(time.Millisecond)
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked = ? WHERE prefix = ?", unix(k.Revoked), k.Prefix); err != nil {
			return store.Key{}, fmt.Errorf("store: revoke: %w", err)
		}
	}
	return k, tx.Commit()
}

// VerifyKey implements store.Store.
func (s *Store) VerifyKey(ctx context.Context, key string) (store.Key, error) {
	if !store.WellFormed(key) {
		return store.Key{}, store.ErrInvalidKey
	}
	row := s.verify.QueryRowContext(ctx, store.DisplayPrefix(key))
	var hash []byte
	var k store.Key
	var created, used, revoked int64
	err := row.Scan(&hash, &k.Prefix, &k.Account, &k.Scope, &k.Name, &created, &used, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		store.HashEqual(make([]byte, 32), key) // same work as a hit
		return store.Key{}, store.ErrInvalidKey
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("store: verify key: %w", err)
	}
	if !store.HashEqual(hash, key) {
		return store.Key{}, store.ErrInvalidKey
	}
	k.Created, k.LastUsed, k.Revoked = fromUnix(created), fromUnix(used), fromUnix(revoked)
	if !k.Revoked.IsZero() {
		return k, store.ErrRevokedKey
	}
	if now := s.now(); now.Sub(k.LastUsed) >= lastUsedEvery {
		k.LastUsed = now.Truncate(time.Millisecond)
		if _, err := s.db.ExecContext(ctx, "UPDATE api_keys SET last_used = ? WHERE prefix = ?", unix(k.LastUsed), k.Prefix); err != nil {
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
	if _, err := s.Account(ctx, v.Account); err != nil {
		return store.Voice{}, err
	}
	limit := int64(max)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	v.Created = s.now().Truncate(time.Millisecond)
	// One statement counts and inserts, so concurrent creations cannot
	// pass the limit together.
	res, err := s.db.ExecContext(ctx, "INSERT INTO voices("+voiceColumns+") SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"+
		" WHERE (SELECT count(*) FROM voices WHERE account = ?) < ?",
		v.ID, v.Account, v.Base, v.Name, v.Speed, v.Pitch, v.Range, v.Volume, v.Whisper, unix(v.Created), v.Sample, v.Account, limit)
	if isConstraint(err) {
		return store.Voice{}, fmt.Errorf("%w: %q", store.ErrVoiceExists, v.ID)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: create voice: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return store.Voice{}, fmt.Errorf("%w: account %q holds %d voices", store.ErrLimit, v.Account, max)
	}
	return v, nil
}

// Voice implements store.Store.
func (s *Store) Voice(ctx context.Context, account, id string) (store.Voice, error) {
	v, err := scanVoice(s.db.QueryRowContext(ctx, "SELECT "+voiceColumns+" FROM voices WHERE account = ? AND id = ?", account, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: voice: %w", err)
	}
	return v, nil
}

const voiceColumns = "id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample"

func scanVoice(sc scanner) (store.Voice, error) {
	var v store.Voice
	var created int64
	if err := sc.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, &created, &v.Sample); err != nil {
		return store.Voice{}, err
	}
	v.Created = fromUnix(created)
	return v, nil
}

// Voices implements store.Store.
func (s *Store) Voices(ctx context.Context, account string) ([]store.Voice, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+voiceColumns+
		" FROM voices WHERE ? = '' OR account = ? ORDER BY id", account, account)
	out, err := collect(rows, err, scanVoice)
	if err != nil {
		return nil, fmt.Errorf("store: voices: %w", err)
	}
	return out, nil
}

var _ store.VoiceHeader = (*Store)(nil)

// VoiceHeads implements store.VoiceHeader.
func (s *Store) VoiceHeads(ctx context.Context, account string) ([]store.Voice, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+voiceHeadColumns+
		" FROM voices WHERE ? = '' OR account = ? ORDER BY id", account, account)
	out, err := collect(rows, err, scanVoiceHead)
	if err != nil {
		return nil, fmt.Errorf("store: voices: %w", err)
	}
	return out, nil
}

// voiceHeadColumns are voiceColumns with whether there is a sample in
// place of the sample.
const voiceHeadColumns = "id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample IS NOT NULL"

func scanVoiceHead(sc scanner) (store.Voice, error) {
	var v store.Voice
	var created int64
	var sampled bool
	if err := sc.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, &created, &sampled); err != nil {
		return store.Voice{}, err
	}
	v.Created = fromUnix(created)
	if sampled {
		v.Sample = []byte{}
	}
	return v, nil
}

var _ store.VoiceCounter = (*Store)(nil)

// VoiceCount implements store.VoiceCounter.
func (s *Store) VoiceCount(ctx context.Context, account string) (n int, err error) {
	if err = s.db.QueryRowContext(ctx, "SELECT count(*) FROM voices WHERE account = ?", account).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting voices: %w", err)
	}
	return n, nil
}

// DeleteVoice implements store.Store.
func (s *Store) DeleteVoice(ctx context.Context, account, id string) (store.Voice, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: delete voice: %w", err)
	}
	defer tx.Rollback()
	v, err := scanVoice(tx.QueryRowContext(ctx, "SELECT "+voiceColumns+" FROM voices WHERE account = ? AND id = ?", account, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Voice{}, fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: delete voice: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM voices WHERE account = ? AND id = ?", account, id); err != nil {
		return store.Voice{}, fmt.Errorf("store: delete voice: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return store.Voice{}, fmt.Errorf("store: delete voice: %w", err)
	}
	return v, nil
}

// SetPassword implements store.Sessions.
func (s *Store) SetPassword(ctx context.Context, account, hash string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE name = ?", account).Scan(&n); err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO passwords(account, hash, updated) VALUES(?, ?, ?)
		ON CONFLICT(account) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`, account, hash, unix(s.now())); err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE account = ?", account); err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	return nil
}

// PasswordHash implements store.Sessions.
func (s *Store) PasswordHash(ctx context.Context, account string) (string, error) {
	var hash string
	err := s.db.QueryRowContext(ctx, "SELECT hash FROM passwords WHERE account = ?", account).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: password of %q", store.ErrNotFound, account)
	}
	if err != nil {
		return "", fmt.Errorf("store: password: %w", err)
	}
	return hash, nil
}

// CreateSession implements store.Sessions. Expired sessions are removed
// on the way.
func (s *Store) CreateSession(ctx context.Context, ss store.Session) error {
	if _, err := s.db.ExecContext(ctx, "DELETE FROM sessions WHERE expires <= ?", unix(s.now())); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	_, err := s.db.ExecContext(ctx, "INSERT INTO sessions(token_hash, account, created, expires) VALUES(?, ?, ?, ?)",
		ss.TokenHash, ss.Account, unix(ss.Created), unix(ss.Expires))
	if isConstraint(err) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, ss.Account)
	}
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// Session implements store.Sessions.
func (s *Store) Session(ctx context.Context, tokenHash []byte) (store.Session, error) {
	ss := store.Session{TokenHash: tokenHash}
	var created, expires int64
	err := s.db.QueryRowContext(ctx, "SELECT account, created, expires FROM sessions WHERE token_hash = ? AND expires > ?",
		tokenHash, unix(s.now())).Scan(&ss.Account, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("%w: session", store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("store: session: %w", err)
	}
	ss.Created, ss.Expires = fromUnix(created), fromUnix(expires)
	return ss, nil
}

// DeleteSession implements store.Sessions.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.db.ExecContext(ctx, "DELETE FROM sessions WHERE token_hash = ?", tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// Ping reports whether the database answers; a server's /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	return s.db.PingContext(ctx)
}
