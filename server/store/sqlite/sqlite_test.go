package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestGenerateKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		k, prefix, hash, err := store.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if !store.WellFormed(k) || len(k) != store.KeyLength || !strings.HasPrefix(k, prefix) || len(prefix) != 11 {
			t.Fatalf("bad key %q prefix %q", k, prefix)
		}
		other := k[:len(k)-1] + "x"
		if k[len(k)-1] == 'x' {
			other = k[:len(k)-1] + "y"
		}
		if !store.HashEqual(hash, k) || store.HashEqual(hash, other) {
			t.Fatal("hash does not verify")
		}
		if seen[k] {
			t.Fatal("duplicate key")
		}
		seen[k] = true
	}
}

func TestWellFormed(t *testing.T) {
	good, _, _, _ := store.GenerateKey()
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{good, true},
		{"", false},
		{"sk_", false},
		{good[:len(good)-1], false},
		{good + "a", false},
		{"sk-" + good[3:], false},
		{good[:10] + "!" + good[11:], false},
	} {
		if got := store.WellFormed(tc.key); got != tc.want {
			t.Errorf("WellFormed(%q) = %v", tc.key, got)
		}
	}
}

func TestAccountsAndKeys(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateAccount(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccount(ctx, "alice"); !errors.Is(err, store.ErrAccountExists) {
		t.Fatalf("duplicate account: %v", err)
	}
	for _, bad := range []string{"", "Alice", "-x", "a b", strings.Repeat("a", 65)} {
		if _, err := s.CreateAccount(ctx, bad); err == nil {
			t.Errorf("account %q accepted", bad)
		}
	}
	if _, _, err := s.CreateKey(ctx, store.NewKey{Account: "nobody", Name: "", Scope: store.ScopeAdmin}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("key for missing account: %v", err)
	}
	k, plain, err := s.CreateKey(ctx, store.NewKey{Account: "alice", Name: "laptop", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.VerifyKey(ctx, plain)
	if err != nil || got.Account != "alice" || got.Prefix != k.Prefix || got.LastUsed.IsZero() {
		t.Fatalf("verify: %+v %v", got, err)
	}
	for _, bad := range []string{"", "sk_x", plain[:len(plain)-1] + "0", strings.Replace(plain, plain[3:5], "zz", 1)} {
		if bad == plain {
			continue
		}
		if _, err := s.VerifyKey(ctx, bad); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("verify %q: %v", bad, err)
		}
	}
	if _, err := s.RevokeKey(ctx, "bob", k.Prefix); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke by another account: %v", err)
	}
	if _, err := s.RevokeKey(ctx, "", "sk_"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke with short prefix: %v", err)
	}
	if _, err := s.RevokeKey(ctx, "", k.Prefix[:8]); err != nil {
		t.Fatal(err)
	}
	if got, err := s.VerifyKey(ctx, plain); !errors.Is(err, store.ErrRevokedKey) || got.Prefix != k.Prefix {
		t.Fatalf("verify revoked: %v", err)
	}
	keys, err := s.Keys(ctx, "alice")
	if err != nil || len(keys) != 1 || keys[0].Revoked.IsZero() || keys[0].Name != "laptop" {
		t.Fatalf("keys: %+v %v", keys, err)
	}
}

func TestRestartKeepsKeysAndNoPlaintext(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.CreateAccount(ctx, "local")
	_, plain, err := s.CreateKey(ctx, store.NewKey{Account: "local", Name: "", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.VerifyKey(ctx, plain); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(plain)) || bytes.Contains(b, []byte(plain[11:])) {
			t.Fatalf("%s holds the plaintext key", f)
		}
	}
}

func TestConcurrentVerify(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	s.CreateAccount(ctx, "a")
	_, plain, _ := s.CreateKey(ctx, store.NewKey{Account: "a", Name: "", Scope: store.ScopeAdmin})
	var clock sync.Mutex
	now := time.Now()
	s.now = func() time.Time { clock.Lock(); defer clock.Unlock(); now = now.Add(time.Minute); return now }
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if _, err := s.VerifyKey(ctx, plain); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestScopeMigration opens a database of schema version 2, from before
// key scopes, and finds its keys kept, working, and admin keys (they could
// do everything before).
func TestScopeMigration(t *testing.T) {
	ctx := context.Background()
	plain, prefix, hash, err := store.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s := openOld(t, 2, "INSERT INTO accounts(name, created) VALUES('old', 1)",
		fmt.Sprintf("INSERT INTO api_keys(prefix, hash, account, name, created) VALUES('%s', x'%x', 'old', 'ci', 1)", prefix, hash))
	k, err := s.VerifyKey(ctx, plain)
	if err != nil || k.Scope != store.ScopeAdmin || k.Name != "ci" || k.Account != "old" {
		t.Errorf("after the migration: %+v, %v; want the admin key ci of old", k, err)
	}
	nk, _, err := s.CreateKey(ctx, store.NewKey{Account: "old", Scope: store.ScopeSpeech})
	if err != nil || nk.Scope != store.ScopeSpeech {
		t.Errorf("new key: %+v, %v", nk, err)
	}
}

// openOld makes a database of the first version migrations, as an older
// voxkit left it, runs the statements in it, and opens it with Open,
// which migrates it. The store is closed when the test ends.
func openOld(t *testing.T, version int, statements ...string) *Store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	qs := append(slices.Clone(migrations[:version]), fmt.Sprintf("PRAGMA user_version = %d", version))
	for _, q := range append(qs, statements...) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
