package onnx

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// symbolsOf reads the phoneme symbols a tone voice was fed back from its
// audio (one sine per id): the ids between the pads, each turned into
// the symbol of the voice's phoneme_id_map that has it.
func symbolsOf(t *testing.T, e *Engine, voice string, audio []float32) string {
	t.Helper()
	m, _, err := e.lookup(voice)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int]rune{}
	for r, ids := range m.cfg.PhonemeIDs {
		if len(ids) == 1 {
			byID[int(ids[0])] = r
		}
	}
	bins, _ := decodeTones(audio, samplesPerID(m.cfg.LengthScale))
	if len(bins) < 3 || bins[0] != 1 || bins[len(bins)-1] != 2 {
		t.Fatalf("ids %v: want ^ … $", bins)
	}
	var b strings.Builder
	for i, id := range bins[1 : len(bins)-1] {
		if i%2 == 0 { // the pads between phonemes
			if id != 0 {
				t.Fatalf("ids %v: no pad at %d", bins, i+1)
			}
			continue
		}
		b.WriteRune(byID[id])
	}
	return b.String()
}

// TestPiperSpeaksPhonemes: a Piper voice fed Request.Phonemes speaks
// exactly those symbols (read back from the tone voice's audio), whatever
// the text, and leaves out those its map lacks.
func TestPiperSpeaksPhonemes(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneMedium)})
	ctx := context.Background()
	for _, c := range []struct{ ipa, want string }{
		{"təˈmɑːtoʊ", "təˈmɑːtoʊ"},
		{"təˈmeɪtoʊ", "təˈmeɪtoʊ"},
		{"ðə ˈkæt", "ðə ˈkæt"},
		{"təʬˈmɑːtoʊ", "təˈmɑːtoʊ"}, // ʬ: no id, left out
	} {
		audio, _, _ := collect(t, e, engine.Request{Voice: toneMedium, Text: "tomato", Phonemes: c.ipa})
		if got := symbolsOf(t, e, toneMedium, audio); got != c.want {
			t.Errorf("%q: the voice said %q, want %q", c.ipa, got, c.want)
		}
	}
	unknown, err := e.UnknownPhonemes(ctx, toneMedium, "təʬˈmɑːtoʊ ʬʭ ʘ")
	if err != nil || !slices.Equal(unknown, []string{"ʬ", "ʭ"}) {
		t.Errorf("UnknownPhonemes = %q, %v; want ʬ ʭ", unknown, err)
	}
	var words []engine.Word
	err = e.Synthesize(ctx, engine.Request{Voice: toneMedium, Text: " tomato!", Phonemes: "təˈmɑːtoʊ", Words: true}, func(c engine.Chunk) error {
		words = append(words, c.Words...)
		return nil
	})
	if err != nil || len(words) != 1 || words[0].Start != 1 || words[0].End != 7 {
		t.Errorf("words %+v, %v: want one over \"tomato\"", words, err)
	}
}

// kokoroTokensOf reads the tokens a Kokoro fixture voice was fed back
// from its audio: frames of 600 samples, each a sine of the token id's
// cycles, d frames per token; the pads (silent) are dropped.
func kokoroTokensOf(audio []float32, d int) []int64 {
	var out []int64
	seg := d * kokoroFrame
	for start := 0; start+seg <= len(audio); start += seg {
		x := audio[start : start+kokoroFrame]
		best, bestPow := 0, 1e-9
		for k := 1; k < 178; k++ {
			if p := goertzel(x, float64(k)/kokoroFrame); p > bestPow {
				best, bestPow = k, p
			}
		}
		if energy := goertzel(x, float64(best)/kokoroFrame); best > 0 && energy > 1e-6 && !math.IsNaN(energy) {
			out = append(out, int64(best))
		}
	}
	return out
}

// TestKokoroSpeaksPhonemes: a Kokoro voice fed Request.Phonemes speaks
// the IPA through misaki's table (oʊ as "O", eɪ as "A", length marks gone
// in American English), read back from the fixture's audio.
func TestKokoroSpeaksPhonemes(t *testing.T) {
	e := load(t, Options{VoicesDir: kokoroDir})
	ctx := context.Background()
	for _, c := range []struct{ voice, ipa, want string }{
		{"af_heart", "təˈmɑːtoʊ", "təˈmɑtO"},
		{"af_heart", "təˈmeɪtoʊ", "təˈmAtO"},
		{"af_heart", "ˈtʃɜːtʃ", "ˈʧɜɹʧ"},
		{"bf_emma", "təˈmɑːtəʊ", "təˈmɑːtQ"},
		{"af_heart", "tə\u0298ˈmɑːtoʊ", "təˈmɑtO"},
	} {
		audio, rate, _ := collect(t, e, engine.Request{Voice: c.voice, Text: "tomato", Phonemes: c.ipa})
		want := kokoroTokens(c.want)
		v, err := e.kokoroVoice(c.voice)
		if err != nil {
			t.Fatal(err)
		}
		d := kokoroFrames(v.style.row(len(want)), 1)
		if got := kokoroTokensOf(audio, d); rate != KokoroSampleRate || !slices.Equal(got, want) {
			t.Errorf("%s %q: tokens %v at %d Hz, want %v (%q)", c.voice, c.ipa, got, rate, want, c.want)
		}
	}
	unknown, err := e.UnknownPhonemes(ctx, "af_heart", "tə\u0298ˈmɑːtoʊ")
	if err != nil || !slices.Equal(unknown, []string{"\u0298"}) {
		t.Errorf("UnknownPhonemes = %q, %v; want ʘ", unknown, err)
	}
}
