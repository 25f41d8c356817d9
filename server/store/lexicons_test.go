package store

import (
	"strings"
	"testing"
)

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 2000 {
		id := NewID()
		if len(id) != idLength || checkID(id) != nil || seen[id] {
			t.Fatalf("NewID() = %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
		for _, r := range id {
			counts[r]++
		}
	}
	// 40,000 digits of 62: every one appears (each is expected 645 times).
	for _, r := range base62 {
		if counts[r] == 0 {
			t.Errorf("NewID never gave %q", r)
		}
	}
}

func TestLexiconPrepare(t *testing.T) {
	good := Lexicon{Account: "a", PLS: []byte("<lexicon/>"), Lexemes: 0}
	if l, err := good.Prepare(); err != nil || l.ID == "" || l.Version == "" || l.ID == l.Version {
		t.Errorf("Prepare() = %+v, %v", l, err)
	}
	for _, bad := range []Lexicon{
		{PLS: good.PLS},
		{Account: "a"},
		{Account: "a", PLS: good.PLS, Lexemes: -1},
		{Account: "a", PLS: good.PLS, ID: strings.Repeat("x", 65)},
		{Account: "a", PLS: good.PLS, ID: "é"},
		{Account: "a", PLS: good.PLS, Version: "1.0"},
		{Account: "a", PLS: good.PLS, Name: "a\x00b"},
	} {
		if _, err := bad.Prepare(); err == nil {
			t.Errorf("Prepare(%+v) accepted it", bad)
		}
	}
}
