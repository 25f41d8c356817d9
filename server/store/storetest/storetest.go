// Package storetest is a conformance suite for store.Store
// implementations, in the manner of testing/fstest: an implementation's
// tests call Run (or Suite.Run, to give restart and clock hooks) with a
// function that opens an empty store, and every behaviour the server
// relies on is checked against it — accounts, keys and their scopes,
// revocation, verification, key and clone limits (also under concurrent
// creation), per-account voice clone ids, and that no plaintext key is
// stored; and, for stores with the optional interfaces, passwords and
// sessions (store.Sessions) and lexicons (store.Lexicons: versions,
// defaults, limits and isolation between accounts).
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// Suite describes the store under test. Only Open is required; a test
// that needs a hook left nil is skipped.
type Suite struct {
	// Open returns a new, empty store. It should close the store when t
	// ends (a store is closed at most twice: by a test and by cleanup).
	Open func(t *testing.T) store.Store
	// Reopen closes s and opens the same database again, as a restarted
	// server does.
	Reopen func(t *testing.T, s store.Store) store.Store
	// Persisted returns every byte s keeps (files, or table rows), for
	// the check that no plaintext key is stored.
	Persisted func(t *testing.T, s store.Store) []byte
	// SetNow replaces the clock of s.
	SetNow func(s store.Store, now func() time.Time)
}

// Run runs the suite with only an Open function: the restart, storage
// and clock tests are skipped.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	Suite{Open: open}.Run(t)
}

// Run runs every test of the suite as a subtest of t.
func (s Suite) Run(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, Suite)
	}{
		{"AccountsAndKeys", testAccountsAndKeys},
		{"Scopes", testScopes},
		{"RevokeKey", testRevokeKey},
		{"KeyLimit", testKeyLimit},
		{"ConcurrentLimits", testConcurrentLimits},
		{"ConcurrentVerify", testConcurrentVerify},
		{"RestartKeepsKeysAndNoPlaintext", testRestartKeepsKeysAndNoPlaintext},
		{"Voices", testVoices},
		{"UnstorableLookups", testUnstorableLookups},
		{"VoiceNamespacesAndLimit", testVoiceNamespacesAndLimit},
		{"Sessions", testSessions},
		{"AccountWithPassword", testAccountWithPassword},
		{"Lexicons", testLexicons},
		{"LexiconIsolation", testLexiconIsolation},
		{"LexiconLimit", testLexiconLimit},
		{"LexiconStorage", testLexiconStorage},
		{"ConcurrentLexiconVersions", testConcurrentLexiconVersions},
		{"LexiconVersionsKept", testLexiconVersionsKept},
		{"DefaultLexicons", testDefaultLexicons},
		{"DefaultsWhileDeleting", testDefaultsWhileDeleting},
		{"UnstorableLexiconLookups", testUnstorableLexiconLookups},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, s) })
	}
}

// Voice returns a clone of account with neutral settings.
func Voice(account, id string) store.Voice {
	return store.Voice{ID: id, Account: account, Base: "en-us", Speed: 1, Range: 1, Volume: 1}
}

// SameVoice reports whether a and b are equal, their creation times
// compared as instants (a store may give them another location).
func SameVoice(a, b store.Voice) bool {
	if !a.Created.Equal(b.Created) {
		return false
	}
	if !bytes.Equal(a.Sample, b.Sample) {
		return false
	}
	a.Created, b.Created = time.Time{}, time.Time{}
	a.Sample, b.Sample = nil, nil
	return reflect.DeepEqual(a, b)
}

func accounts(t *testing.T, s store.Store, names ...string) {
	t.Helper()
	for _, a := range names {
		if _, err := s.CreateAccount(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

func newKey(t *testing.T, s store.Store, nk store.NewKey) (store.Key, string) {
	t.Helper()
	k, plain, err := s.CreateKey(context.Background(), nk)
	if err != nil {
		t.Fatalf("CreateKey(%+v): %v", nk, err)
	}
	return k, plain
}

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

// CheckLimit calls create n times from 8 goroutines at once (i is the
// call's number) and fails t unless exactly max calls succeed, the others
// failing with store.ErrLimit, and count then reports max.
func CheckLimit(t *testing.T, n, max int, create func(i int) error, count func() (int, error)) {
	t.Helper()
	var made, next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				err := create(i)
				switch {
				case err == nil:
					made.Add(1)
				case !errors.Is(err, store.ErrLimit):
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	stored, err := count()
	if err != nil || made.Load() != int64(max) || stored != max {
		t.Errorf("%d concurrent creations with a limit of %d: %d made, %d stored (%v)", n, max, made.Load(), stored, err)
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

func testVoices(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "ann", "bob")
	fast := store.Voice{ID: "fast", Account: "ann", Base: "en-us", Name: "Fast Ann", Speed: 2, Pitch: 3, Range: 1.5, Volume: 0.5, Whisper: true}
	got, err := s.CreateVoice(ctx, fast, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Created.IsZero() {
		t.Error("no creation time")
	}
	fast.Created = got.Created
	if !SameVoice(got, fast) {
		t.Errorf("CreateVoice = %+v, want %+v", got, fast)
	}
	neutral := store.Voice{ID: "plain", Account: "bob", Base: "en-gb", Speed: 1, Range: 1, Volume: 1}
	if _, err := s.CreateVoice(ctx, neutral, 0); err != nil {
		t.Fatal(err)
	}
	// A voice cloned from a recording keeps the engine's bytes whole.
	sample := make([]byte, 300000)
	for i := range sample {
		sample[i] = byte(i * 7)
	}
	cloned := store.Voice{ID: "cloned", Account: "bob", Base: "pocket", Name: "From a recording", Speed: 1, Range: 1, Volume: 1, Sample: sample}
	if got, err := s.CreateVoice(ctx, cloned, 0); err != nil {
		t.Fatal(err)
	} else if cloned.Created = got.Created; !SameVoice(got, cloned) {
		t.Error("CreateVoice changed a voice with a sample")
	}
	if got, err := s.Voice(ctx, "bob", "cloned"); err != nil || !SameVoice(got, cloned) {
		t.Errorf("Voice(cloned) = %d bytes of sample, %v; want %d", len(got.Sample), err, len(sample))
	}
	if h, ok := s.(store.VoiceHeader); ok {
		// The list without samples marks the cloned voice, reads none of it.
		heads, err := h.VoiceHeads(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range heads {
			if want := v.ID == "cloned"; (v.Sample != nil) != want || len(v.Sample) != 0 {
				t.Errorf("VoiceHeads: %s has %d bytes of sample (nil: %t), want none and nil=%t", v.ID, len(v.Sample), v.Sample == nil, !want)
			}
		}
		if len(heads) != 2 {
			t.Errorf("VoiceHeads(bob) = %d voices, want 2", len(heads))
		}
	}
	if _, err := s.DeleteVoice(ctx, "bob", "cloned"); err != nil {
		t.Fatal(err)
	}

	// Failed inserts leave nothing behind.
	fails := []struct {
		name string
		v    store.Voice
		want error
	}{
		{"id the account has", store.Voice{ID: "fast", Account: "ann", Base: "x", Speed: 1, Range: 1, Volume: 1}, store.ErrVoiceExists},
		{"unknown account", store.Voice{ID: "ghost", Account: "nobody", Base: "x", Speed: 1, Range: 1, Volume: 1}, store.ErrNotFound},
		{"infinite speed", store.Voice{ID: "v1", Account: "ann", Base: "x", Speed: math.Inf(1), Range: 1, Volume: 1}, nil},
		{"zero speed", store.Voice{ID: "v2", Account: "ann", Base: "x", Range: 1, Volume: 1}, nil},
		{"pitch NaN", store.Voice{ID: "v3", Account: "ann", Base: "x", Speed: 1, Pitch: math.NaN(), Range: 1, Volume: 1}, nil},
		{"zero range", store.Voice{ID: "v4", Account: "ann", Base: "x", Speed: 1, Volume: 1}, nil},
		{"negative volume", store.Voice{ID: "v5", Account: "ann", Base: "x", Speed: 1, Range: 1, Volume: -0.5}, nil},
		{"no base", store.Voice{ID: "v6", Account: "ann", Speed: 1, Range: 1, Volume: 1}, nil},
	}
	for _, tt := range fails {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.CreateVoice(ctx, tt.v, 0)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("CreateVoice = %v, want %v", err, tt.want)
			}
		})
	}
	all, err := s.Voices(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || !SameVoice(all[0], fast) || all[1].ID != "plain" {
		t.Fatalf("after failed inserts: %+v", all)
	}

	// Scoped by account; deletion only by the owner.
	if vs, _ := s.Voices(ctx, "bob"); len(vs) != 1 || vs[0].ID != "plain" {
		t.Errorf("Voices(bob) = %+v", vs)
	}
	if _, err := s.DeleteVoice(ctx, "bob", "fast"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob deleted ann's voice: %v", err)
	}
	if d, err := s.DeleteVoice(ctx, "bob", "plain"); err != nil || d.ID != "plain" || d.Base != "en-gb" {
		t.Errorf("DeleteVoice = %+v, %v", d, err)
	}
	if _, err := s.DeleteVoice(ctx, "bob", "plain"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}

	// A restart keeps what was committed.
	if su.Reopen == nil {
		return
	}
	s = su.Reopen(t, s)
	all, err = s.Voices(ctx, "")
	if err != nil || len(all) != 1 || !SameVoice(all[0], fast) {
		t.Errorf("after restart: %+v, %v", all, err)
	}
}

// Clone ids are per account; store.Voice finds one clone by account and id; the
// limit counts the account's clones only.
// testUnstorableLookups: an id no row can hold (a NUL byte, invalid
// UTF-8), as a client may put in a path, is not found, like any other
// unknown id: not a database error.
func testUnstorableLookups(t *testing.T, su Suite) {
	s, ctx := su.Open(t), t.Context()
	accounts(t, s, "alice")
	for _, id := range []string{"a\x00b", "\xff\xfe", "sk_\x00abcdef", "sk_ab\xc3("} {
		if _, err := s.Voice(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Voice(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.DeleteVoice(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteVoice(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.RevokeKey(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKey(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.Account(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Account(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.VerifyKey(ctx, id); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("VerifyKey(%q): %v, want ErrInvalidKey", id, err)
		}
	}
}

func testVoiceNamespacesAndLimit(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "ann", "bob")
	for _, a := range []string{"ann", "bob"} {
		if _, err := s.CreateVoice(ctx, Voice(a, "mine"), 2); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if _, err := s.CreateVoice(ctx, Voice("ann", "second"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateVoice(ctx, Voice("ann", "third"), 2); !errors.Is(err, store.ErrLimit) {
		t.Errorf("third clone of ann with a limit of 2: %v", err)
	}
	if got, err := s.Voice(ctx, "bob", "mine"); err != nil || got.Account != "bob" {
		t.Errorf("Voice(bob, mine) = %+v, %v", got, err)
	}
	if _, err := s.Voice(ctx, "bob", "second"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Voice(bob, second) = %v, want store.ErrNotFound", err)
	}
	if _, err := s.DeleteVoice(ctx, "ann", "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Voice(ctx, "bob", "mine"); err != nil {
		t.Errorf("deleting ann's clone took bob's: %v", err)
	}
	if list, err := s.Voices(ctx, "ann"); err != nil || len(list) != 1 || list[0].ID != "second" {
		t.Errorf("Voices(ann) = %+v, %v", list, err)
	}
	if c, ok := s.(store.VoiceCounter); ok {
		for account, want := range map[string]int{"ann": 1, "bob": 1, "nobody": 0} {
			if n, err := c.VoiceCount(ctx, account); err != nil || n != want {
				t.Errorf("VoiceCount(%s) = %d, %v; want %d", account, n, err, want)
			}
		}
	}
}

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

// CheckUpgrade fails t unless a database keeps what it held across a
// schema upgrade: old opens a store on a database of an older schema,
// in which CheckUpgrade makes an account, a key, a voice cloned from a
// recording and (for a store.Sessions) a password and a session, then
// closes it; upgraded opens the same database with the current schema,
// where they must all be found, and lexicons (for a store.Lexicons)
// made.
func CheckUpgrade(t *testing.T, old, upgraded func(t *testing.T) store.Store) {
	t.Helper()
	ctx := t.Context()
	s := old(t)
	accounts(t, s, "old")
	_, plain := newKey(t, s, store.NewKey{Account: "old", Name: "ci", Scope: store.ScopeSpeech})
	voice := Voice("old", "cloned")
	voice.Sample = []byte("what an engine made of a recording")
	voice, err := s.CreateVoice(ctx, voice, 0)
	if err != nil {
		t.Fatal(err)
	}
	session := store.Session{TokenHash: store.HashKey("token"), Account: "old", Created: time.Now(), Expires: time.Now().Add(time.Hour)}
	if ss, ok := s.(store.Sessions); ok {
		if err := ss.SetPassword(ctx, "old", "hash-of-old"); err != nil {
			t.Fatal(err)
		}
		if err := ss.CreateSession(ctx, session); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = upgraded(t)
	if k, err := s.VerifyKey(ctx, plain); err != nil || k.Name != "ci" || k.Scope != store.ScopeSpeech {
		t.Errorf("the key after the upgrade: %+v, %v", k, err)
	}
	if got, err := s.Voice(ctx, "old", "cloned"); err != nil || !SameVoice(got, voice) {
		t.Errorf("the voice after the upgrade: %+v, %v; want %+v", got, err, voice)
	}
	if ss, ok := s.(store.Sessions); ok {
		if h, err := ss.PasswordHash(ctx, "old"); err != nil || h != "hash-of-old" {
			t.Errorf("the password after the upgrade: %q, %v", h, err)
		}
		if got, err := ss.Session(ctx, session.TokenHash); err != nil || got.Account != "old" {
			t.Errorf("the session after the upgrade: %+v, %v", got, err)
		}
	}
	if lx, ok := s.(store.Lexicons); ok {
		l, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "old", PLS: PLS("WHO"), Lexemes: 1}, store.LexiconQuota{})
		if err != nil {
			t.Fatalf("a lexicon after the upgrade: %v", err)
		}
		if err := lx.SetDefaultLexicons(ctx, "old", []string{l.ID}); err != nil {
			t.Errorf("default lexicons after the upgrade: %v", err)
		}
	}
}
