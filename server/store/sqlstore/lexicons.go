package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/server/store"
)

// LexiconStore keeps accounts' pronunciation lexicons, their versions
// and their default lexicons.
type LexiconStore struct{ db *db }

var _ store.Lexicons = (*LexiconStore)(nil)

// lexiconJoin joins each version (v) with its lexicon (l); lexiconColumns
// are a store.Lexicon's, without the document, in scanLexicon's order.
const (
	lexiconJoin    = " FROM lexicons l JOIN lexicon_versions v ON v.account = l.account AND v.id = l.id"
	lexiconColumns = "l.id, l.account, l.name, v.version, v.lexemes, l.created, v.created"
)

// scanLexicon scans lexiconColumns and then extra.
func scanLexicon(sc scanner, extra ...any) (store.Lexicon, error) {
	var l store.Lexicon
	dest := append([]any{&l.ID, &l.Account, &l.Name, &l.Version, &l.Lexemes, timeDest{&l.Created}, timeDest{&l.VersionCreated}}, extra...)
	err := sc.Scan(dest...)
	return l, err
}

func scanLexiconRow(sc scanner) (store.Lexicon, error) { return scanLexicon(sc) }

func lexiconNotFound(account, id string) error {
	return fmt.Errorf("%w: lexicon %q of account %q", store.ErrNotFound, id, account)
}

// latest locks lexicon id of account until tx ends, where the database
// locks rows (concurrent changes wait for it), and returns its latest
// version, without the document, and the version's number.
func latest(ctx context.Context, tx q, account, id string) (store.Lexicon, int64, error) {
	l := store.Lexicon{ID: id, Account: account}
	// The lock is taken on the lexicon alone: a join would be re-read
	// after waiting with the version it first found.
	err := tx.row(ctx, "SELECT name, created, latest FROM lexicons WHERE account = ? AND id = ?"+tx.d.lock(forUpdate),
		account, id).Scan(&l.Name, timeDest{&l.Created}, &l.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Lexicon{}, 0, lexiconNotFound(account, id)
	}
	if err != nil {
		return store.Lexicon{}, 0, err
	}
	var seq int64
	err = tx.row(ctx, "SELECT seq, lexemes, created FROM lexicon_versions WHERE account = ? AND id = ? AND version = ?",
		account, id, l.Version).Scan(&seq, &l.Lexemes, timeDest{&l.VersionCreated})
	return l, seq, err
}

// withinStorage refuses a change that leaves account's lexicon documents
// past q.Bytes (run after lockAccount, it sees every change committed
// before).
func withinStorage(ctx context.Context, tx q, account string, quota store.LexiconQuota) error {
	if quota.Bytes <= 0 {
		return nil
	}
	var held int64
	if err := tx.row(ctx, "SELECT coalesce(sum(octet_length(pls)), 0) FROM lexicon_versions WHERE account = ?", account).Scan(&held); err != nil {
		return err
	}
	return quota.CheckStorage(account, held)
}

// addVersion stores version seq of l and makes it the latest.
func addVersion(ctx context.Context, tx q, l store.Lexicon, seq int64) error {
	if _, err := tx.exec(ctx, "INSERT INTO lexicon_versions(account, id, version, seq, pls, lexemes, created) VALUES(?, ?, ?, ?, ?, ?, ?)",
		l.Account, l.ID, l.Version, seq, l.PLS, l.Lexemes, tx.d.time(l.VersionCreated)); err != nil {
		return err
	}
	_, err := tx.exec(ctx, "UPDATE lexicons SET latest = ? WHERE account = ? AND id = ?", l.Version, l.Account, l.ID)
	return err
}

// CreateLexicon implements store.Lexicons.
func (s *LexiconStore) CreateLexicon(ctx context.Context, l store.Lexicon, quota store.LexiconQuota) (store.Lexicon, error) {
	l, err := l.Prepare()
	if err != nil {
		return store.Lexicon{}, err
	}
	if !s.db.d.storable(l.Account) {
		return store.Lexicon{}, fmt.Errorf("%w: account %q", store.ErrNotFound, l.Account)
	}
	l.Created = s.db.stamp()
	l.VersionCreated = l.Created
	err = s.db.inTx(ctx, "create lexicon", func(tx q) error {
		if err := lockAccount(ctx, tx, l.Account); err != nil {
			return err
		}
		ok, err := below(ctx, tx, quota.Lexicons, "SELECT count(*) FROM lexicons WHERE account = ?", l.Account)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: account %q holds %d lexicons", store.ErrLimit, l.Account, quota.Lexicons)
		}
		res, err := tx.exec(ctx, `INSERT INTO lexicons(account, id, name, created, latest) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, l.Account, l.ID, l.Name, tx.d.time(l.Created), l.Version)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp(err, fmt.Errorf("%w: %q", store.ErrLexiconExists, l.ID))
		}
		if err := addVersion(ctx, tx, l, 1); err != nil {
			return err
		}
		return withinStorage(ctx, tx, l.Account, quota)
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// cmp returns err, or alt when err is nil.
func cmp(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// AddLexiconVersion implements store.Lexicons.
func (s *LexiconStore) AddLexiconVersion(ctx context.Context, account, id string, pls []byte, lexemes int, quota store.LexiconQuota) (store.Lexicon, error) {
	if err := store.CheckLexiconVersion(pls, lexemes); err != nil {
		return store.Lexicon{}, err
	}
	if !s.db.d.storable(account, id) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var l store.Lexicon
	err := s.db.inTx(ctx, "add lexicon version", func(tx q) error {
		if quota.Bytes > 0 { // the account's row first, as a creation takes it: one change of its storage at a time
			if err := lockAccount(ctx, tx, account); errors.Is(err, store.ErrNotFound) {
				return lexiconNotFound(account, id)
			} else if err != nil {
				return err
			}
		}
		var seq int64
		var err error
		if l, seq, err = latest(ctx, tx, account, id); err != nil {
			return err
		}
		l.Version, l.PLS, l.Lexemes, l.VersionCreated = store.NewID(), pls, lexemes, s.db.stamp()
		if err := addVersion(ctx, tx, l, seq+1); err != nil {
			return err
		}
		if _, err = tx.exec(ctx, "DELETE FROM lexicon_versions WHERE account = ? AND id = ? AND seq <= ?",
			account, id, seq+1-store.LexiconVersionsKept); err != nil {
			return err
		}
		return withinStorage(ctx, tx, account, quota)
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// Lexicon implements store.Lexicons.
func (s *LexiconStore) Lexicon(ctx context.Context, account, id, version string) (store.Lexicon, error) {
	if !s.db.d.storable(account, id, version) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var pls []byte
	l, err := scanLexicon(s.db.q().row(ctx, "SELECT "+lexiconColumns+", v.pls"+lexiconJoin+
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

// ListLexicons implements store.Lexicons.
func (s *LexiconStore) ListLexicons(ctx context.Context, account string) ([]store.Lexicon, error) {
	if !s.db.d.storable(account) {
		return nil, nil
	}
	rows, err := s.db.q().rows(ctx, "SELECT "+lexiconColumns+lexiconJoin+
		" WHERE l.account = ? AND v.version = l.latest ORDER BY l.created, l."+s.db.d.InsertOrder, account)
	out, err := collect(rows, err, scanLexiconRow)
	if err != nil {
		return nil, fmt.Errorf("store: lexicons: %w", err)
	}
	return out, nil
}

// LexiconVersions implements store.Lexicons.
func (s *LexiconStore) LexiconVersions(ctx context.Context, account, id string) ([]store.Lexicon, error) {
	if !s.db.d.storable(account, id) {
		return nil, lexiconNotFound(account, id)
	}
	rows, err := s.db.q().rows(ctx, "SELECT "+lexiconColumns+lexiconJoin+
		" WHERE l.account = ? AND l.id = ? ORDER BY v.seq", account, id)
	out, err := collect(rows, err, scanLexiconRow)
	if err != nil {
		return nil, fmt.Errorf("store: lexicon versions: %w", err)
	}
	if len(out) == 0 {
		return nil, lexiconNotFound(account, id)
	}
	return out, nil
}

// DeleteLexicon implements store.Lexicons.
func (s *LexiconStore) DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, error) {
	if !s.db.d.storable(account, id) {
		return store.Lexicon{}, lexiconNotFound(account, id)
	}
	var l store.Lexicon
	err := s.db.inTx(ctx, "delete lexicon", func(tx q) error {
		var err error
		if l, _, err = latest(ctx, tx, account, id); err != nil {
			return err
		}
		// Its versions and its places among the defaults go with it.
		_, err = tx.exec(ctx, "DELETE FROM lexicons WHERE account = ? AND id = ?", account, id)
		return err
	})
	if err != nil {
		return store.Lexicon{}, err
	}
	return l, nil
}

// SetDefaultLexicons implements store.Lexicons. It locks the account's
// row, so that settings made at once do not mix.
func (s *LexiconStore) SetDefaultLexicons(ctx context.Context, account string, ids []string) error {
	if !s.db.d.storable(account) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, account)
	}
	for _, id := range ids {
		if !s.db.d.storable(id) {
			return lexiconNotFound(account, id)
		}
	}
	return s.db.inTx(ctx, "set default lexicons", func(tx q) error {
		if err := lockAccount(ctx, tx, account); err != nil {
			return err
		}
		for _, id := range ids {
			var one int
			err := tx.row(ctx, "SELECT 1 FROM lexicons WHERE account = ? AND id = ?"+tx.d.lock(forKeyShare), account, id).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return lexiconNotFound(account, id)
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, "DELETE FROM default_lexicons WHERE account = ?", account); err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.exec(ctx, "INSERT INTO default_lexicons(account, id, position) VALUES(?, ?, ?) ON CONFLICT DO NOTHING",
				account, id, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// DefaultLexicons implements store.Lexicons.
func (s *LexiconStore) DefaultLexicons(ctx context.Context, account string) ([]string, error) {
	if !s.db.d.storable(account) {
		return nil, nil
	}
	rows, err := s.db.q().rows(ctx, "SELECT id FROM default_lexicons WHERE account = ? ORDER BY position", account)
	ids, err := collect(rows, err, func(sc scanner) (id string, err error) {
		err = sc.Scan(&id)
		return id, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: default lexicons: %w", err)
	}
	return ids, nil
}
