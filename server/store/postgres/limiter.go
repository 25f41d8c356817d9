package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/server/store"
)

var _ store.Limiter = (*Store)(nil)

// leaseTTL is how long a running request's lease outlives its last
// renewal. A server renews its leases every leaseTTL/3, so the leases of
// one that died free themselves within leaseTTL.
const leaseTTL = 30 * time.Second

// limitLock is the advisory lock space of the per-account limit counts.
const limitLock = 0x6c696d69 // "limi", an int4 as the two-key form needs

// Begin implements store.Limiter, for every server sharing the database:
//
//   - the rate is counted in one-minute windows per account; a request is
//     admitted while the count of the current window plus the previous
//     window's, weighted by how much of it still lies within the last
//     minute, stays within RequestsPerMinute (a sliding-window estimate);
//   - concurrency by leases, a row per running request, renewed while it
//     runs and ended by the returned function (or by expiry when its
//     server stops).
//
// Both are read and written under an advisory lock on the account, so
// the servers' concurrent requests see each other.
func (s *Store) Begin(ctx context.Context, account string, l store.Limits) (func(), error) {
	if l.RequestsPerMinute <= 0 && l.Concurrent <= 0 {
		return func() {}, nil
	}
	var lease int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", limitLock, account); err != nil {
			return err
		}
		now := s.stamp()
		if l.Concurrent > 0 {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM leases WHERE account = $1 AND expires > $2", account, now).Scan(&n); err != nil {
				return err
			}
			if n >= l.Concurrent {
				return &store.LimitError{Concurrent: true, RetryAfter: time.Second}
			}
		}
		if l.RequestsPerMinute > 0 {
			if err := countRequest(ctx, tx, account, l.RequestsPerMinute, now); err != nil {
				return err
			}
		}
		if l.Concurrent > 0 {
			if _, err := tx.Exec(ctx, "DELETE FROM leases WHERE account = $1 AND expires <= $2", account, now); err != nil {
				return err
			}
			return tx.QueryRow(ctx, "INSERT INTO leases(account, expires) VALUES($1, $2) RETURNING id",
				account, now.Add(leaseTTL)).Scan(&lease)
		}
		return nil
	})
	var le *store.LimitError
	switch {
	case errors.As(err, &le):
		return nil, le
	case err != nil:
		return nil, fmt.Errorf("store: limits: %w", err)
	case lease == 0:
		return func() {}, nil
	}
	return s.holdLease(lease), nil
}

// countRequest admits one more request of account in the minute's window,
// or returns a *store.LimitError saying when one would be.
func countRequest(ctx context.Context, tx pgx.Tx, account string, perMinute int, now time.Time) error {
	window := now.Truncate(time.Minute)
	var cur, prev int
	err := tx.QueryRow(ctx, `SELECT
		coalesce(sum(n) FILTER (WHERE window_start = $2), 0),
		coalesce(sum(n) FILTER (WHERE window_start = $3), 0)
		FROM rate_windows WHERE account = $1 AND window_start >= $3`,
		account, window, window.Add(-time.Minute)).Scan(&cur, &prev)
	if err != nil {
		return err
	}
	into := float64(now.Sub(window)) / float64(time.Minute) // of the current window, 0 to 1
	limit := float64(perMinute)
	if float64(prev)*(1-into)+float64(cur)+1 > limit {
		return &store.LimitError{RetryAfter: rateRetry(cur, prev, into, limit)}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO rate_windows(account, window_start, n) VALUES($1, $2, 1)
		ON CONFLICT (account, window_start) DO UPDATE SET n = rate_windows.n + 1`, account, window); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "DELETE FROM rate_windows WHERE account = $1 AND window_start < $2", account, window.Add(-time.Minute))
	return err
}

// rateRetry returns how long until the sliding estimate, with cur and
// prev requests in the current and previous windows and into of the
// current window gone, has room for one more request.
func rateRetry(cur, prev int, into, limit float64) time.Duration {
	var at float64 // minutes from the current window's start
	switch {
	case float64(cur)+1 <= limit && prev > 0:
		// The previous window's weight falls until prev·(1−at)+cur+1 = limit.
		at = 1 - (limit-1-float64(cur))/float64(prev)
	default:
		// Only in the next window, as the current one becomes the previous.
		at = 1 + math.Max(0, 1-(limit-1)/float64(max(cur, 1)))
	}
	return max(time.Second, time.Duration((at-into)*float64(time.Minute)))
}

// holdLease renews lease until the returned function ends it.
func (s *Store) holdLease(lease int64) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(leaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), leaseTTL/3)
				s.pool.Exec(ctx, "UPDATE leases SET expires = $2 WHERE id = $1", lease, s.stamp().Add(leaseTTL))
				cancel()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-stopped
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s.pool.Exec(ctx, "DELETE FROM leases WHERE id = $1", lease)
		})
	}
}
