//go:build cgo

package espeak

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// spokenIPA returns the IPA of the phonemes espeak-ng synthesized for
// the request, as its phoneme events name them, run together.
func spokenIPA(t *testing.T, e *Engine, req engine.Request) string {
	t.Helper()
	var spoken []string
	samples, _, err := e.phonemeAudio(context.Background(), req, &spoken)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) == 0 {
		t.Fatalf("%q: no audio", req.Phonemes)
	}
	return strings.Join(spoken, "")
}

// bare is IPA without stress marks and spaces, as espeak-ng's phoneme
// events name the phonemes.
func bare(ipa string) string {
	return strings.NewReplacer("ˈ", "", "ˌ", "", " ", "").Replace(ipa)
}

// TestPhonemesSpokenAsAsked: the phonemes espeak-ng synthesizes (its
// phoneme events) for IPA input are the IPA asked for, and two
// pronunciations of one word give two different sequences.
func TestPhonemesSpokenAsAsked(t *testing.T) {
	e := newEngine(t)
	for _, c := range []struct{ voice, ipa string }{
		{"en-us", "təˈmɑːtoʊ"},
		{"en-us", "təˈmeɪtoʊ"},
		{"en-us", "ðə ˈkæt sæt"},
		{"en-us", "həˈloʊ ˈwɜːld"},
		{"en-us", "ˈbʌtɚ"},
		{"en-us", "ˈbʌɾɚ"},
		{"en-us", "ˈtʃɜːtʃ ˈdʒʌdʒ"},
		{"en-us", "θɪŋk ˈmɛʒɚ"},
		{"en-us", "ʃiː jɛs ˈbɔɪ ˈhaʊs ˈfaɪv ˈhʊk ˈfuːd ˈθɔːt"},
		{"en-gb", "təˈmɑːtəʊ"},
		{"en-gb", "ˈhɒt ˈpɑːθ ˈniə ˈkjʊə ˈfeə"},
	} {
		got := spokenIPA(t, e, engine.Request{Voice: c.voice, Text: "x", Phonemes: c.ipa})
		if got != bare(c.ipa) {
			t.Errorf("%s %q: espeak-ng said %q, want %q", c.voice, c.ipa, got, bare(c.ipa))
		}
	}
	a := spokenIPA(t, e, engine.Request{Voice: "en-us", Phonemes: "təˈmɑːtoʊ"})
	b := spokenIPA(t, e, engine.Request{Voice: "en-us", Phonemes: "təˈmeɪtoʊ"})
	if a == b {
		t.Errorf("təˈmɑːtoʊ and təˈmeɪtoʊ both said %q", a)
	}
}

// TestPhonemeInputDoesNotLeak: after phoneme input, [[ ]] in text is text
// again (espeak-ng keeps the flag until the next synthesis).
func TestPhonemeInputDoesNotLeak(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	before, err := e.Phonemize(ctx, "en-us", "say [[h@l'oU]] now")
	if err != nil {
		t.Fatal(err)
	}
	spokenIPA(t, e, engine.Request{Voice: "en-us", Phonemes: "həˈloʊ"})
	after, err := e.Phonemize(ctx, "en-us", "say [[h@l'oU]] now")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Errorf("phonemes of text with [[ ]]: %q before phoneme input, %q after", before, after)
	}
}

func TestMnemonics(t *testing.T) {
	for _, c := range []struct{ ipa, want, unknown string }{
		{"təˈmɑːtoʊ", "t2@'mA:t2oU", ""},
		{"ðə  ˈkæt_sæt", "D@ 'kat2 sat2", ""},
		{"t͡ʃɜː.tʃ", "tS3:tS", ""},
		{"ʘaʘ ɬ", "a", "ʘ,ɬ"},
		{"ˌʌnˈnoʊn", ",Vn'noUn", ""},
	} {
		got, unknown := mnemonics(c.ipa)
		if got != c.want || strings.Join(unknown, ",") != c.unknown {
			t.Errorf("mnemonics(%q) = %q %q, want %q %q", c.ipa, got, unknown, c.want, c.unknown)
		}
	}
}

// TestSpeakPhonemes: a phoneme request gives audio and one word over the
// text.
func TestSpeakPhonemes(t *testing.T) {
	e := newEngine(t)
	var words []engine.Word
	n := 0
	err := e.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: " tomato.", Phonemes: "təˈmɑːtoʊ", Words: true}, func(c engine.Chunk) error {
		words = append(words, c.Words...)
		n += len(c.Samples)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || len(words) != 1 || words[0].Start != 1 || words[0].End != 7 || words[0].From >= words[0].To || words[0].To > n {
		t.Errorf("%d samples, words %+v", n, words)
	}
}
