package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// Passwords are stored hashed and survive a restart; a new password
// ends the account's sessions; expired and deleted sessions are gone.
func TestPasswordsAndSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateAccount(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
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
	for _, s := range []store.Session{live, old} {
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
	st.Close()

	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.PasswordHash(ctx, "ann")
	if ok, _ := store.CheckPassword(got, "correct horse battery"); err != nil || !ok {
		t.Fatalf("after restart: %q, %v", got, err)
	}
	if ok, _ := store.CheckPassword(got, "wrong horse battery"); ok {
		t.Fatal("a wrong password matched")
	}
	if _, err := st.Session(ctx, live.TokenHash); err != nil {
		t.Fatalf("the session did not survive a restart: %v", err)
	}
	// A new password ends the sessions.
	if err := st.SetPassword(ctx, "ann", hash); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session(ctx, live.TokenHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session after a password change: %v", err)
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

func TestPasswordHashFormat(t *testing.T) {
	a, _ := store.HashPassword("same password")
	b, _ := store.HashPassword("same password")
	if a == b {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "$argon2id$v=19$m=0,t=2,p=1$AAAA$AAAA", "$bcrypt$x", "$argon2id$v=19$m=19456,t=2,p=1$!!$AAAA"} {
		if ok, err := store.CheckPassword(bad, "same password"); ok || err == nil {
			t.Errorf("CheckPassword(%q) = %v, %v", bad, ok, err)
		}
	}
	p, _ := store.GeneratePassword()
	if len(p) != 20 {
		t.Errorf("generated %q", p)
	}
}
