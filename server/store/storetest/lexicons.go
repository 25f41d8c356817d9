package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
