// Package storetest is a conformance suite for store.Store
// implementations, in the manner of testing/fstest: an implementation's
// tests call Run (or Suite.Run, to give restart and clock hooks) with a
// function that opens an empty store, and every behaviour the server
// relies on is checked against it — accounts, keys and their scopes,
// revocation, verification, key and clone limits (also under concurrent
// creation), per-account voice clone ids, and that no plaintext key is
// stored; and, for stores with the optional interfaces, passwords and
// sessions (store.Sessions) and lexicons (store.Lexicons: versions,
// defaults, limits and isolation between accounts) and long-form jobs
// (store.Jobs).
package storetest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
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
		{"Jobs", testJobs},
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
