package tts_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
	"github.com/voxkit/voxkit/tts/normalize"
)

// TestNormalizeTextAppliesLexicons: NormalizeText reads the input as
// speech does, lexicons first: an alias is written in, then normalized
// (its numbers as words), and each span of the result points back at the
// input as written, contiguous and covering all of it.
func TestNormalizeTextAppliesLexicons(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	lex := parseLexicon(t, "ipa", `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
<lexeme><grapheme>V2</grapheme><alias>version 2</alias></lexeme>
<lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme>`)
	input := "The WHO paid $5 for V2 of the tomato app."
	plain, err := synth.NormalizeText("", "en-us", input)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Text, "World Health") {
		t.Fatalf("without lexicons: %q", plain.Text)
	}
	got, err := synth.NormalizeText("", "en-us", input, lex)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The World Health Organization paid five dollars for version two of the", "tomato", "app."} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("with lexicons: %q, want it to hold %q", got.Text, want)
		}
	}
	checkSpans(t, input, got)
	// The alias's words point at WHO, the grapheme as written.
	at := strings.Index(got.Text, "Health")
	if s, e := got.Source(at, at+len("Health")); input[s:e] != "WHO" {
		t.Errorf("%q of the reading comes from %q, want WHO", "Health", input[s:e])
	}
}

// checkSpans: t's spans cover text and input in order, each starting
// where the one before ended, on character boundaries; a copied span
// holds the input's own characters.
func checkSpans(t *testing.T, input string, n normalize.Text) {
	t.Helper()
	out, src := 0, 0
	for _, s := range n.Spans {
		if s.Out != out || s.Src != src || s.OutEnd < s.Out || s.SrcEnd < s.Src || s.SrcEnd > len(input) || s.OutEnd > len(n.Text) {
			t.Fatalf("span %+v after out %d, src %d (text %q)", s, out, src, n.Text)
		}
		if !utf8.RuneStart(input[min(s.Src, len(input)-1)]) || s.Copy && input[s.Src:s.SrcEnd] != n.Text[s.Out:s.OutEnd] {
			t.Errorf("span %+v: %q → %q", s, input[s.Src:s.SrcEnd], n.Text[s.Out:s.OutEnd])
		}
		out, src = s.OutEnd, s.SrcEnd
	}
	if out != len(n.Text) || src != len(input) {
		t.Errorf("the spans end at out %d of %d, src %d of %d", out, len(n.Text), src, len(input))
	}
}

// TestPreDecimalMoneySpoken: "3s. 6d." reaches the engine as "three
// shillings and sixpence", one sentence (the period after 3s does not
// end one).
func TestPreDecimalMoneySpoken(t *testing.T) {
	s, rec := espeakTexts(t, tts.Options{})
	if _, _, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: "The book cost 3s. 6d. in 1890.", Format: encode.PCM}); err != nil {
		t.Fatal(err)
	}
	if got := rec.all(); !strings.Contains(got, "three shillings and sixpence in eighteen ninety") || strings.Contains(got, "seconds") {
		t.Errorf("the engine read %q", got)
	}
}
