package lexicon_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
)

// FuzzParse: Parse never panics, and what it accepts is well formed and
// survives Marshal and Parse again.
func FuzzParse(f *testing.F) {
	f.Add(head + `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme></lexicon>`)
	f.Add(head + `<lexeme role="x"><grapheme>a b</grapheme><phoneme alphabet="x-sampa">t_S"{</phoneme><example>x</example></lexeme></lexicon>`)
	f.Add(`<lexicon version="1.0" alphabet="ipa"><meta/><lexeme><grapheme>&amp;</grapheme><phoneme prefer="true">ænd</phoneme><alias>and</alias></lexeme></lexicon>`)
	f.Add(`<lexicon version="1.0" alphabet="x-sampa"><lexeme><grapheme>x</grapheme></lexeme>`)
	f.Add(strings.Replace(head, "UTF-8", "ISO-8859-1", 1) + "<lexeme><grapheme>caf\xe9\x85</grapheme><alias>\x80\x9f</alias></lexeme></lexicon>")
	f.Add("\xff\xfe<\x00l\x00e\x00x\x00")
	f.Fuzz(func(t *testing.T, doc string) {
		l, err := lexicon.Parse([]byte(doc))
		if err != nil {
			return
		}
		for _, x := range l.Lexemes {
			if len(x.Graphemes) == 0 || (x.Alias == "") == (x.Phonemes == "") {
				t.Fatalf("accepted lexeme %+v", x)
			}
			for _, g := range x.Graphemes {
				if g == "" || g != strings.Join(strings.Fields(g), " ") {
					t.Fatalf("accepted grapheme %q", g)
				}
			}
		}
		again, err := lexicon.Parse(l.Marshal())
		if err != nil {
			t.Fatalf("Marshal's output fails: %v\n%s", err, l.Marshal())
		}
		if !reflect.DeepEqual(again.Lexemes, l.Lexemes) || again.Language != l.Language {
			t.Fatalf("round trip: %+v, want %+v", again, l)
		}
	})
}

// FuzzFind: matches are in order, apart, whole words and the graphemes
// they name.
func FuzzFind(f *testing.F) {
	l, err := lexicon.New("en", []lexicon.Lexeme{
		{Graphemes: []string{"WHO", "W.H.O."}, Alias: "World Health Organization"},
		{Graphemes: []string{"New", "New York", "New York City"}, Alias: "x"},
		{Graphemes: []string{"C++", "é", "Ω"}, Alias: "y"},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("We met the WHO in New  York City, W.H.O.'s C++ é.")
	f.Add("WHOM NewYork New\u00a0York xWHO ΩΩ Ω")
	f.Fuzz(func(t *testing.T, text string) {
		end := 0
		for _, m := range lexicon.Find(text, l) {
			if m.Start < end || m.End <= m.Start || m.End > len(text) {
				t.Fatalf("match [%d, %d) after %d in %q", m.Start, m.End, end, text)
			}
			end = m.End
			got := strings.Join(strings.Fields(text[m.Start:m.End]), " ")
			found := false
			for _, g := range m.Lexeme.Graphemes {
				found = found || g == got
			}
			if !found {
				t.Fatalf("match %q is none of %q", text[m.Start:m.End], m.Lexeme.Graphemes)
			}
			before, _ := utf8.DecodeLastRuneInString(text[:m.Start])
			after, _ := utf8.DecodeRuneInString(text[m.End:])
			if m.Start > 0 && isWordRune(before) || m.End < len(text) && isWordRune(after) {
				t.Fatalf("match %q in %q is not a whole word", text[m.Start:m.End], text)
			}
		}
	})
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}
