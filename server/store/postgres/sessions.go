package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/server/store"
)

var _ store.Sessions = (*Store)(nil)

// SetPassword implements store.Sessions.
func (s *Store) SetPassword(ctx context.Context, account, hash string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, account); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO passwords(account, hash, updated) VALUES($1, $2, $3)
			ON CONFLICT (account) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`, account, hash, s.stamp()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM sessions WHERE account = $1", account)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	return nil
}

// PasswordHash implements store.Sessions.
func (s *Store) PasswordHash(ctx context.Context, account string) (string, error) {
	var hash string
	err := s.pool.QueryRow(ctx, "SELECT hash FROM passwords WHERE account = $1", account).Scan(&hash)
	if errors.Is(err, pgx.ErrNoRows) {
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
	if _, err := s.pool.Exec(ctx, "DELETE FROM sessions WHERE expires <= $1", s.stamp()); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	_, err := s.pool.Exec(ctx, "INSERT INTO sessions(token_hash, account, created, expires) VALUES($1, $2, $3, $4)",
		ss.TokenHash, ss.Account, ss.Created, ss.Expires)
	if isForeignKey(err) {
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
	err := s.pool.QueryRow(ctx, "SELECT account, created, expires FROM sessions WHERE token_hash = $1 AND expires > $2",
		tokenHash, s.stamp()).Scan(&ss.Account, &ss.Created, &ss.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, fmt.Errorf("%w: session", store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("store: session: %w", err)
	}
	return ss, nil
}

// DeleteSession implements store.Sessions.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.pool.Exec(ctx, "DELETE FROM sessions WHERE token_hash = $1", tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// Ping reports whether the database answers; a server's /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}
