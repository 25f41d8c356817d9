package lexicon

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// pieces are what the texts and graphemes of the differential tests are
// made of: words, marks, white space of several kinds, punctuation, and
// bytes that are not UTF-8 or cut a character short.
var pieces = []string{"a", "b", "ab", "é", "e\u0301", "Ω", "ª", "1", " ", "  ", "\u00a0", "\u2003", "\t", "\n", ".", "+", "!", "'",
	"\xff", "\xc2", "\xe2\x80", "\xa9", "€", "\u3000", "x y"}

func randomString(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// randomLexicon returns a lexicon of random graphemes, many sharing
// beginnings.
func randomLexicon(t testing.TB, rng *rand.Rand) *Lexicon {
	var lexemes []Lexeme
	for i := range 1 + rng.IntN(12) {
		var gs []string
		for range 1 + rng.IntN(3) {
			g := randomString(rng, 1+rng.IntN(5))
			if strings.TrimSpace(g) == "" {
				g = "a" + g
			}
			gs = append(gs, g)
		}
		lexemes = append(lexemes, Lexeme{Graphemes: gs, Alias: strings.Repeat("x", i+1)})
	}
	l, err := New("en", lexemes)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// sameAsBefore fails unless Find and Straddles say of text what the
// matcher of before the trie (find_ref_test.go) says.
func sameAsBefore(t *testing.T, text string, ls []*Lexicon) {
	t.Helper()
	var xs []*refIndex
	for _, l := range ls {
		xs = append(xs, newRefIndex(l))
	}
	got, want := Find(text, ls...), refFind(text, xs...)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find(%q) = %+v, before %+v (lexicons %+v)", text, got, want, lexemesOf(ls))
	}
	for at := 0; at <= len(text); at++ {
		if got, want := Straddles(text, at, ls...), refStraddles(text, at, xs...); got != want {
			t.Fatalf("Straddles(%q, %d) = %v, before %v (lexicons %+v)", text, at, got, want, lexemesOf(ls))
		}
	}
}

func lexemesOf(ls []*Lexicon) [][]Lexeme {
	var out [][]Lexeme
	for _, l := range ls {
		out = append(out, l.Lexemes)
	}
	return out
}

// TestFindAsBefore: on random lexicons and texts (with graphemes that
// begin alike, white space of every kind and broken UTF-8), the trie
// finds what the matcher it replaced found, and straddles where it did.
func TestFindAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 40))
	for range 3000 {
		ls := []*Lexicon{randomLexicon(t, rng)}
		if rng.IntN(3) == 0 {
			ls = append(ls, randomLexicon(t, rng), ls[0])
		}
		var text strings.Builder
		for range rng.IntN(12) {
			l := ls[rng.IntN(len(ls))]
			if rng.IntN(2) == 0 {
				x := l.Lexemes[rng.IntN(len(l.Lexemes))]
				text.WriteString(x.Graphemes[rng.IntN(len(x.Graphemes))])
			} else {
				text.WriteString(randomString(rng, 1+rng.IntN(3)))
			}
		}
		sameAsBefore(t, text.String(), ls)
	}
}

// FuzzFindAsBefore is TestFindAsBefore for the fuzzer: graphemes
// (separated by "|") and a text.
func FuzzFindAsBefore(f *testing.F) {
	f.Add("WHO|New|New York|New York City|C++|é", "We met the WHO in New  York City, C++ é.")
	f.Add("a\xe2\x80|a b|ab\xc2", "a\u2003b ab\xc2")
	f.Fuzz(func(t *testing.T, graphemes, text string) {
		var lexemes []Lexeme
		for _, g := range strings.Split(graphemes, "|") {
			lexemes = append(lexemes, Lexeme{Graphemes: []string{g}, Alias: "x"})
		}
		l, err := New("en", lexemes)
		if err != nil {
			return
		}
		sameAsBefore(t, text, []*Lexicon{l})
	})
}
