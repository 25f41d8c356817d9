package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

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
