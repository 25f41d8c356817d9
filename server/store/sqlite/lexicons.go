package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// lexiconJoin joins each version (v) with its lexicon (l); lexiconColumns
// are a store.Lexicon's, without the document, in scanLexicon's order.
const (
	lexiconJoin    = " FROM lexicons l JOIN lexicon_versions v ON v.account = l.account AND v.id = l.id"
	lexiconColumns = "l.id, l.account, l.name, v.version, v.lexemes, l.created, v.created"
)

// scanLexicon scans lexiconColumns and then extra.
func scanLexicon(sc scanner, extra ...any) (store.Lexicon, error) {
	var l store.Lexicon
	var created, versionCreated int64
	dest := append([]any{&l.ID, &l.Account, &l.Name, &l.Version, &l.Lexemes, &created, &versionCreated}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return store.Lexicon{}, err
	}
	l.Created, l.VersionCreated = fromUnix(created), fromUnix(versionCreated)
	return l, nil
}

func lexiconNotFound(account, id string) error {
	return fmt.Errorf("%w: lexicon %q of account %q", store.ErrNotFound, id, account)
}

// inTx runs f in a transaction (which takes the database's write lock
// at once: SQLite runs them one at a time) and commits it. The store's
// own errors come back as f gave them, others as errors of op.
func (s *Store) inTx(ctx context.Context, op string, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		if err = f(tx); err == nil {
			err = tx.Commit()
		}
	}
	switch {
	case err == nil, errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrLimit), errors.Is(err, store.ErrLexiconExists):
		return err
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// hasAccount returns ErrNotFound unless account exists.
func hasAccount(ctx context.Context, tx *sql.Tx, account string) error {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE name = ?", account).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	return nil
}

// withinStorage refuses a change that leaves account's lexicon documents
// past q.Bytes (the transaction holds the write lock).
func withinStorage(ctx context.Context, tx *sql.Tx, account string, q store.LexiconQuota) error {
	if q.Bytes <= 0 {
		return nil
	}
	var held int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(sum(length(pls)), 0) FROM lexicon_versions WHERE account = ?", account).Scan(&held); err != nil {
		return err
	}
	return q.CheckStorage(account, held)
}

// addVersion stores version seq of l and makes it the latest.
func addVersion(ctx context.Context, tx *sql.Tx, l store.Lexicon, seq int64) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO lexicon_versions(account, id, version, seq, pls, lexemes, created) VALUES(?, ?, ?, ?, ?, ?, ?)",
		l.Account, l.ID, l.Version, seq, l.PLS, l.Lexemes, unix(l.VersionCreated)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE lexicons SET latest = ? WHERE account = ? AND id = ?", l.Version, l.Account, l.ID)
	return err
}

// CreateLexicon implements store.Lexicons.
func (s *Store) CreateLexicon(ctx context.Context, l store.Lexicon, q store.LexiconQuota) (store.Lexicon, error) {
	l, err := l.Prepare()
	if err != nil {
		return store.Lexicon{}, err
	}
	l.Created = s.now().Truncate(time.Millisecond)
	l.VersionCreated = l.Created
	err = s.inTx(ctx, "create lexicon", func(tx *sql.Tx) error {
		if err := hasAccount(ctx, tx, l.Account); err != nil {
			return err
		}
		if max := q.Lexicons; max > 0 {
			// The transaction holds the write lock: no creation can come
			// between the count and the insert.
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM lexicons WHERE account = ?", l.Account).Scan(&n); err != nil {
				return err
			}
			if n >= max {
				return fmt.Errorf("%w: account %q holds %d lexicons", store.ErrLimit, l.Account, max)
			}
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO lexicons(account, id, name, created, latest) VALUES(?, ?, ?, ?, ?)",
			l.Account, l.ID, l.Name, unix(l.Created), l.Version)
		if isConstraint(err) {
			return fmt.Errorf("%w: %q", store.ErrLexiconExists, l.ID)
		}
		if err != nil {
			return err
		}
		if err := addVersion(ctx, tx, l, 1); err != nil {
			return err
		}
		return withinStorage(ctx, tx, l.Account, q)
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// AddLexiconVersion implements store.Lexicons.
func (s *Store) AddLexiconVersion(ctx context.Context, account, id string, pls []byte, lexemes int, q store.LexiconQuota) (store.Lexicon, error) {
	if err := store.CheckLexiconVersion(pls, lexemes); err != nil {
		return store.Lexicon{}, err
	}
	var l store.Lexicon
	err := s.inTx(ctx, "add lexicon version", func(tx *sql.Tx) error {
		var seq int64
		var err error
		l, err = scanLexicon(tx.QueryRowContext(ctx, "SELECT "+lexiconColumns+", v.seq"+lexiconJoin+
			" WHERE l.account = ? AND l.id = ? AND v.version = l.latest", account, id), &seq)
		if errors.Is(err, sql.ErrNoRows) {
			return lexiconNotFound(account, id)
		}
		if err != nil {
			return err
		}
		l.Version, l.PLS, l.Lexemes = store.NewID(), pls, lexemes
		l.VersionCreated = s.now().Truncate(time.Millisecond)
		if err := addVersion(ctx, tx, l, seq+1); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, "DELETE FROM lexicon_versions WHERE account = ? AND id = ? AND seq <= ?",
			account, id, seq+1-store.LexiconVersionsKept); err != nil {
			return err
		}
		return withinStorage(ctx, tx, account, q)
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// Lexicon implements store.Lexicons.
func (s *Store) Lexicon(ctx context.Context, account, id, version string) (store.Lexicon, error) {
	var pls []byte
	l, err := scanLexicon(s.db.QueryRowContext(ctx, "SELECT "+lexiconColumns+", v.pls"+lexiconJoin+
		" WHERE l.account = ? AND l.id = ? AND v.version = CASE WHEN ? = '' THEN l.latest ELSE ? END",
		account, id, version, version), &pls)
	if errors.Is(err, sql.ErrNoRows) {
		if version != "" {
			return store.Lexicon{}, fmt.Errorf("%w: version %q of lexicon %q of account %q", store.ErrNotFound, version, id, account)
		}
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	if err != nil {
		return store.Lexicon{}, fmt.Errorf("store: lexicon: %w", err)
	}
	l.PLS = pls
	return l, nil
}

// lexicons runs a query of lexiconColumns.
func (s *Store) lexicons(ctx context.Context, query string, args ...any) ([]store.Lexicon, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+lexiconColumns+lexiconJoin+query, args...)
	out, err := collect(rows, err, func(sc scanner) (store.Lexicon, error) { return scanLexicon(sc) })
	if err != nil {
		return nil, fmt.Errorf("store: lexicons: %w", err)
	}
	return out, nil
}

// ListLexicons implements store.Lexicons.
func (s *Store) ListLexicons(ctx context.Context, account string) ([]store.Lexicon, error) {
	return s.lexicons(ctx, " WHERE l.account = ? AND v.version = l.latest ORDER BY l.created, l.rowid", account)
}

// LexiconVersions implements store.Lexicons.
func (s *Store) LexiconVersions(ctx context.Context, account, id string) ([]store.Lexicon, error) {
	out, err := s.lexicons(ctx, " WHERE l.account = ? AND l.id = ? ORDER BY v.seq", account, id)
	if err == nil && len(out) == 0 {
		return nil, lexiconNotFound(account, id)
	}
	return out, err
}

// DeleteLexicon implements store.Lexicons.
func (s *Store) DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, error) {
	var l store.Lexicon
	err := s.inTx(ctx, "delete lexicon", func(tx *sql.Tx) error {
		var err error
		l, err = scanLexicon(tx.QueryRowContext(ctx, "SELECT "+lexiconColumns+lexiconJoin+
			" WHERE l.account = ? AND l.id = ? AND v.version = l.latest", account, id))
		if errors.Is(err, sql.ErrNoRows) {
			return lexiconNotFound(account, id)
		}
		if err != nil {
			return err
		}
		// Its versions and its places among the defaults go with it.
		_, err = tx.ExecContext(ctx, "DELETE FROM lexicons WHERE account = ? AND id = ?", account, id)
		return err
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// SetDefaultLexicons implements store.Lexicons.
func (s *Store) SetDefaultLexicons(ctx context.Context, account string, ids []string) error {
	return s.inTx(ctx, "set default lexicons", func(tx *sql.Tx) error {
		if err := hasAccount(ctx, tx, account); err != nil {
			return err
		}
		for _, id := range ids {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM lexicons WHERE account = ? AND id = ?", account, id).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return lexiconNotFound(account, id)
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM default_lexicons WHERE account = ?", account); err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, "INSERT INTO default_lexicons(account, id, position) VALUES(?, ?, ?) ON CONFLICT DO NOTHING",
				account, id, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// DefaultLexicons implements store.Lexicons.
func (s *Store) DefaultLexicons(ctx context.Context, account string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM default_lexicons WHERE account = ? ORDER BY position", account)
	ids, err := collect(rows, err, func(sc scanner) (id string, err error) {
		err = sc.Scan(&id)
		return id, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: default lexicons: %w", err)
	}
	return ids, nil
}
