// Package sqlstore is the store.Store both SQL backends share: every
// query, every transaction and every rule of what a store keeps
// (accounts, API keys, voice clones, passwords and sessions, lexicons),
// written once over database/sql, as database/sql sits above its
// drivers. A backend brings only what is its database's own: a Dialect
// (placeholders, how times are kept, row locks, collation, how a unique
// violation looks), its connection and its migrations, and hands the
// *sql.DB to New. server/store/sqlite and server/store/postgres are the
// two.
//
// The store is composed of one type per room, each implementing its part
// of the store's interfaces: AccountStore, KeyStore, VoiceStore,
// SessionStore and LexiconStore, embedded in Store, which a backend
// embeds in turn.
//
// Queries are written with ? placeholders and hold no other '?'.
// Transactions that count and then insert (the key, clone and lexicon
// limits) lock the account's row first where the database locks rows;
// where it does not (Dialect.RowLocks false), every transaction must take
// the database's write lock when it begins (SQLite's BEGIN IMMEDIATE), so
// that no creation comes between a count and its insert.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// Dialect is what a database's SQL and driver bring to the queries.
type Dialect struct {
	// Numbered placeholders are $1, $2, … (PostgreSQL); otherwise the
	// queries' ? are given as they are (SQLite).
	Numbered bool
	// Resolution is how finely the database keeps times; the store
	// truncates the times it makes to it, so that it returns what it
	// stored.
	Resolution time.Duration
	// UnixMillis keeps times as integer milliseconds since 1970, 0 for
	// none (SQLite's INTEGER columns); otherwise they are given to the
	// driver as time.Time values, and NULL reads as none.
	UnixMillis bool
	// Collate follows a text column a list is ordered by, so that it
	// sorts by bytes whatever the database's collation: ` COLLATE "C"`,
	// or "" where bytes are the default.
	Collate string
	// RowLocks says the database locks rows (SELECT … FOR UPDATE). A
	// database without them must take its write lock when a transaction
	// begins.
	RowLocks bool
	// InsertOrder is the column of the lexicons table that orders the
	// lexicons created at one instant: "rowid" in SQLite, an identity
	// column in PostgreSQL. Required.
	InsertOrder string
	// IsUnique reports a unique or primary-key violation, IsForeignKey a
	// reference to a row that does not exist. Both are required.
	IsUnique, IsForeignKey func(error) bool
	// Storable reports whether strings can be compared with a text
	// column; a lookup by one that cannot (PostgreSQL refuses a NUL byte
	// or invalid UTF-8 outright) is answered as not found without
	// asking. nil means every string can.
	Storable func(...string) bool
	// VoiceChanged, when set, returns a statement to run in the
	// transaction that creates or deletes a voice clone, such as
	// PostgreSQL's pg_notify, so that it takes effect when (and only if)
	// the change commits.
	VoiceChanged func(account, id string) (query string, args []any)
	// Prepare prepares the statement every request runs (VerifyKey's
	// lookup) once, where preparing costs as much as running it
	// (SQLite); a driver that caches its statements itself has no need.
	Prepare bool
}

// Row-lock clauses, given where the dialect has row locks.
const (
	forUpdate      = " FOR UPDATE"
	forNoKeyUpdate = " FOR NO KEY UPDATE"
	forKeyShare    = " FOR KEY SHARE"
)

// lock returns clause where the database locks rows, else "".
func (d *Dialect) lock(clause string) string {
	if d.RowLocks {
		return clause
	}
	return ""
}

// storable reports whether every string can be a text value.
func (d *Dialect) storable(ss ...string) bool { return d.Storable == nil || d.Storable(ss...) }

// time returns t as the database keeps it.
func (d *Dialect) time(t time.Time) any {
	if !d.UnixMillis {
		return t
	}
	if t.IsZero() {
		return int64(0)
	}
	return t.UnixMilli()
}

// none returns the condition of a time column that holds no time: 0
// where times are numbers, NULL where they are times.
func (d *Dialect) none(column string) string {
	if d.UnixMillis {
		return column + " = 0"
	}
	return column + " IS NULL"
}

// rebind writes query's ? placeholders in the dialect's syntax.
func (d *Dialect) rebind(query string) string {
	if !d.Numbered || strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := range len(query) {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// Store is a store.Store with every optional interface a SQL database
// can keep for it: store.Sessions, store.Lexicons, store.VoiceHeader,
// store.VoiceCounter, store.Pinger and store.Jobs. Each room is a type of its own,
// embedded here.
type Store struct {
	*AccountStore
	*KeyStore
	*VoiceStore
	*SessionStore
	*LexiconStore
	*JobStore
	db *db
}

// All is every interface a Store implements, for a backend that embeds
// Store to check that each is promoted: var _ sqlstore.All = (*Store)(nil).
type All interface {
	store.Store
	store.Sessions
	store.Lexicons
	store.VoiceHeader
	store.VoiceCounter
	store.Pinger
	store.Jobs
}

var _ All = (*Store)(nil)

// New returns the store on conn, a database the backend has opened and
// migrated, in the dialect d; now is its clock (nil: time.Now), asked
// at every use, so that a backend may replace it. Close closes conn.
func New(ctx context.Context, conn *sql.DB, d Dialect, now func() time.Time) (*Store, error) {
	if d.IsUnique == nil || d.IsForeignKey == nil || d.InsertOrder == "" {
		return nil, errors.New("sqlstore: the dialect needs IsUnique, IsForeignKey and InsertOrder")
	}
	if now == nil {
		now = time.Now
	}
	b := &db{sql: conn, d: &d, now: now}
	keys := &KeyStore{db: b}
	if d.Prepare {
		var err error
		if keys.verify, err = conn.PrepareContext(ctx, d.rebind(verifyQuery)); err != nil {
			return nil, err
		}
	}
	return &Store{
		AccountStore: &AccountStore{db: b},
		KeyStore:     keys,
		VoiceStore:   &VoiceStore{db: b},
		SessionStore: &SessionStore{db: b},
		LexiconStore: &LexiconStore{db: b},
		JobStore:     &JobStore{db: b},
		db:           b,
	}, nil
}

// Close closes the database.
func (s *Store) Close() error {
	var err error
	if s.verify != nil {
		err = s.verify.Close()
	}
	return errors.Join(err, s.db.sql.Close())
}

// Ping reports whether the database answers; a server's /readyz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.db.sql.PingContext(ctx) }

// db is what every room shares: the database, its dialect and the clock.
type db struct {
	sql *sql.DB
	d   *Dialect
	now func() time.Time
}

// stamp returns the current time as the database keeps it.
func (b *db) stamp() time.Time { return b.now().Truncate(b.d.Resolution) }

// q runs queries on the database, outside a transaction.
func (b *db) q() q { return q{b.sql, b.d} }

// inTx runs f in a transaction and commits it. The store's own errors
// come back as f gave them, others as errors of op.
func (b *db) inTx(ctx context.Context, op string, f func(tx q) error) error {
	tx, err := b.sql.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		if err = f(q{tx, b.d}); err == nil {
			err = tx.Commit()
		}
	}
	if err == nil || isStoreError(err) {
		return err
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// isStoreError reports an error a transaction returns as it is.
func isStoreError(err error) bool {
	for _, e := range []error{store.ErrNotFound, store.ErrLimit, store.ErrAmbiguous, store.ErrAccountExists, store.ErrVoiceExists, store.ErrLexiconExists} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// runner is a *sql.DB or a *sql.Tx.
type runner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// q runs queries written with ? placeholders, in the dialect's syntax.
type q struct {
	r runner
	d *Dialect
}

func (q q) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.r.ExecContext(ctx, q.d.rebind(query), args...)
}

func (q q) row(ctx context.Context, query string, args ...any) *sql.Row {
	return q.r.QueryRowContext(ctx, q.d.rebind(query), args...)
}

func (q q) rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.r.QueryContext(ctx, q.d.rebind(query), args...)
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

// timeDest scans a time column into t, as either dialect keeps it:
// integer milliseconds (0 for none), a time, or NULL for none.
type timeDest struct{ t *time.Time }

func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case int64:
		*d.t = time.Time{}
		if v != 0 {
			*d.t = time.UnixMilli(v)
		}
	case time.Time:
		*d.t = v
	default:
		return fmt.Errorf("store: a time column holds %T", src)
	}
	return nil
}

// lockAccount returns ErrNotFound unless account exists. Where the
// database locks rows it locks the account's row until tx ends, so that
// creations for one account count and insert one after the other.
func lockAccount(ctx context.Context, tx q, account string) error {
	var one int
	err := tx.row(ctx, "SELECT 1 FROM accounts WHERE name = ?"+tx.d.lock(forNoKeyUpdate), account).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	return err
}

// below returns whether the count query gives less than max (no limit
// when max <= 0). Run after lockAccount: with row locks, in READ
// COMMITTED, its statement sees every creation committed before the
// lock was granted; without, the transaction holds the write lock.
func below(ctx context.Context, tx q, max int, count string, args ...any) (bool, error) {
	if max <= 0 {
		return true, nil
	}
	var n int64
	if err := tx.row(ctx, count, args...).Scan(&n); err != nil {
		return false, err
	}
	return n < int64(max), nil
}
