package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

func testAccountsAndKeys(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
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
	if a, err := s.Account(ctx, "alice"); err != nil || a.Name != "alice" || a.Created.IsZero() {
		t.Errorf("Account(alice) = %+v, %v", a, err)
	}
	if _, err := s.Account(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Account(nobody) = %v, want store.ErrNotFound", err)
	}
	accounts(t, s, "bob")
	if list, err := s.Accounts(ctx); err != nil || len(list) != 2 || list[0].Name != "alice" || list[1].Name != "bob" {
		t.Errorf("Accounts = %+v, %v", list, err)
	}
	if _, _, err := s.CreateKey(ctx, store.NewKey{Account: "nobody", Name: "", Scope: store.ScopeAdmin}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("key for missing account: %v", err)
	}
	k, plain := newKey(t, s, store.NewKey{Account: "alice", Name: "laptop", Scope: store.ScopeAdmin})
	if !store.WellFormed(plain) || k.Prefix != store.DisplayPrefix(plain) || k.Created.IsZero() || !k.LastUsed.IsZero() || !k.Revoked.IsZero() {
		t.Errorf("CreateKey = %+v, %q", k, plain)
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

// A key's scope is kept and returned by Keys and VerifyKey; an unknown
// scope is refused.
func testScopes(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "a")
	_, admin := newKey(t, s, store.NewKey{Account: "a", Name: "admin", Scope: store.ScopeAdmin})
	_, speech := newKey(t, s, store.NewKey{Account: "a", Name: "speech", Scope: store.ScopeSpeech})
	for plain, want := range map[string]store.Scope{admin: store.ScopeAdmin, speech: store.ScopeSpeech} {
		if k, err := s.VerifyKey(ctx, plain); err != nil || k.Scope != want {
			t.Errorf("VerifyKey = %+v, %v; want scope %s", k, err, want)
		}
	}
	if _, _, err := s.CreateKey(ctx, store.NewKey{Account: "a", Scope: "root"}); err == nil {
		t.Error("a key of scope root was made")
	}
	keys, err := s.Keys(ctx, "a")
	if err != nil || len(keys) != 2 {
		t.Fatalf("Keys = %+v, %v", keys, err)
	}
	for _, k := range keys {
		if string(k.Scope) != k.Name {
			t.Errorf("key %s has scope %s", k.Name, k.Scope)
		}
	}
}

// RevokeKey finds a key by any prefix of sk_ and 4 characters or more
// (the whole key too), takes no pattern characters, and revoking twice
// keeps the first time. Keys lists newest first.
func testRevokeKey(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "a", "b")
	var plains []string
	for range 3 {
		_, plain := newKey(t, s, store.NewKey{Account: "a", Scope: store.ScopeAdmin})
		plains = append(plains, plain)
	}
	_, other := newKey(t, s, store.NewKey{Account: "b", Scope: store.ScopeAdmin})
	keys, err := s.Keys(ctx, "")
	if err != nil || len(keys) != 4 {
		t.Fatalf("Keys(\"\") = %d keys, %v", len(keys), err)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i].Created.After(keys[i-1].Created) {
			t.Fatalf("Keys not newest first: %v before %v", keys[i-1].Created, keys[i].Created)
		}
	}
	if keys, err := s.Keys(ctx, "b"); err != nil || len(keys) != 1 || keys[0].Prefix != store.DisplayPrefix(other) {
		t.Errorf("Keys(b) = %+v, %v", keys, err)
	}
	if _, err := s.RevokeKey(ctx, "a", plains[1][:6]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey(%q), shorter than sk_ and 4: %v", plains[1][:6], err)
	}
	plain := plains[0]
	first, err := s.RevokeKey(ctx, "a", plain) // the whole key
	if err != nil || first.Prefix != store.DisplayPrefix(plain) || first.Revoked.IsZero() {
		t.Fatalf("RevokeKey(whole key) = %+v, %v", first, err)
	}
	again, err := s.RevokeKey(ctx, "", plain[:7])
	if err != nil || !again.Revoked.Equal(first.Revoked) {
		t.Errorf("second revoke = %+v, %v; want revoked at %v", again, err, first.Revoked)
	}
	if _, err := s.RevokeKey(ctx, "a", "sk_????"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey(sk_????) = %v, want store.ErrNotFound", err)
	}
	if _, err := s.RevokeKey(ctx, "a", "sk_%%%%"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey(sk_%%%%%%%%) = %v, want store.ErrNotFound", err)
	}
	if k, err := s.VerifyKey(ctx, other); err != nil || !k.Revoked.IsZero() {
		t.Errorf("b's key after a's revocations: %+v, %v", k, err)
	}
}

// The key limit counts an account's live keys: revoked keys and other
// accounts' keys leave room.
func testKeyLimit(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "a", "b")
	nk := store.NewKey{Account: "a", Scope: store.ScopeSpeech, Max: 2}
	first, _ := newKey(t, s, nk)
	newKey(t, s, nk)
	if _, _, err := s.CreateKey(ctx, nk); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("third key with a limit of 2: %v", err)
	}
	newKey(t, s, store.NewKey{Account: "b", Scope: store.ScopeSpeech, Max: 2})
	newKey(t, s, store.NewKey{Account: "a", Scope: store.ScopeSpeech}) // no limit
	if _, err := s.RevokeKey(ctx, "a", first.Prefix); err != nil {
		t.Fatal(err)
	}
	nk.Max = 3
	newKey(t, s, nk)
	if _, _, err := s.CreateKey(ctx, nk); !errors.Is(err, store.ErrLimit) {
		t.Errorf("fourth live key with a limit of 3: %v", err)
	}
	if keys, err := s.Keys(ctx, "a"); err != nil || len(keys) != 4 {
		t.Errorf("Keys(a) = %d keys, %v; want 4", len(keys), err)
	}
}

// Concurrent creations of keys, and of voices, cannot pass the limit.
func testConcurrentLimits(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "a")
	CheckLimit(t, 40, 5, func(int) error {
		_, _, err := s.CreateKey(ctx, store.NewKey{Account: "a", Scope: store.ScopeSpeech, Max: 5})
		return err
	}, func() (int, error) { keys, err := s.Keys(ctx, "a"); return len(keys), err })
	CheckLimit(t, 40, 5, func(i int) error {
		_, err := s.CreateVoice(ctx, Voice("a", fmt.Sprintf("v%02d", i)), 5)
		return err
	}, func() (int, error) { voices, err := s.Voices(ctx, "a"); return len(voices), err })
}

// Verifying one key from many goroutines, with a clock that makes every
// call record the use when Suite.SetNow is given.
func testConcurrentVerify(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "a")
	_, plain := newKey(t, s, store.NewKey{Account: "a", Name: "", Scope: store.ScopeAdmin})
	if su.SetNow != nil {
		var clock sync.Mutex
		now := time.Now()
		su.SetNow(s, func() time.Time { clock.Lock(); defer clock.Unlock(); now = now.Add(time.Minute); return now })
	}
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

func testRestartKeepsKeysAndNoPlaintext(t *testing.T, su Suite) {
	if su.Reopen == nil {
		t.Skip("no Suite.Reopen")
	}
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "local")
	_, plain := newKey(t, s, store.NewKey{Account: "local", Name: "", Scope: store.ScopeAdmin})
	s = su.Reopen(t, s)
	if _, err := s.VerifyKey(ctx, plain); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if su.Persisted == nil {
		return
	}
	b := su.Persisted(t, s)
	if len(b) == 0 {
		t.Fatal("Persisted returned nothing")
	}
	if bytes.Contains(b, []byte(plain)) || bytes.Contains(b, []byte(plain[11:])) {
		t.Fatal("the store holds the plaintext key")
	}
}
