package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// openAs opens a store of su that implements T, one of the optional
// interfaces (store.Sessions, store.Lexicons), or skips.
func openAs[T any](t *testing.T, su Suite) (store.Store, T) {
	t.Helper()
	opened := su.Open(t)
	x, ok := opened.(T)
	if !ok {
		t.Skipf("the store does not implement %v", reflect.TypeFor[T]())
	}
	return opened, x
}

// testAccountWithPassword: a sign-up's account and password are made
// together or not at all.
func testAccountWithPassword(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, st := openAs[store.Sessions](t, su)
	accounts(t, opened, "taken")
	a, err := st.CreateAccountWithPassword(ctx, "carol", "hash-of-carol")
	if err != nil || a.Name != "carol" || a.Created.IsZero() {
		t.Fatalf("CreateAccountWithPassword: %+v, %v", a, err)
	}
	if h, err := st.PasswordHash(ctx, "carol"); err != nil || h != "hash-of-carol" {
		t.Errorf("password of the new account: %q, %v", h, err)
	}
	if _, err := opened.Account(ctx, "carol"); err != nil {
		t.Errorf("the new account: %v", err)
	}
	// An existing name: refused, and its account keeps no password.
	if _, err := st.CreateAccountWithPassword(ctx, "taken", "hash"); !errors.Is(err, store.ErrAccountExists) {
		t.Errorf("an existing name: %v, want ErrAccountExists", err)
	}
	if _, err := st.PasswordHash(ctx, "taken"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the existing account got a password: %v", err)
	}
	if _, err := st.CreateAccountWithPassword(ctx, "Bad Name!", "hash"); err == nil {
		t.Error("an invalid name was accepted")
	}
	// Interrupted before it runs: nothing is left behind.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.CreateAccountWithPassword(cancelled, "dave", "hash"); err == nil {
		t.Error("a cancelled sign-up succeeded")
	}
	if _, err := opened.Account(ctx, "dave"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a cancelled sign-up left an account: %v", err)
	}
	if _, err := st.CreateAccountWithPassword(ctx, "dave", "hash"); err != nil {
		t.Errorf("the name of a cancelled sign-up cannot be used: %v", err)
	}
}

// testSessions: passwords are stored hashed and survive a restart; a new
// password ends the account's sessions; expired and deleted sessions are
// gone.
func testSessions(t *testing.T, su Suite) {
	ctx := context.Background()
	opened, st := openAs[store.Sessions](t, su)
	accounts(t, opened, "ann", "bob")
	if _, err := st.PasswordHash(ctx, "ann"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no password yet: %v", err)
	}
	if err := st.SetPassword(ctx, "nobody", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("password of no account: %v", err)
	}
	hash, err := store.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetPassword(ctx, "ann", hash); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	live := store.Session{TokenHash: store.HashKey("live"), Account: "ann", Created: now, Expires: now.Add(time.Hour)}
	old := store.Session{TokenHash: store.HashKey("old"), Account: "ann", Created: now.Add(-2 * time.Hour), Expires: now.Add(-time.Hour)}
	bobs := store.Session{TokenHash: store.HashKey("bob's"), Account: "bob", Created: now, Expires: now.Add(time.Hour)}
	for _, s := range []store.Session{live, old, bobs} {
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateSession(ctx, store.Session{TokenHash: store.HashKey("x"), Account: "nobody", Expires: now.Add(time.Hour)}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session of no account: %v", err)
	}
	if got, err := st.Session(ctx, live.TokenHash); err != nil || got.Account != "ann" {
		t.Fatalf("live session: %+v, %v", got, err)
	}
	if _, err := st.Session(ctx, old.TokenHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if su.Reopen != nil {
		st = su.Reopen(t, opened).(store.Sessions)
	}
	got, err := st.PasswordHash(ctx, "ann")
	if ok, _ := store.CheckPassword(got, "correct horse battery"); err != nil || !ok {
		t.Fatalf("after restart: %q, %v", got, err)
	}
	if ok, _ := store.CheckPassword(got, "wrong horse battery"); ok {
		t.Fatal("a wrong password matched")
	}
	if _, err := st.Session(ctx, live.TokenHash); err != nil {
		t.Fatalf("the session did not survive (a restart): %v", err)
	}
	// A new password ends the sessions.
	if err := st.SetPassword(ctx, "ann", hash); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session(ctx, live.TokenHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session after a password change: %v", err)
	}
	if got, err := st.Session(ctx, bobs.TokenHash); err != nil || got.Account != "bob" {
		t.Fatalf("ann's new password ended bob's session: %+v, %v", got, err)
	}
	if err := st.CreateSession(ctx, live); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSession(ctx, live.TokenHash); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session(ctx, live.TokenHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
}
