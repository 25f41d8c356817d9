package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/server/store"
)

// AccountStore keeps the accounts.
type AccountStore struct{ db *db }

// CreateAccount implements store.Store.
func (s *AccountStore) CreateAccount(ctx context.Context, name string) (store.Account, error) {
	if err := store.ValidateAccountName(name); err != nil {
		return store.Account{}, err
	}
	a := store.Account{Name: name, Created: s.db.stamp()}
	_, err := s.db.q().exec(ctx, "INSERT INTO accounts(name, created) VALUES(?, ?)", name, s.db.d.time(a.Created))
	if s.db.d.IsUnique(err) {
		return store.Account{}, fmt.Errorf("%w: %q", store.ErrAccountExists, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: create account: %w", err)
	}
	return a, nil
}

// Account implements store.Store.
func (s *AccountStore) Account(ctx context.Context, name string) (store.Account, error) {
	if !s.db.d.storable(name) {
		return store.Account{}, fmt.Errorf("%w: account %q", store.ErrNotFound, name)
	}
	a := store.Account{Name: name}
	err := s.db.q().row(ctx, "SELECT created FROM accounts WHERE name = ?", name).Scan(timeDest{&a.Created})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Account{}, fmt.Errorf("%w: account %q", store.ErrNotFound, name)
	}
	if err != nil {
		return store.Account{}, fmt.Errorf("store: account: %w", err)
	}
	return a, nil
}

// Accounts implements store.Store. Names are ordered by their bytes,
// whatever the database's collation.
func (s *AccountStore) Accounts(ctx context.Context) ([]store.Account, error) {
	rows, err := s.db.q().rows(ctx, "SELECT name, created FROM accounts ORDER BY name"+s.db.d.Collate)
	out, err := collect(rows, err, func(sc scanner) (a store.Account, err error) {
		err = sc.Scan(&a.Name, timeDest{&a.Created})
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: accounts: %w", err)
	}
	return out, nil
}
