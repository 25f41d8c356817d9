package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/server/store"
)

// SessionStore keeps accounts' passwords and their sign-in sessions.
type SessionStore struct{ db *db }

var _ store.Sessions = (*SessionStore)(nil)

// CreateAccountWithPassword implements store.Sessions.
func (s *SessionStore) CreateAccountWithPassword(ctx context.Context, name, hash string) (store.Account, error) {
	if err := store.ValidateAccountName(name); err != nil {
		return store.Account{}, err
	}
	a := store.Account{Name: name, Created: s.db.stamp()}
	err := s.db.inTx(ctx, "create account", func(tx q) error {
		_, err := tx.exec(ctx, "INSERT INTO accounts(name, created) VALUES(?, ?)", name, tx.d.time(a.Created))
		if tx.d.IsUnique(err) {
			return fmt.Errorf("%w: %q", store.ErrAccountExists, name)
		}
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, "INSERT INTO passwords(account, hash, updated) VALUES(?, ?, ?)", name, hash, tx.d.time(a.Created))
		return err
	})
	if err != nil {
		return store.Account{}, err
	}
	return a, nil
}

// SetPassword implements store.Sessions.
func (s *SessionStore) SetPassword(ctx context.Context, account, hash string) error {
	return s.db.inTx(ctx, "set password", func(tx q) error {
		if err := lockAccount(ctx, tx, account); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO passwords(account, hash, updated) VALUES(?, ?, ?)
			ON CONFLICT (account) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`, account, hash, tx.d.time(s.db.stamp())); err != nil {
			return err
		}
		_, err := tx.exec(ctx, "DELETE FROM sessions WHERE account = ?", account)
		return err
	})
}

// PasswordHash implements store.Sessions.
func (s *SessionStore) PasswordHash(ctx context.Context, account string) (string, error) {
	var hash string
	err := s.db.q().row(ctx, "SELECT hash FROM passwords WHERE account = ?", account).Scan(&hash)
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
func (s *SessionStore) CreateSession(ctx context.Context, ss store.Session) error {
	d := s.db.d
	if _, err := s.db.q().exec(ctx, "DELETE FROM sessions WHERE expires <= ?", d.time(s.db.stamp())); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	_, err := s.db.q().exec(ctx, "INSERT INTO sessions(token_hash, account, created, expires) VALUES(?, ?, ?, ?)",
		ss.TokenHash, ss.Account, d.time(ss.Created), d.time(ss.Expires))
	if d.IsForeignKey(err) {
		return fmt.Errorf("%w: account %q", store.ErrNotFound, ss.Account)
	}
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// Session implements store.Sessions.
func (s *SessionStore) Session(ctx context.Context, tokenHash []byte) (store.Session, error) {
	ss := store.Session{TokenHash: tokenHash}
	err := s.db.q().row(ctx, "SELECT account, created, expires FROM sessions WHERE token_hash = ? AND expires > ?",
		tokenHash, s.db.d.time(s.db.stamp())).Scan(&ss.Account, timeDest{&ss.Created}, timeDest{&ss.Expires})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("%w: session", store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("store: session: %w", err)
	}
	return ss, nil
}

// DeleteSession implements store.Sessions.
func (s *SessionStore) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.db.q().exec(ctx, "DELETE FROM sessions WHERE token_hash = ?", tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}
