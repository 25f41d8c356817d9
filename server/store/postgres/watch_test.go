package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/store/storetest"
)

// listeners returns how many connections of the database listen for
// clone changes.
func listeners(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = $1",
		"LISTEN "+voiceChannel).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWatchVoices: a store is told of the clones another store on the
// database creates and deletes — of committed changes only — and, after
// its listening connection is cut, reconnects and says that it may have
// missed some; Close ends the watch and its connection.
func TestWatchVoices(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	a, b := open(t, dsn), open(t, dsn)
	changes := make(chan [2]string, 100)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		b.WatchVoices(ctx, func(account, id string) { changes <- [2]string{account, id} })
	}()
	next := func(want [2]string) {
		t.Helper()
		select {
		case got := <-changes:
			if got != want {
				t.Fatalf("change %q, want %q", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no change; want %q", want)
		}
	}
	next([2]string{"", ""}) // listening: whatever came before is unknown

	if _, err := a.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateVoice(ctx, storetest.Voice("acme", "quick"), 1); err != nil {
		t.Fatal(err)
	}
	next([2]string{"acme", "quick"})
	// Refused by the limit: rolled back, and nothing is sent.
	if _, err := a.CreateVoice(ctx, storetest.Voice("acme", "slow"), 1); err == nil {
		t.Fatal("a clone over the limit was made")
	}
	if _, err := a.DeleteVoice(ctx, "acme", "quick"); err != nil {
		t.Fatal(err)
	}
	next([2]string{"acme", "quick"})

	// The listening connection is cut: b listens again and reports that
	// it may have missed changes.
	if n := listeners(t, a); n != 1 {
		t.Fatalf("%d listening connections, want 1", n)
	}
	var cut int
	if err := a.pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = $1) t",
		"LISTEN "+voiceChannel).Scan(&cut); err != nil || cut != 1 {
		t.Fatalf("cutting the listener: %d, %v", cut, err)
	}
	next([2]string{"", ""})
	if _, err := a.CreateVoice(ctx, storetest.Voice("acme", "again"), 1); err != nil {
		t.Fatal(err)
	}
	next([2]string{"acme", "again"})

	b.Close()
	select {
	case <-returned: // WatchVoices returned before Close did; its caller's goroutine closes returned just after
	case <-time.After(5 * time.Second):
		t.Error("WatchVoices still runs after Close returned")
	}
	// The server ends the backend of a closed connection on its own time.
	if !wait.For(5*time.Second, func() bool { return listeners(t, a) == 0 }) {
		t.Errorf("%d listening connections 5 s after Close", listeners(t, a))
	}
	done := make(chan struct{})
	go func() {
		b.WatchVoices(ctx, func(string, string) { t.Error("a closed store reported a change") })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Error("WatchVoices on a closed store did not return")
	}
}
