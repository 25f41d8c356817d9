package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/storetest"
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

func TestStore(t *testing.T) {
	var paths sync.Map // store → its file
	storetest.Suite{
		Open: func(t *testing.T) store.Store {
			s, path := openTemp(t)
			paths.Store(s, path)
			return s
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			path, _ := paths.Load(s)
			s.Close()
			s2, err := Open(context.Background(), path.(string))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s2.Close() })
			paths.Store(s2, path)
			return s2
		},
		Persisted: func(t *testing.T, s store.Store) []byte {
			path, _ := paths.Load(s)
			var all []byte
			for _, f := range []string{path.(string), path.(string) + "-wal"} {
				b, _ := os.ReadFile(f)
				all = append(all, b...)
			}
			return all
		},
		SetNow: func(s store.Store, now func() time.Time) { s.(*Store).now = now },
	}.Run(t)
}

// TestFilesOwnerOnly: the database holds key and password hashes, so its
// file and SQLite's -wal and -shm beside it are readable by their owner
// only (0600, whatever the umask lets through); a file an earlier
// version left readable by others is made so too.
func TestFilesOwnerOnly(t *testing.T) {
	check := func(t *testing.T, path string) {
		t.Helper()
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.CreateAccount(context.Background(), "alice"); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s: mode %o, want 600", filepath.Base(p), perm)
			}
		}
	}
	t.Run("new", func(t *testing.T) { check(t, filepath.Join(t.TempDir(), FileName)) })
	t.Run("earlier", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), FileName)
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, path)
	})
}

// TestLexiconsMigration upgrades a database of schema version 6, the
// last before lexicons, keeping its keys, voices and sessions.
func TestLexiconsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	saved := migrations
	defer func() { migrations = saved }()
	open := func(t *testing.T) store.Store {
		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	storetest.CheckUpgrade(t, func(t *testing.T) store.Store {
		migrations = saved[:6]
		defer func() { migrations = saved }()
		return open(t)
	}, open)
}
