package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/server/store"
)

var _ store.Lexicons = (*Store)(nil)

// lexiconJoin joins each version (v) with its lexicon (l); lexiconColumns
// are a store.Lexicon's, without the document, in scanLexicon's order.
const (
	lexiconJoin    = " FROM lexicons l JOIN lexicon_versions v ON v.account = l.account AND v.id = l.id"
	lexiconColumns = "l.id, l.account, l.name, v.version, v.lexemes, l.created, v.created"
)

// scanLexicon scans lexiconColumns and then extra.
func scanLexicon(row pgx.Row, extra ...any) (store.Lexicon, error) {
	var l store.Lexicon
	dest := append([]any{&l.ID, &l.Account, &l.Name, &l.Version, &l.Lexemes, &l.Created, &l.VersionCreated}, extra...)
	err := row.Scan(dest...)
	return l, err
}

func collectLexicon(row pgx.CollectableRow) (store.Lexicon, error) { return scanLexicon(row) }

func lexiconNotFound(account, id string) error {
	return fmt.Errorf("%w: lexicon %q of account %q", store.ErrNotFound, id, account)
}

// lexiconTx runs f in a transaction. The store's own errors come back as
// f gave them, others as errors of op.
func (s *Store) lexiconTx(ctx context.Context, op string, f func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, s.pool, f)
	switch {
	case err == nil, errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrLimit), errors.Is(err, store.ErrLexiconExists):
		return err
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// latest locks lexicon id of account until tx ends (concurrent changes
// wait for it) and returns its latest version, without the document, and
// the version's number.
func latest(ctx context.Context, tx pgx.Tx, account, id string) (store.Lexicon, int, error) {
	l := store.Lexicon{ID: id, Account: account}
	// The lock is taken on the lexicon alone: a join would be re-read
	// after waiting with the version it first found.
	err := tx.QueryRow(ctx, "SELECT name, created, latest FROM lexicons WHERE account = $1 AND id = $2 FOR UPDATE",
		account, id).Scan(&l.Name, &l.Created, &l.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Lexicon{}, 0, lexiconNotFound(account, id)
	}
	if err != nil {
		return store.Lexicon{}, 0, err
	}
	var seq int
	err = tx.QueryRow(ctx, "SELECT seq, lexemes, created FROM lexicon_versions WHERE account = $1 AND id = $2 AND version = $3",
		account, id, l.Version).Scan(&seq, &l.Lexemes, &l.VersionCreated)
	return l, seq, err
}

// withinStorage refuses a change that leaves account's lexicon documents
// past q.Bytes (run after lockAccount, it sees every change committed
// before).
func withinStorage(ctx context.Context, tx pgx.Tx, account string, q store.LexiconQuota) error {
	if q.Bytes <= 0 {
		return nil
	}
	var held int64
	if err := tx.QueryRow(ctx, "SELECT coalesce(sum(octet_length(pls)), 0) FROM lexicon_versions WHERE account = $1", account).Scan(&held); err != nil {
		return err
	}
	return q.CheckStorage(account, held)
}

// addVersion stores version seq of l and makes it the latest.
func addVersion(ctx context.Context, tx pgx.Tx, l store.Lexicon, seq int) error {
	if _, err := tx.Exec(ctx, "INSERT INTO lexicon_versions(account, id, version, seq, pls, lexemes, created) VALUES($1, $2, $3, $4, $5, $6, $7)",
		l.Account, l.ID, l.Version, seq, l.PLS, l.Lexemes, l.VersionCreated); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE lexicons SET latest = $1 WHERE account = $2 AND id = $3", l.Version, l.Account, l.ID)
	return err
}

// CreateLexicon implements store.Lexicons.
func (s *Store) CreateLexicon(ctx context.Context, l store.Lexicon, q store.LexiconQuota) (store.Lexicon, error) {
	l, err := l.Prepare()
	if err != nil {
		return store.Lexicon{}, err
	}
	if !storable(l.Account) {
		return store.Lexicon{}, fmt.Errorf("%w: account %q", store.ErrNotFound, l.Account)
	}
	l.Created = s.stamp()
	l.VersionCreated = l.Created
	err = s.lexiconTx(ctx, "create lexicon", func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, l.Account); err != nil {
			return err
		}
		ok, err := below(ctx, tx, q.Lexicons, "SELECT count(*) FROM lexicons WHERE account = $1", l.Account)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: account %q holds %d lexicons", store.ErrLimit, l.Account, q.Lexicons)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO lexicons(account, id, name, created, latest) VALUES($1, $2, $3, $4, $5)
			ON CONFLICT DO NOTHING`, l.Account, l.ID, l.Name, l.Created, l.Version)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q", store.ErrLexiconExists, l.ID)
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
	if !storable(account, id) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var l store.Lexicon
	err := s.lexiconTx(ctx, "add lexicon version", func(tx pgx.Tx) error {
		if q.Bytes > 0 { // the account's row first, as a creation takes it: one change of its storage at a time
			if err := lockAccount(ctx, tx, account); errors.Is(err, store.ErrNotFound) {
				return lexiconNotFound(account, id)
			} else if err != nil {
				return err
			}
		}
		var seq int
		var err error
		if l, seq, err = latest(ctx, tx, account, id); err != nil {
			return err
		}
		l.Version, l.PLS, l.Lexemes, l.VersionCreated = store.NewID(), pls, lexemes, s.stamp()
		if err := addVersion(ctx, tx, l, seq+1); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, "DELETE FROM lexicon_versions WHERE account = $1 AND id = $2 AND seq <= $3",
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
	if !storable(account, id, version) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var pls []byte
	l, err := scanLexicon(s.pool.QueryRow(ctx, "SELECT "+lexiconColumns+", v.pls"+lexiconJoin+
		" WHERE l.account = $1 AND l.id = $2 AND v.version = CASE WHEN $3 = '' THEN l.latest ELSE $3 END",
		account, id, version), &pls)
	if errors.Is(err, pgx.ErrNoRows) {
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

// ListLexicons implements store.Lexicons.
func (s *Store) ListLexicons(ctx context.Context, account string) ([]store.Lexicon, error) {
	if !storable(account) {
		return nil, nil
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+lexiconColumns+lexiconJoin+
		" WHERE l.account = $1 AND v.version = l.latest ORDER BY l.created, l.ordinal", account)
	out, err := pgx.CollectRows(rows, collectLexicon)
	if err != nil {
		return nil, fmt.Errorf("store: lexicons: %w", err)
	}
	return out, nil
}

// LexiconVersions implements store.Lexicons.
func (s *Store) LexiconVersions(ctx context.Context, account, id string) ([]store.Lexicon, error) {
	if !storable(account, id) {
		return nil, lexiconNotFound(account, id)
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+lexiconColumns+lexiconJoin+
		" WHERE l.account = $1 AND l.id = $2 ORDER BY v.seq", account, id)
	out, err := pgx.CollectRows(rows, collectLexicon)
	if err != nil {
		return nil, fmt.Errorf("store: lexicon versions: %w", err)
	}
	if len(out) == 0 {
		return nil, lexiconNotFound(account, id)
	}
	return out, nil
}

// DeleteLexicon implements store.Lexicons.
func (s *Store) DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, error) {
	if !storable(account, id) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var l store.Lexicon
	err := s.lexiconTx(ctx, "delete lexicon", func(tx pgx.Tx) error {
		var err error
		if l, _, err = latest(ctx, tx, account, id); err != nil {
			return err
		}
		// Its versions and its places among the defaults go with it.
		_, err = tx.Exec(ctx, "DELETE FROM lexicons WHERE account = $1 AND id = $2", account, id)
		return err
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// SetDefaultLexicons implements store.Lexicons. It locks the account's
// row, so that settings made at once do not mix.
func (s *Store) SetDefaultLexicons(ctx context.Context, account string, ids []string) error {
	if !storable(account) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	for _, id := range ids {
		if !storable(id) {
			return lexiconNotFound(account, id)
		}
	}
	return s.lexiconTx(ctx, "set default lexicons", func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, account); err != nil {
			return err
		}
		for _, id := range ids {
			var one int
			err := tx.QueryRow(ctx, "SELECT 1 FROM lexicons WHERE account = $1 AND id = $2 FOR KEY SHARE", account, id).Scan(&one)
			if errors.Is(err, pgx.ErrNoRows) {
				return lexiconNotFound(account, id)
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM default_lexicons WHERE account = $1", account); err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.Exec(ctx, "INSERT INTO default_lexicons(account, id, position) VALUES($1, $2, $3) ON CONFLICT DO NOTHING",
				account, id, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// DefaultLexicons implements store.Lexicons.
func (s *Store) DefaultLexicons(ctx context.Context, account string) ([]string, error) {
	if !storable(account) {
		return nil, nil
	}
	rows, _ := s.pool.Query(ctx, "SELECT id FROM default_lexicons WHERE account = $1 ORDER BY position", account)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: default lexicons: %w", err)
	}
	return ids, nil
}
