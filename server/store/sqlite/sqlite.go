// Package sqlite is the embedded store.Store: one SQLite database file in
// WAL mode (modernc.org/sqlite, pure Go, no cgo). Open applies the schema
// migrations a database lacks, in one transaction, so an older database is
// upgraded in place without losing a row. The queries and transactions are
// package sqlstore's, which server/store/postgres shares; this package
// holds SQLite's dialect, the connection and the migrations.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/voxkit/voxkit/server/store/sqlstore"
)

// FileName is the name of the database file in a data directory (the one
// examples/server keeps in its -data directory).
const FileName = "voxkit.db"

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
	// Long-form jobs (store.Jobs): a job's segments, each with its audio
	// once rendered, and its result files in parts.
	`CREATE TABLE jobs (
		id            TEXT PRIMARY KEY,
		account       TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
		status        TEXT NOT NULL,
		spec          BLOB NOT NULL,
		segments      INTEGER NOT NULL,
		segments_done INTEGER NOT NULL,
		chars         INTEGER NOT NULL,
		chars_done    INTEGER NOT NULL,
		audio_ms      INTEGER NOT NULL,
		bytes         INTEGER NOT NULL,
		error         TEXT NOT NULL,
		created       INTEGER NOT NULL,
		started       INTEGER NOT NULL,
		finished      INTEGER NOT NULL
	) STRICT;
	CREATE INDEX jobs_account ON jobs(account, created);
	CREATE TABLE job_segments (
		job     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		seq     INTEGER NOT NULL,
		chapter INTEGER NOT NULL,
		text    TEXT NOT NULL,
		done    INTEGER NOT NULL,
		rate    INTEGER NOT NULL,
		samples INTEGER NOT NULL,
		renders INTEGER NOT NULL,
		words   BLOB,
		pcm     BLOB,
		PRIMARY KEY (job, seq)
	) STRICT;
	CREATE TABLE job_files (
		job          TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		name         TEXT NOT NULL,
		content_type TEXT NOT NULL,
		size         INTEGER NOT NULL,
		parts        INTEGER NOT NULL,
		PRIMARY KEY (job, name)
	) STRICT;
	CREATE TABLE job_file_parts (
		job  TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		name TEXT NOT NULL,
		part INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (job, name, part)
	) STRICT;`,
	// Progress in sentences (each segment's count, what a segment
	// rendering has done so far) and the code of a job's failure.
	`ALTER TABLE jobs ADD COLUMN sentences INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE jobs ADD COLUMN sentences_done INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE jobs ADD COLUMN error_code TEXT NOT NULL DEFAULT '';
	ALTER TABLE job_segments ADD COLUMN sentences INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE job_segments ADD COLUMN sentences_done INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE job_segments ADD COLUMN chars_done INTEGER NOT NULL DEFAULT 0;`,
}

// Store is the embedded store.Store: one database file in WAL mode. Its
// queries are package sqlstore's, in SQLite's dialect.
type Store struct {
	*sqlstore.Store
	db    *sql.DB
	queue *sql.DB // QueueDB's
	now   func() time.Time
}

var _ sqlstore.All = (*Store)(nil)

// dialect is SQLite's: ? placeholders, times as INTEGER milliseconds, no
// row locks (every transaction takes the write lock as it begins: Open
// sets _txlock=immediate), bytes the default collation, any constraint
// failure the one a statement can meet, and VerifyKey's lookup prepared
// once (preparing it took as long as running it).
var dialect = sqlstore.Dialect{
	Resolution:   time.Millisecond,
	UnixMillis:   true,
	InsertOrder:  "rowid",
	IsUnique:     isConstraint,
	IsForeignKey: isConstraint,
	Prepare:      true,
}

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
	if s.queue, err = sql.Open("sqlite", "file:"+path+"?"+q.Encode()); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s.queue.SetMaxOpenConns(1)
	if err := s.migrate(ctx); err != nil {
		s.queue.Close()
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if s.Store, err = sqlstore.New(ctx, db, dialect, func() time.Time { return s.now() }); err != nil {
		s.queue.Close()
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// QueueDB returns a second handle on the database, of one connection, on
// which a job queue runs beside the store's tables (River's SQLite
// driver, whose documentation advises one connection). Close closes it.
func (s *Store) QueueDB() *sql.DB { return s.queue }

// Close closes the database.
func (s *Store) Close() error { return errors.Join(s.queue.Close(), s.Store.Close()) }

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

// isConstraint reports a failed constraint of any kind: the store meets
// only the one each statement can fail (a unique key, or a reference).
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
