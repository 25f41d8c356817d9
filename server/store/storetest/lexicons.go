package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

// PLS returns a small PLS document with one alias lexeme per grapheme,
// for tests that store lexicons.
func PLS(graphemes ...string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">` + "\n")
	for _, g := range graphemes {
		fmt.Fprintf(&b, "  <lexeme><grapheme>%s</grapheme><alias>%s said slowly</alias></lexeme>\n", g, g)
	}
	b.WriteString("</lexicon>\n")
	return b.Bytes()
}

func createLexicon(t *testing.T, lx store.Lexicons, l store.Lexicon) store.Lexicon {
	t.Helper()
	got, err := lx.CreateLexicon(context.Background(), l, store.LexiconQuota{})
	if err != nil {
		t.Fatalf("CreateLexicon(%s/%s): %v", l.Account, l.ID, err)
	}
	return got
}

// sameLexicon fails t unless got is want, times compared as instants.
func sameLexicon(t *testing.T, what string, got, want store.Lexicon) {
	t.Helper()
	if !got.Created.Equal(want.Created) || !got.VersionCreated.Equal(want.VersionCreated) || !bytes.Equal(got.PLS, want.PLS) {
		t.Errorf("%s: created %v, version created %v, %d bytes of PLS; want %v, %v, %d bytes",
			what, got.Created, got.VersionCreated, len(got.PLS), want.Created, want.VersionCreated, len(want.PLS))
	}
	got.Created, got.VersionCreated, got.PLS = want.Created, want.VersionCreated, want.PLS
	if got.ID != want.ID || got.Account != want.Account || got.Name != want.Name || got.Version != want.Version || got.Lexemes != want.Lexemes {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// metadata returns l without its document, as lists give it.
func metadata(l store.Lexicon) store.Lexicon {
	l.PLS = nil
	return l
}

// testLexicons: a lexicon is created with ids made for it, read back
// whole, versioned (the latest changes, older versions stay readable),
// listed by creation, deleted with every version, and kept by a restart.
func testLexicons(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann")
	if list, err := lx.ListLexicons(ctx, "ann"); err != nil || len(list) != 0 {
		t.Fatalf("ListLexicons before any: %+v, %v", list, err)
	}
	brands := createLexicon(t, lx, store.Lexicon{Account: "ann", Name: "Brands", PLS: PLS("voxkit", "WHO"), Lexemes: 2})
	if len(brands.ID) != 20 || len(brands.Version) != 20 || brands.Created.IsZero() || !brands.VersionCreated.Equal(brands.Created) {
		t.Errorf("CreateLexicon made %+v: want ids of 20 characters and its times", metadata(brands))
	}
	// Any bytes are kept as they were given: a store does not parse them.
	big := make([]byte, 200000)
	for i := range big {
		big[i] = byte(i * 13)
	}
	named := createLexicon(t, lx, store.Lexicon{ID: "names_1", Version: "v-1", Account: "ann", PLS: big, Lexemes: 5000})
	if named.ID != "names_1" || named.Version != "v-1" {
		t.Errorf("given ids were replaced: %+v", metadata(named))
	}
	if got, err := lx.Lexicon(ctx, "ann", brands.ID, ""); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "Lexicon(brands)", got, brands)
	}
	if got, err := lx.Lexicon(ctx, "ann", "names_1", "v-1"); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "Lexicon(names_1, v-1)", got, named)
	}

	// A new version becomes the latest; the first stays readable.
	second, err := lx.AddLexiconVersion(ctx, "ann", brands.ID, PLS("voxkit", "WHO", "SQL"), 3, store.LexiconQuota{})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != brands.ID || second.Version == brands.Version || second.Name != "Brands" || !second.Created.Equal(brands.Created) ||
		second.VersionCreated.Before(brands.VersionCreated) || second.Lexemes != 3 {
		t.Errorf("AddLexiconVersion = %+v, after %+v", metadata(second), metadata(brands))
	}
	if got, err := lx.Lexicon(ctx, "ann", brands.ID, ""); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "latest after a version", got, second)
	}
	if got, err := lx.Lexicon(ctx, "ann", brands.ID, brands.Version); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "first version after a second", got, brands)
	}
	if _, err := lx.Lexicon(ctx, "ann", brands.ID, "nosuchversion"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown version: %v, want ErrNotFound", err)
	}
	if _, err := lx.Lexicon(ctx, "ann", brands.ID, named.Version); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another lexicon's version: %v, want ErrNotFound", err)
	}
	versions, err := lx.LexiconVersions(ctx, "ann", brands.ID)
	if err != nil || len(versions) != 2 {
		t.Fatalf("LexiconVersions = %+v, %v", versions, err)
	}
	sameLexicon(t, "versions[0]", versions[0], metadata(brands))
	sameLexicon(t, "versions[1]", versions[1], metadata(second))

	// Listed by creation, latest versions, without documents.
	list, err := lx.ListLexicons(ctx, "ann")
	if err != nil || len(list) != 2 {
		t.Fatalf("ListLexicons = %+v, %v", list, err)
	}
	sameLexicon(t, "list[0]", list[0], metadata(second))
	sameLexicon(t, "list[1]", list[1], metadata(named))

	// Refused before anything is stored.
	for _, bad := range []store.Lexicon{
		{Account: "ann"}, // no document
		{Account: "ann", PLS: PLS(), Lexemes: -1},
		{Account: "ann", PLS: PLS(), ID: "has space"},
		{Account: "ann", PLS: PLS(), ID: "a/b"},
		{Account: "ann", PLS: PLS(), Version: "v\x00"},
		{Account: "ann", PLS: PLS(), Name: "bad \xff name"},
		{PLS: PLS()}, // no account
	} {
		if _, err := lx.CreateLexicon(ctx, bad, store.LexiconQuota{}); err == nil {
			t.Errorf("CreateLexicon(%+v) was accepted", bad)
		}
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "nobody", PLS: PLS()}, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a lexicon of no account: %v, want ErrNotFound", err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{ID: "names_1", Account: "ann", PLS: PLS()}, store.LexiconQuota{}); !errors.Is(err, store.ErrLexiconExists) {
		t.Errorf("an id the account has: %v, want ErrLexiconExists", err)
	}
	if _, err := lx.AddLexiconVersion(ctx, "ann", brands.ID, nil, 0, store.LexiconQuota{}); err == nil {
		t.Error("an empty version was accepted")
	}
	if _, err := lx.AddLexiconVersion(ctx, "ann", "nosuch", PLS(), 0, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a version of no lexicon: %v, want ErrNotFound", err)
	}
	if got, err := lx.Lexicon(ctx, "ann", "names_1", ""); err != nil || got.Version != "v-1" {
		t.Errorf("after refused changes: %+v, %v", metadata(got), err)
	}

	// A restart keeps them.
	if su.Reopen != nil {
		lx = su.Reopen(t, opened).(store.Lexicons)
		if got, err := lx.Lexicon(ctx, "ann", "names_1", ""); err != nil {
			t.Fatal(err)
		} else {
			sameLexicon(t, "after a restart", got, named)
		}
	}

	// Deleting takes every version.
	deleted, err := lx.DeleteLexicon(ctx, "ann", brands.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameLexicon(t, "DeleteLexicon", deleted, metadata(second))
	for _, v := range []string{"", brands.Version, second.Version} {
		if _, err := lx.Lexicon(ctx, "ann", brands.ID, v); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("version %q after deletion: %v, want ErrNotFound", v, err)
		}
	}
	if _, err := lx.LexiconVersions(ctx, "ann", brands.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("versions after deletion: %v, want ErrNotFound", err)
	}
	if _, err := lx.DeleteLexicon(ctx, "ann", brands.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second deletion: %v, want ErrNotFound", err)
	}
	if _, err := lx.AddLexiconVersion(ctx, "ann", brands.ID, PLS(), 0, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a version of a deleted lexicon: %v, want ErrNotFound", err)
	}
	// Its id may be used again, as a new lexicon.
	again := createLexicon(t, lx, store.Lexicon{ID: brands.ID, Account: "ann", PLS: PLS("x"), Lexemes: 1})
	if versions, err := lx.LexiconVersions(ctx, "ann", again.ID); err != nil || len(versions) != 1 || versions[0].Version != again.Version {
		t.Errorf("versions of a re-created lexicon: %+v, %v", versions, err)
	}
	if list, err := lx.ListLexicons(ctx, "ann"); err != nil || len(list) != 2 || list[0].ID != "names_1" || list[1].ID != brands.ID {
		t.Errorf("ListLexicons at the end = %+v, %v", list, err)
	}
}

// testLexiconIsolation: another account can neither read, list, version,
// delete nor name as a default a lexicon, and may have one of the same
// id.
func testLexiconIsolation(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann", "bob")
	anns := createLexicon(t, lx, store.Lexicon{ID: "shared", Account: "ann", Name: "Ann's", PLS: PLS("ann"), Lexemes: 1})
	if _, err := lx.Lexicon(ctx, "bob", "shared", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob reads ann's lexicon: %v", err)
	}
	if _, err := lx.Lexicon(ctx, "bob", "shared", anns.Version); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob reads ann's version: %v", err)
	}
	if _, err := lx.LexiconVersions(ctx, "bob", "shared"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob lists ann's versions: %v", err)
	}
	if _, err := lx.AddLexiconVersion(ctx, "bob", "shared", PLS("bob"), 1, store.LexiconQuota{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob versions ann's lexicon: %v", err)
	}
	if _, err := lx.DeleteLexicon(ctx, "bob", "shared"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob deletes ann's lexicon: %v", err)
	}
	if err := lx.SetDefaultLexicons(ctx, "bob", []string{"shared"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's default is ann's lexicon: %v", err)
	}
	if list, err := lx.ListLexicons(ctx, "bob"); err != nil || len(list) != 0 {
		t.Errorf("ListLexicons(bob) = %+v, %v", list, err)
	}
	if got, err := lx.Lexicon(ctx, "ann", "shared", ""); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "ann's lexicon after bob's attempts", got, anns)
	}

	bobs := createLexicon(t, lx, store.Lexicon{ID: "shared", Account: "bob", Name: "Bob's", PLS: PLS("bob"), Lexemes: 1})
	if _, err := lx.AddLexiconVersion(ctx, "bob", "shared", PLS("bob", "two"), 2, store.LexiconQuota{}); err != nil {
		t.Fatal(err)
	}
	if err := lx.SetDefaultLexicons(ctx, "bob", []string{"shared"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lx.DeleteLexicon(ctx, "bob", "shared"); err != nil {
		t.Fatal(err)
	}
	if got, err := lx.Lexicon(ctx, "ann", "shared", ""); err != nil {
		t.Fatal(err)
	} else {
		sameLexicon(t, "ann's lexicon after bob's of the same id came and went", got, anns)
	}
	if versions, err := lx.LexiconVersions(ctx, "ann", "shared"); err != nil || len(versions) != 1 {
		t.Errorf("ann's versions: %+v, %v", versions, err)
	}
	if _, err := lx.Lexicon(ctx, "ann", "shared", bobs.Version); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ann reads bob's version: %v", err)
	}
}

// testLexiconLimit: the limit counts the account's lexicons only, a
// deletion makes room, and concurrent creations do not pass it.
func testLexiconLimit(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann", "bob", "many")
	for range 2 {
		if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: PLS()}, store.LexiconQuota{Lexicons: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: PLS()}, store.LexiconQuota{Lexicons: 2}); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a third lexicon with a limit of 2: %v", err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "bob", PLS: PLS()}, store.LexiconQuota{Lexicons: 2}); err != nil {
		t.Errorf("bob's first lexicon: %v", err)
	}
	list, err := lx.ListLexicons(ctx, "ann")
	if err != nil || len(list) != 2 {
		t.Fatalf("ListLexicons(ann) = %+v, %v", list, err)
	}
	if _, err := lx.DeleteLexicon(ctx, "ann", list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: PLS()}, store.LexiconQuota{Lexicons: 2}); err != nil {
		t.Errorf("a lexicon after a deletion made room: %v", err)
	}
	CheckLimit(t, 40, 5, func(int) error {
		_, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "many", PLS: PLS()}, store.LexiconQuota{Lexicons: 5})
		return err
	}, func() (int, error) { list, err := lx.ListLexicons(ctx, "many"); return len(list), err })
}

// testConcurrentLexiconVersions: versions added at once are each kept,
// in order, and the latest is the last of them.
func testConcurrentLexiconVersions(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann")
	l := createLexicon(t, lx, store.Lexicon{Account: "ann", PLS: PLS()})
	const workers, each = 8, 5
	var mu sync.Mutex
	made := map[string]int{} // version → lexemes
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := w*each + i + 1
				v, err := lx.AddLexiconVersion(ctx, "ann", l.ID, PLS(fmt.Sprint(n)), n, store.LexiconQuota{})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				made[v.Version] = n
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	versions, err := lx.LexiconVersions(ctx, "ann", l.ID)
	if err != nil || len(versions) != workers*each+1 || len(made) != workers*each {
		t.Fatalf("%d versions added at once: %d listed, %d distinct ids made (%v)", workers*each, len(versions), len(made), err)
	}
	if versions[0].Version != l.Version {
		t.Errorf("the first version listed is %q, want %q", versions[0].Version, l.Version)
	}
	for _, v := range versions[1:] {
		if made[v.Version] != v.Lexemes {
			t.Errorf("version %s has %d lexemes, was made with %d", v.Version, v.Lexemes, made[v.Version])
		}
		got, err := lx.Lexicon(ctx, "ann", l.ID, v.Version)
		if err != nil || !bytes.Equal(got.PLS, PLS(fmt.Sprint(v.Lexemes))) {
			t.Errorf("version %s: %d bytes, %v", v.Version, len(got.PLS), err)
		}
	}
	last := versions[len(versions)-1]
	if got, err := lx.Lexicon(ctx, "ann", l.ID, ""); err != nil || got.Version != last.Version {
		t.Errorf("latest = %q, %v; want the last listed, %q", got.Version, err, last.Version)
	}
}

// testLexiconVersionsKept: beyond store.LexiconVersionsKept versions the
// oldest go; the latest and the lexicon's creation stay.
func testLexiconVersionsKept(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann")
	first := createLexicon(t, lx, store.Lexicon{Account: "ann", Name: "Long-lived", PLS: PLS("0")})
	var added []store.Lexicon
	for i := range store.LexiconVersionsKept + 1 {
		v, err := lx.AddLexiconVersion(ctx, "ann", first.ID, PLS(fmt.Sprint(i+1)), i+1, store.LexiconQuota{})
		if err != nil {
			t.Fatal(err)
		}
		added = append(added, v)
	}
	versions, err := lx.LexiconVersions(ctx, "ann", first.ID)
	if err != nil || len(versions) != store.LexiconVersionsKept {
		t.Fatalf("LexiconVersions = %d versions, %v; want %d", len(versions), err, store.LexiconVersionsKept)
	}
	want := added[len(added)-store.LexiconVersionsKept:]
	for i, v := range versions {
		if v.Version != want[i].Version {
			t.Fatalf("versions[%d] = %q, want %q", i, v.Version, want[i].Version)
		}
	}
	for _, gone := range []string{first.Version, added[0].Version} {
		if _, err := lx.Lexicon(ctx, "ann", first.ID, gone); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a version beyond the kept ones: %v, want ErrNotFound", err)
		}
	}
	if got, err := lx.Lexicon(ctx, "ann", first.ID, ""); err != nil || got.Version != added[len(added)-1].Version ||
		!got.Created.Equal(first.Created) || got.Name != "Long-lived" {
		t.Errorf("latest = %+v, %v", metadata(got), err)
	}
}

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

// testLexiconStorage: an account's lexicon documents, every kept version
// counted, stay within the quota's bytes — a version or a lexicon past
// it is refused and not kept; another account has its own; a deletion
// makes room.
func testLexiconStorage(t *testing.T, su Suite) {
	ctx := t.Context()
	opened, lx := openAs[store.Lexicons](t, su)
	accounts(t, opened, "ann", "bob")
	doc := PLS("WHO")
	q := store.LexiconQuota{Bytes: int64(3 * len(doc))}
	first, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: doc}, q)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := lx.AddLexiconVersion(ctx, "ann", first.ID, doc, 1, q); err != nil {
			t.Fatalf("a version within the quota: %v", err)
		}
	}
	_, err = lx.AddLexiconVersion(ctx, "ann", first.ID, doc, 1, q)
	if !errors.Is(err, store.ErrLexiconStorage) || !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a fourth version of %d bytes with a quota of %d: %v", len(doc), q.Bytes, err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: doc}, q); !errors.Is(err, store.ErrLexiconStorage) {
		t.Errorf("a lexicon past the quota: %v", err)
	}
	if versions, err := lx.LexiconVersions(ctx, "ann", first.ID); err != nil || len(versions) != 3 {
		t.Errorf("versions after the refusals: %d, %v; want 3", len(versions), err)
	}
	if list, err := lx.ListLexicons(ctx, "ann"); err != nil || len(list) != 1 {
		t.Errorf("lexicons after the refusals: %d, %v; want 1", len(list), err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "bob", PLS: doc}, q); err != nil {
		t.Errorf("bob's first lexicon: %v", err)
	}
	if _, err := lx.DeleteLexicon(ctx, "ann", first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := lx.CreateLexicon(ctx, store.Lexicon{Account: "ann", PLS: doc}, q); err != nil {
		t.Errorf("a lexicon after a deletion made room: %v", err)
	}
}
