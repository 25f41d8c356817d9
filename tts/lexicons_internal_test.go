package tts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
)

func testLexicon(t *testing.T, lexemes string) *lexicon.Lexicon {
	t.Helper()
	l, err := lexicon.Parse([]byte(`<lexicon version="1.0" alphabet="ipa" xml:lang="en-US">` + lexemes + `</lexicon>`))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestApplyLexicons: aliases are written in and phoneme entries become
// phoneme tags; tags and what phoneme and spell tags hold are left alone;
// every word of the result maps back to the text as written.
func TestApplyLexicons(t *testing.T) {
	l := testLexicon(t, `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
<lexeme><grapheme>Nguyen</grapheme><phoneme>ŋwiən</phoneme></lexeme>
<lexeme><grapheme>é</grapheme><alias>E acute</alias></lexeme>
<lexeme><grapheme>tag</grapheme><alias>a &lt;|pause:1s|&gt; b</alias></lexeme>`)
	cases := []struct{ in, want string }{
		{"We met the WHO today.", "We met the World Health Organization today."},
		{"Dr. Nguyen and the WHO.", "Dr. <|phoneme:ŋwiən|>Nguyen<|/phoneme|> and the World Health Organization."},
		{"<|slow|>WHO<|/slow|> é WHO", "<|slow|>World Health Organization<|/slow|> E acute World Health Organization"},
		{"<|phoneme:hu|>WHO<|/phoneme|> WHO", "<|phoneme:hu|>WHO<|/phoneme|> World Health Organization"},
		{"<|spell|>WHO<|reset|> WHO", "<|spell|>WHO<|reset|> World Health Organization"},
		{"WHO<|pause:1s|>WHO", "World Health Organization<|pause:1s|>World Health Organization"},
		{"no match here", "no match here"},
		{"a tag", "a a < |pause:1s| > b"}, // an alias is text, never a tag
	}
	for _, c := range cases {
		x := applyLexicons(c.in, []*lexicon.Lexicon{l}, nil)
		if x.text != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, x.text, c.want)
			continue
		}
		// Each word of the input as written maps to itself; each word an
		// alias wrote maps to its grapheme.
		runes := []rune(x.text)
		in := []rune(c.in)
		for _, word := range []string{"We", "today", "Dr", "Nguyen", "and", "World", "Organization", "E", "acute"} {
			at := strings.Index(x.text, word)
			if at < 0 {
				continue
			}
			start := utf8.RuneCountInString(x.text[:at])
			a, b := x.source(start, start+utf8.RuneCountInString(word))
			got := string(in[a:b])
			want := word
			switch word {
			case "World", "Organization":
				want = "WHO"
			case "E", "acute":
				want = "é"
			}
			if got != want {
				t.Errorf("%q: %q (characters %d-%d of %q) maps to %q, want %q", c.in, word, start, start+len(word), string(runes), got, want)
			}
		}
	}
	if x := applyLexicons("WHO WHO", []*lexicon.Lexicon{l}, func(c int) bool { return c < 3 }); x.text != "WHO World Health Organization" {
		t.Errorf("with the first WHO rewritten by SSML: %q", x.text)
	}
	if x := applyLexicons("the WHO", []*lexicon.Lexicon{l}, nil); x.grown != 25-3 {
		t.Errorf("grown %d, want %d", x.grown, 25-3)
	}
}

// FuzzApplyLexicons: the map back holds — the text between the spans is
// the input's, and putting each span's input back gives the input — and
// every range of the text maps into the input, in order.
func FuzzApplyLexicons(f *testing.F) {
	l, err := lexicon.New("en", []lexicon.Lexeme{
		{Graphemes: []string{"WHO"}, Alias: "World Health Organization"},
		{Graphemes: []string{"Nguyen", "New York"}, Phonemes: "ŋwiən"},
		{Graphemes: []string{"é"}, Alias: "<|pause:1s|>"},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("We met the WHO in New York, <|slow|>Nguyen<|/slow|> é.")
	f.Add("<|phoneme:x|>WHO<|reset|>WHO<|spell|>é<|/spell|>é<|pause")
	f.Fuzz(func(t *testing.T, input string) {
		if !utf8.ValidString(input) {
			return
		}
		x := applyLexicons(input, []*lexicon.Lexicon{l}, nil)
		out, in := []rune(x.text), []rune(input)
		var back []rune
		at := 0
		for _, s := range x.spans {
			if s.out < at || s.outEnd < s.out || s.outEnd > len(out) || s.in > s.inEnd || s.inEnd > len(in) {
				t.Fatalf("span %+v after %d in %q", s, at, x.text)
			}
			back = append(append(back, out[at:s.out]...), in[s.in:s.inEnd]...)
			at = s.outEnd
		}
		if back = append(back, out[at:]...); string(back) != input {
			t.Fatalf("put back: %q, want %q (text %q)", string(back), input, x.text)
		}
		prev := 0
		for c := 0; c < len(out); c++ {
			a, b := x.source(c, c+1)
			if a < prev || b < a || b > len(in) {
				t.Fatalf("character %d of %q maps to [%d, %d) after %d", c, x.text, a, b, prev)
			}
			prev = a
		}
	})
}

// BenchmarkApplyLexicons is what a request's lexicons cost tts: the
// text of lexicon/testdata/bench.txt (about 1,000 characters) masked,
// looked up in a lexicon of lexicon.MaxLexemes entries and rewritten.
// Compare BenchmarkLexiconText, espeak-ng speaking the same text.
func BenchmarkApplyLexicons(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("..", "lexicon", "testdata", "bench.txt"))
	if err != nil {
		b.Fatal(err)
	}
	lexemes := []lexicon.Lexeme{
		{Graphemes: []string{"WHO"}, Alias: "World Health Organization"},
		{Graphemes: []string{"Nguyen"}, Phonemes: "ŋwiən"},
		{Graphemes: []string{"New York"}, Alias: "the Big Apple"},
	}
	for i := len(lexemes); i < lexicon.MaxLexemes; i++ {
		lexemes = append(lexemes, lexicon.Lexeme{Graphemes: []string{fmt.Sprintf("Word%dx", i)}, Alias: "a word"})
	}
	l, err := lexicon.New("en-US", lexemes)
	if err != nil {
		b.Fatal(err)
	}
	lexicons := []*lexicon.Lexicon{l}
	if x := applyLexicons(string(text), lexicons, nil); len(x.spans) != 4 {
		b.Fatalf("%d spans, want 4 (WHO, New York, and Nguyen's two tags)", len(x.spans))
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		applyLexicons(string(text), lexicons, nil)
	}
}
