package tts

import (
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
