package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

// testDefaultLexicons: defaults keep their order and a repeated id once,
// are set whole or not at all, and lose a lexicon when it is deleted.
func testDefaultLexicons(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann", "bob")
	defaults := func(account string, want ...string) {
		t.Helper()
		got, err := lx.DefaultLexicons(ctx, account)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("DefaultLexicons(%s) = %q, %v; want %q", account, got, err, want)
		}
	}
	defaults("ann")
	for _, id := range []string{"a", "b", "c"} {
		createLexicon(t, lx, store.Lexicon{ID: id, Account: "ann", PLS: PLS(id)})
	}
	if err := lx.SetDefaultLexicons(ctx, "ann", []string{"c", "a", "c", "b"}); err != nil {
		t.Fatal(err)
	}
	defaults("ann", "c", "a", "b")
	defaults("bob")
	if err := lx.SetDefaultLexicons(ctx, "ann", []string{"b", "nosuch"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown id among the defaults: %v, want ErrNotFound", err)
	}
	defaults("ann", "c", "a", "b")
	if err := lx.SetDefaultLexicons(ctx, "nobody", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("defaults of no account: %v, want ErrNotFound", err)
	}
	// A new version keeps the lexicon among the defaults.
	if _, err := lx.AddLexiconVersion(ctx, "ann", "a", PLS("a", "aa"), 2, store.LexiconQuota{}); err != nil {
		t.Fatal(err)
	}
	defaults("ann", "c", "a", "b")
	if _, err := lx.DeleteLexicon(ctx, "ann", "a"); err != nil {
		t.Fatal(err)
	}
	defaults("ann", "c", "b")
	if su.Reopen != nil {
		lx = su.Reopen(t, opened).(store.Lexicons)
		defaults("ann", "c", "b")
	}
	if err := lx.SetDefaultLexicons(ctx, "ann", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	defaults("ann", "b")
	if err := lx.SetDefaultLexicons(ctx, "ann", nil); err != nil {
		t.Fatal(err)
	}
	defaults("ann")
}

// testDefaultsWhileDeleting: defaults set while lexicons are deleted are
// set or refused as not found, and never name a deleted lexicon.
func testDefaultsWhileDeleting(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann")
	var ids, kept []string
	for i := range 20 {
		l := createLexicon(t, lx, store.Lexicon{ID: fmt.Sprintf("l%02d", i), Account: "ann", PLS: PLS()})
		ids = append(ids, l.ID)
		if i%2 == 1 {
			kept = append(kept, l.ID)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < len(ids); i += 2 {
			if _, err := lx.DeleteLexicon(ctx, "ann", ids[i]); err != nil {
				t.Error(err)
			}
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		list, err := lx.ListLexicons(ctx, "ann")
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, l := range list {
			listed = append(listed, l.ID)
		}
		if err := lx.SetDefaultLexicons(ctx, "ann", listed); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("SetDefaultLexicons while deleting: %v", err)
		}
	}
	got, err := lx.DefaultLexicons(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range got {
		if !slices.Contains(kept, id) {
			t.Errorf("the defaults name %s, which was deleted (%q)", id, got)
		}
	}
}

// testUnstorableLexiconLookups: ids no row can hold are not found, like
// any other unknown id.
func testUnstorableLexiconLookups(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "alice")
	l := createLexicon(t, lx, store.Lexicon{Account: "alice", PLS: PLS()})
	for _, id := range []string{"a\x00b", "\xff\xfe"} {
		if _, err := lx.Lexicon(ctx, "alice", id, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Lexicon(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := lx.Lexicon(ctx, "alice", l.ID, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Lexicon(version %q): %v, want ErrNotFound", id, err)
		}
		if _, err := lx.LexiconVersions(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("LexiconVersions(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := lx.AddLexiconVersion(ctx, "alice", id, PLS(), 0, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AddLexiconVersion(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := lx.DeleteLexicon(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteLexicon(%q): %v, want ErrNotFound", id, err)
		}
		if err := lx.SetDefaultLexicons(ctx, "alice", []string{id}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetDefaultLexicons(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: id, PLS: PLS()}, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("CreateLexicon(account %q): %v, want ErrNotFound", id, err)
		}
		if list, err := lx.ListLexicons(ctx, id); err != nil || len(list) != 0 {
			t.Errorf("ListLexicons(%q) = %+v, %v", id, list, err)
		}
		if ids, err := lx.DefaultLexicons(ctx, id); err != nil || len(ids) != 0 {
			t.Errorf("DefaultLexicons(%q) = %q, %v", id, ids, err)
		}
	}
}
