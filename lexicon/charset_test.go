package lexicon_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/voxkit/voxkit/lexicon"
)

// TestParseDeclaredEncoding: a document in another encoding than UTF-8,
// as its XML declaration names it (or a UTF-16 byte order mark shows it),
// is read in it, where every one was refused with encoding/xml's
// 'encoding "ISO-8859-1" declared but Decoder.CharsetReader is nil'.
func TestParseDeclaredEncoding(t *testing.T) {
	body := `<lexeme><grapheme>café</grapheme><alias>coffee shop</alias></lexeme></lexicon>`
	doc := func(enc string) string { return strings.Replace(head, "UTF-8", enc, 1) + body }
	latin1 := func(s string) string {
		b := make([]byte, 0, len(s))
		for _, r := range s {
			b = append(b, byte(r))
		}
		return string(b)
	}
	utf16Doc := func(s string, big bool) string {
		u := utf16.Encode([]rune("\ufeff" + s))
		b := make([]byte, 0, 2*len(u))
		for _, c := range u {
			if big {
				b = append(b, byte(c>>8), byte(c))
			} else {
				b = append(b, byte(c), byte(c>>8))
			}
		}
		return string(b)
	}
	for name, d := range map[string]string{
		"ISO-8859-1":   latin1(doc("ISO-8859-1")),
		"windows-1252": latin1(doc("windows-1252")),
		"latin1":       latin1(doc("latin1")),
		"UTF-16LE BOM": utf16Doc(doc("UTF-16"), false),
		"UTF-16BE BOM": utf16Doc(doc("UTF-16"), true),
	} {
		t.Run(name, func(t *testing.T) {
			l, err := lexicon.Parse([]byte(d))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(l.Lexemes) != 1 || l.Lexemes[0].Graphemes[0] != "café" {
				t.Errorf("lexemes %+v, want café", l.Lexemes)
			}
		})
	}
	_, err := lexicon.Parse([]byte(doc("x-nonesuch")))
	var se *lexicon.SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, lexicon.ErrMalformed) || !strings.Contains(err.Error(), "x-nonesuch") {
		t.Errorf("an unknown encoding: %v, want a *SyntaxError naming it", err)
	}
}

// TestZeroLexicon: a Lexicon not made by Parse or New (its zero value)
// finds nothing, where Find panicked with an index out of range (a request
// naming &lexicon.Lexicon{} brought tts.Synthesizer.Stream down).
func TestZeroLexicon(t *testing.T) {
	zero := &lexicon.Lexicon{}
	if got := lexicon.Find("Hello WHO.", zero); len(got) != 0 {
		t.Errorf("Find: %+v", got)
	}
	if lexicon.Straddles("Hello WH", 7, zero) {
		t.Error("Straddles: true")
	}
	zero.Marshal()
	zero.Size()
}
