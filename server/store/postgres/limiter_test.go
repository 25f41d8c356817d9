package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server/store"
)

// TestLimiterRate: two stores on one database count one account's
// requests together, and say when to retry.
func TestLimiterRate(t *testing.T) {
	dsn := pgtest.Start(t)
	a, b := open(t, dsn), open(t, dsn)
	now := time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC) // half-way through a minute
	for _, s := range []*Store{a, b} {
		s.now = func() time.Time { return now }
	}
	ctx := context.Background()
	lim := store.Limits{RequestsPerMinute: 3}
	for i, s := range []*Store{a, b, a} {
		end, err := s.Begin(ctx, "acme", lim)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		end()
	}
	_, err := b.Begin(ctx, "acme", lim)
	var le *store.LimitError
	if !errors.As(err, &le) || le.Concurrent || le.RetryAfter < time.Second || le.RetryAfter > 90*time.Second {
		t.Fatalf("fourth request in the minute: %v", err)
	}
	if end, err := b.Begin(ctx, "other", lim); err != nil {
		t.Fatalf("another account: %v", err)
	} else {
		end()
	}
	// Once the retry time has passed, there is room again.
	now = now.Add(le.RetryAfter + time.Second)
	if end, err := a.Begin(ctx, "acme", lim); err != nil {
		t.Fatalf("after %v: %v", le.RetryAfter, err)
	} else {
		end()
	}
}

// TestLimiterLeases: a running request holds its slot on every store; its
// end frees it, and a lease its server stopped renewing expires.
func TestLimiterLeases(t *testing.T) {
	dsn := pgtest.Start(t)
	a, b := open(t, dsn), open(t, dsn)
	ctx := context.Background()
	lim := store.Limits{Concurrent: 1}
	end, err := a.Begin(ctx, "acme", lim)
	if err != nil {
		t.Fatal(err)
	}
	var le *store.LimitError
	if _, err := b.Begin(ctx, "acme", lim); !errors.As(err, &le) || !le.Concurrent {
		t.Fatalf("second concurrent request: %v", err)
	}
	end()
	end() // a second call does nothing
	end2, err := b.Begin(ctx, "acme", lim)
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	// b's server dies without ending it: past leaseTTL the slot is free.
	later := time.Now().Add(leaseTTL + time.Second)
	a.now = func() time.Time { return later }
	end3, err := a.Begin(ctx, "acme", lim)
	if err != nil {
		t.Fatalf("after the lease expired: %v", err)
	}
	end3()
	end2()
}
