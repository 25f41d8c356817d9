package lexicon_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/lexicontest"
	"github.com/voxkit/voxkit/lexicon"
)

// benchLexicon returns a lexicon of lexicon.MaxLexemes entries: made-up
// words and two-word names, and a few words of testdata/bench.txt.
func benchLexicon(b *testing.B) *lexicon.Lexicon {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var w []byte
		for range 3 + rng.IntN(8) {
			w = append(w, byte('a'+rng.IntN(26)))
		}
		return string(w)
	}
	var doc strings.Builder
	doc.WriteString(`<lexicon version="1.0" alphabet="ipa" xml:lang="en-US">` + "\n")
	real := []string{"WHO", "New York", "Nguyen", "vaccines", "nurses", "noodles", "quarter", "ministries"}
	for i := range lexicon.MaxLexemes {
		g := word()
		switch {
		case i < len(real):
			g = real[i]
		case i%3 == 0:
			g = strings.ToUpper(g[:1]) + g[1:] + " " + word()
		}
		fmt.Fprintf(&doc, "<lexeme><grapheme>%s</grapheme><phoneme>%s</phoneme></lexeme>\n", g, word())
	}
	doc.WriteString("</lexicon>")
	l, err := lexicon.Parse([]byte(doc.String()))
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkFind looks the words of about 1,000 characters of English up
// in a lexicon of lexicon.MaxLexemes entries. Compare tts's
// BenchmarkLexiconText, espeak-ng speaking the same text.
func BenchmarkFind(b *testing.B) {
	text, err := os.ReadFile("testdata/bench.txt")
	if err != nil {
		b.Fatal(err)
	}
	l := benchLexicon(b)
	if n := len(lexicon.Find(string(text), l)); n < 8 {
		b.Fatalf("%d matches, want the 8 entries of the text", n)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		lexicon.Find(string(text), l)
	}
}

// BenchmarkFindHostile looks "a " × 2048 up in a 1 MiB lexicon whose
// graphemes all begin "a a a …" 250 characters deep (issue 40: 6.8 s an
// operation when each grapheme was tried in turn).
func BenchmarkFindHostile(b *testing.B) {
	l, err := lexicon.Parse(lexicontest.Hostile(lexicon.MaxBytes))
	if err != nil {
		b.Fatal(err)
	}
	text := lexicontest.HostileText(2048)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if m := lexicon.Find(text, l); len(m) != 0 {
			b.Fatalf("%d matches", len(m))
		}
	}
}
