package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// KeyStore keeps the API keys.
type KeyStore struct {
	db *db
	// verify is VerifyKey's query, prepared once where Dialect.Prepare
	// asks: it runs on every request.
	verify *sql.Stmt
}

// lastUsedEvery is the resolution of store.Key.LastUsed: a key used again
// within this time is not written again, so verification stays a read.
const lastUsedEvery = time.Minute

const (
	keyColumns  = "prefix, account, scope, name, created, last_used, revoked"
	verifyQuery = "SELECT hash, " + keyColumns + " FROM api_keys WHERE prefix = ?"
)

// scanKey scans extra and then keyColumns.
func scanKey(sc scanner, extra ...any) (store.Key, error) {
	var k store.Key
	dest := append(extra, &k.Prefix, &k.Account, &k.Scope, &k.Name, timeDest{&k.Created}, timeDest{&k.LastUsed}, timeDest{&k.Revoked})
	if err := sc.Scan(dest...); err != nil {
		return store.Key{}, err
	}
	return k, nil
}

func scanKeyRow(sc scanner) (store.Key, error) { return scanKey(sc) }

// errCollision is a key's display prefix taken by another.
var errCollision = errors.New("store: key prefix taken")

// CreateKey implements store.Store.
func (s *KeyStore) CreateKey(ctx context.Context, nk store.NewKey) (store.Key, string, error) {
	if !nk.Scope.Valid() {
		return store.Key{}, "", fmt.Errorf("store: create key: unknown scope %q", nk.Scope)
	}
	for range 5 { // a display-prefix collision (47 bits) is retried
		plain, prefix, hash, err := store.GenerateKey()
		if err != nil {
			return store.Key{}, "", err
		}
		k := store.Key{Prefix: prefix, Account: nk.Account, Scope: nk.Scope, Name: nk.Name, Created: s.db.stamp()}
		err = s.db.inTx(ctx, "create key", func(tx q) error {
			if err := lockAccount(ctx, tx, k.Account); err != nil {
				return err
			}
			ok, err := below(ctx, tx, nk.Max, "SELECT count(*) FROM api_keys WHERE account = ? AND "+s.db.d.none("revoked"), k.Account)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: account %q holds %d keys", store.ErrLimit, k.Account, nk.Max)
			}
			_, err = tx.exec(ctx, "INSERT INTO api_keys(prefix, hash, account, scope, name, created) VALUES(?, ?, ?, ?, ?, ?)",
				prefix, hash, k.Account, string(k.Scope), k.Name, tx.d.time(k.Created))
			if tx.d.IsUnique(err) {
				return errCollision
			}
			return err
		})
		if errors.Is(err, errCollision) {
			continue
		}
		if err != nil {
			return store.Key{}, "", err
		}
		return k, plain, nil
	}
	return store.Key{}, "", errors.New("store: create key: prefix collisions")
}

// Keys implements store.Store.
func (s *KeyStore) Keys(ctx context.Context, account string) ([]store.Key, error) {
	rows, err := s.db.q().rows(ctx, "SELECT "+keyColumns+
		" FROM api_keys WHERE ? = '' OR account = ? ORDER BY created DESC, prefix"+s.db.d.Collate, account, account)
	out, err := collect(rows, err, scanKeyRow)
	if err != nil {
		return nil, fmt.Errorf("store: keys: %w", err)
	}
	return out, nil
}

// RevokeKey implements store.Store.
func (s *KeyStore) RevokeKey(ctx context.Context, account, prefix string) (store.Key, error) {
	if len(prefix) < len(store.KeyPrefix)+4 || !strings.HasPrefix(prefix, store.KeyPrefix) || !s.db.d.storable(account, prefix) {
		return store.Key{}, fmt.Errorf("%w: key prefix %q (give sk_ and at least 4 more characters)", store.ErrNotFound, prefix)
	}
	prefix = store.DisplayPrefix(prefix) // a whole key may be given
	var k store.Key
	err := s.db.inTx(ctx, "revoke", func(tx q) error {
		rows, err := tx.rows(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE substr(prefix, 1, ?) = ? AND (? = '' OR account = ?)"+
			tx.d.lock(forUpdate), len(prefix), prefix, account, account)
		found, err := collect(rows, err, scanKeyRow)
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
		k.Revoked = s.db.stamp()
		_, err = tx.exec(ctx, "UPDATE api_keys SET revoked = ? WHERE prefix = ?", tx.d.time(k.Revoked), k.Prefix)
		return err
	})
	if err != nil {
		return store.Key{}, err
	}
	return k, nil
}

// VerifyKey implements store.Store.
func (s *KeyStore) VerifyKey(ctx context.Context, key string) (store.Key, error) {
	if !store.WellFormed(key) {
		return store.Key{}, store.ErrInvalidKey
	}
	var row *sql.Row
	if s.verify != nil {
		row = s.verify.QueryRowContext(ctx, store.DisplayPrefix(key))
	} else {
		row = s.db.q().row(ctx, verifyQuery, store.DisplayPrefix(key))
	}
	var hash []byte
	k, err := scanKey(row, &hash)
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
	if !k.Revoked.IsZero() {
		return k, store.ErrRevokedKey
	}
	if now := s.db.now(); now.Sub(k.LastUsed) >= lastUsedEvery {
		k.LastUsed = now.Truncate(s.db.d.Resolution)
		if _, err := s.db.q().exec(ctx, "UPDATE api_keys SET last_used = ? WHERE prefix = ?", s.db.d.time(k.LastUsed), k.Prefix); err != nil {
			return store.Key{}, fmt.Errorf("store: verify key: %w", err)
		}
	}
	return k, nil
}
