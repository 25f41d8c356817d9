package onnx

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/sentence"
)

// The voice made by testdata/gen/tone.py --align: a Piper model with
// piper1-gpl's alignment output, w_ceil = ceil((1 + id mod 4) ×
// length_scale) frames of alignHop samples per id.
const (
	toneAlign = "en_US-tonealign-low"
	alignDir  = "testdata/align"
	alignHop  = 200
)

// wordTexts are the texts the word timing tests speak, with the number of
// words whose timings must be estimated even with durations (their
// sentence's phoneme words do not pair with its text words).
var wordTexts = []struct {
	text      string
	estimated int
}{
	{"Hello, world!", 0},
	{"Don't stop; it's fine.", 0},
	{"Yes. No! Maybe?", 0},
	{"  The quick brown fox,   jumps over the lazy dog. ", 0},
	{"I have 42 apples.", 4},
	{"Hello there. I have 42 apples. Good night!", 4},
	{"Café “déjà vu”, again.", 0},
}

// spokenWord is a word of text the test expects: its bytes, and its
// samples when they are exact.
type spokenWord struct {
	text     string
	from, to int
	exact    bool
}

// textWordsOf returns the words of s by a rule of the test's own: runs of
// letters, digits and apostrophes, apostrophes trimmed.
func textWordsOf(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && !unicode.Is(unicode.Mn, r)
	}) {
		if f = strings.Trim(f, "'’"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// phonemeWordSamples walks the ids of phonemes as Piper builds them
// (^ _ p1 _ … pN _ $) with frames(id) samples each, and returns the
// samples of each word (from its first phoneme to the pad after its last;
// spaces separate words, punctuation belongs to none) and the total.
func phonemeWordSamples(c *Config, phonemes string, frames func(id int64) int) (words [][2]int, total int) {
	pad := c.PhonemeIDs['_'][0]
	length := func(ids []int64) int {
		n := 0
		for _, id := range ids {
			n += frames(id)
		}
		return n
	}
	pos := length(c.PhonemeIDs['^']) + frames(pad)
	in := false
	for _, r := range norm.NFD.String(phonemes) {
		ids, ok := c.PhonemeIDs[r]
		if !ok {
			continue
		}
		d := length(ids) + frames(pad)
		switch {
		case r == ' ':
			in = false
		case unicode.IsPunct(r):
		default:
			if !in {
				words = append(words, [2]int{pos, 0})
				in = true
			}
			words[len(words)-1][1] = pos + d
		}
		pos += d
	}
	return words, pos + length(c.PhonemeIDs['$'])
}

// expectedWords returns the words of text as the align voice should time
// them at length scale ls: exact samples for the words of sentences whose
// word counts agree.
func expectedWords(t *testing.T, c *Config, text string, ls float64) []spokenWord {
	t.Helper()
	frames := func(id int64) int { return alignHop * int(math.Ceil(float64(1+id%4)*ls)) }
	var out []spokenWord
	at := 0
	for _, piece := range sentence.Split(text, 0) {
		clauses, err := phonemizer(t).Phonemize(context.Background(), c.EspeakVoice, piece)
		if err != nil {
			t.Fatal(err)
		}
		sentences := sentencesOf(clauses)
		segs := []string{piece}
		if len(sentences) > 1 {
			segs = nil
			for _, s := range textSentences(piece, span{0, len(piece)}) {
				segs = append(segs, piece[s.from:s.to])
			}
		}
		for i, ph := range sentences {
			pw, total := phonemeWordSamples(c, ph, frames)
			tw := textWordsOf(segs[i])
			for j, w := range tw {
				sw := spokenWord{text: w, exact: len(tw) == len(pw)}
				if sw.exact {
					sw.from, sw.to = at+pw[j][0], at+pw[j][1]
				}
				out = append(out, sw)
			}
			at += total
		}
	}
	return out
}

// checkChunkWords synthesizes req and checks that each chunk's words
// begin in that chunk; it returns the clip.
func checkChunkWords(t *testing.T, e engine.Engine, req engine.Request) enginetest.Clip {
	t.Helper()
	var c enginetest.Clip
	err := e.Synthesize(context.Background(), req, func(ch engine.Chunk) error {
		for _, w := range ch.Words {
			if w.From < len(c.Samples) || w.From >= len(c.Samples)+len(ch.Samples) {
				t.Errorf("%q: word %q at sample %d is not in its chunk [%d,%d)", req.Text, req.Text[w.Start:w.End], w.From, len(c.Samples), len(c.Samples)+len(ch.Samples))
			}
		}
		c.Samples = append(c.Samples, ch.Samples...)
		c.Words = append(c.Words, ch.Words...)
		c.SampleRate = ch.SampleRate
		c.Chunks++
		return nil
	})
	if err != nil {
		t.Fatalf("Synthesize(%q): %v", req.Text, err)
	}
	return c
}

// TestWordTimingsExact speaks texts with the alignment voice: words of
// sentences whose word counts agree are timed exactly from the durations
// (cumulative frames × hop_length, the pause after each word left out),
// the others (a number read as two words) are estimated, every word
// slices back out of the text, and samples count from the call's first
// sample across sentences.
func TestWordTimingsExact(t *testing.T) {
	e := load(t, Options{Models: []string{filepath.Join(alignDir, toneAlign+".onnx")}})
	cfg := e.models[toneAlign].cfg
	if cfg.HopLength != alignHop {
		t.Fatalf("hop_length %d, want %d", cfg.HopLength, alignHop)
	}
	for _, rate := range []float64{1, 2} {
		for _, tt := range wordTexts {
			t.Run(fmt.Sprintf("%s@%g", strings.TrimSpace(tt.text), rate), func(t *testing.T) {
				req := engine.Request{Voice: toneAlign, Text: tt.text, Prosody: engine.Prosody{Rate: rate}}
				clip := checkChunkWords(t, e, req)
				if enginetest.CheckWords(t, tt.text, clip) > 0 {
					return
				}
				want := expectedWords(t, cfg, tt.text, 1/rate)
				if len(clip.Words) != len(want) {
					t.Fatalf("%d words %v, want %d", len(clip.Words), clip.Words, len(want))
				}
				estimated := 0
				for i, w := range clip.Words {
					ww := want[i]
					if got := tt.text[w.Start:w.End]; got != ww.text {
						t.Errorf("word %d: text[%d:%d] = %q, want %q", i, w.Start, w.End, got, ww.text)
					}
					if w.Estimated {
						estimated++
					}
					if w.Estimated == ww.exact {
						t.Errorf("word %d %q: Estimated %v", i, ww.text, w.Estimated)
					}
					if ww.exact && (w.From != ww.from || w.To != ww.to) {
						t.Errorf("word %d %q: samples [%d,%d), want [%d,%d)", i, ww.text, w.From, w.To, ww.from, ww.to)
					}
				}
				if estimated != tt.estimated {
					t.Errorf("%d words estimated, want %d", estimated, tt.estimated)
				}
			})
		}
	}
}

// TestWordTimingsEstimated: a voice without durations times every word
// by estimate, in order, within the audio, and in proportion: a word's
// share of the audio grows with its phonemes.
func TestWordTimingsEstimated(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	for _, tt := range wordTexts {
		t.Run(strings.TrimSpace(tt.text), func(t *testing.T) {
			clip := checkChunkWords(t, e, engine.Request{Voice: toneLow, Text: tt.text})
			if enginetest.CheckWords(t, tt.text, clip) > 0 {
				return
			}
			want := textWordsOf(tt.text)
			var got []string
			for _, w := range clip.Words {
				got = append(got, tt.text[w.Start:w.End])
				if !w.Estimated {
					t.Errorf("word %q is not Estimated", tt.text[w.Start:w.End])
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("words %q, want %q", got, want)
			}
		})
	}
	text := "A extraordinarily long word."
	clip := checkChunkWords(t, e, engine.Request{Voice: toneLow, Text: text})
	if len(clip.Words) != 4 {
		t.Fatalf("words %v", clip.Words)
	}
	if a, long := clip.Words[0], clip.Words[1]; long.To-long.From < 5*(a.To-a.From) {
		t.Errorf("%q takes %d samples, %q %d", "extraordinarily", long.To-long.From, "A", a.To-a.From)
	}
}

// TestKokoroWordTimings: a Kokoro export with a duration output
// (kokoro-zh's, frames of 600 samples per token) gives exact timings, one
// without (kokoro-v1.0) estimates.
func TestKokoroWordTimings(t *testing.T) {
	e := load(t, Options{VoicesDir: kokoroDir})
	const text = "Hello there, my friend. Good night!"
	for _, tt := range []struct {
		voice, model string
		timed        bool
	}{
		{"af_maple", "kokoro-zh", true},
		{"af_heart", "kokoro-v1.0", false},
	} {
		t.Run(tt.voice, func(t *testing.T) {
			clip := checkChunkWords(t, e, engine.Request{Voice: tt.voice, Text: text})
			if enginetest.CheckWords(t, text, clip) > 0 {
				return
			}
			words := textWordsOf(text)
			if len(clip.Words) != len(words) {
				t.Fatalf("%d words, want %d", len(clip.Words), len(words))
			}
			lang, _ := kokoroLanguageOf(tt.voice)
			at, i := 0, 0
			for _, piece := range sentence.Split(text, 0) {
				clauses, err := phonemizer(t).(TiePhonemizer).PhonemizeTied(context.Background(), lang.espeak, piece)
				if err != nil {
					t.Fatal(err)
				}
				ph := lang.kokoroPhonemes(strings.Join(clauses, " "))
				n := len(kokoroTokens(ph))
				d := 600 * kokoroFrames(e.models[tt.model].kokoro.packs[tt.voice].row(n), 1)
				// Token k (after the pad) starts at (k+1) × d.
				k, in := 0, false
				for _, r := range ph {
					if _, ok := kokoroVocab[r]; !ok {
						continue
					}
					k++
					punct := unicode.IsPunct(r)
					switch {
					case r == ' ':
						in = false
					case punct:
					case !in:
						in = true
						w := clip.Words[i]
						if got := text[w.Start:w.End]; got != words[i] {
							t.Errorf("word %d: %q, want %q", i, got, words[i])
						}
						if w.Estimated == tt.timed {
							t.Errorf("word %q: Estimated %v", words[i], w.Estimated)
						}
						if tt.timed && w.From != at+k*d {
							t.Errorf("word %q starts at %d, want %d", words[i], w.From, at+k*d)
						}
						i++
					}
					if tt.timed && in && !punct && clip.Words[i-1].To < at+(k+1)*d {
						t.Errorf("word %q ends at %d, before its token %d ends at %d", words[i-1], clip.Words[i-1].To, k, at+(k+1)*d)
					}
				}
				at += (n + 2) * d
			}
		})
	}
}

func TestTextWords(t *testing.T) {
	text := "  'Twas 42 o’clock — rock'n'roll! Café, déjà-vu... '"
	var got []string
	for _, w := range textWords(text, 0, len(text)) {
		got = append(got, text[w.from:w.to])
	}
	want := []string{"Twas", "42", "o’clock", "rock'n'roll", "Café", "déjà", "vu"}
	if !slices.Equal(got, want) {
		t.Errorf("textWords: %q, want %q", got, want)
	}
	if w := textWords(text, 8, 10); len(w) != 1 || text[w[0].from:w[0].to] != "42" {
		t.Errorf("textWords of a part: %v", w)
	}
}

func TestTextSentences(t *testing.T) {
	text := "x He said “hi.” Then… left! Dr. Who?! 3.5 it is"
	var got []string
	for _, s := range textSentences(text, span{2, len(text)}) {
		got = append(got, strings.TrimSpace(text[s.from:s.to]))
	}
	want := []string{"He said “hi.”", "Then…", "left!", "Dr.", "Who?!", "3.5 it is"}
	if !slices.Equal(got, want) {
		t.Errorf("textSentences: %q, want %q", got, want)
	}
}

func TestDealWords(t *testing.T) {
	text := "Dr. Smith is in. He has 42 cats!"
	whole := span{0, len(text)}
	words := func(groups [][]span) [][]string {
		var out [][]string
		for _, g := range groups {
			var ws []string
			for _, w := range g {
				ws = append(ws, text[w.from:w.to])
			}
			out = append(out, ws)
		}
		return out
	}
	for _, tt := range []struct {
		counts []int
		want   string
		sure   []bool
	}{
		// The counts add up: in order, all sure.
		{[]int{1, 3, 4}, "[[Dr] [Smith is in] [He has 42 cats]]", []bool{true, true, true}},
		// As many sentences as runs: by sentence, sure where counts agree.
		{[]int{1, 3, 5}, "[[Dr] [Smith is in] [He has 42 cats]]", []bool{true, true, false}},
		// Otherwise ("Dr." ends a sentence of the text: three against two
		// runs) in proportion.
		{[]int{4, 5}, "[[Dr Smith is in] [He has 42 cats]]", []bool{false, false}},
		{[]int{0, 9}, "[[] [Dr Smith is in He has 42 cats]]", []bool{false, false}},
	} {
		groups, sure := dealWords(text, whole, tt.counts)
		if got := fmt.Sprint(words(groups)); got != tt.want || !slices.Equal(sure, tt.sure) {
			t.Errorf("counts %v: %s %v, want %s %v", tt.counts, got, sure, tt.want, tt.sure)
		}
	}
}

// TestRunWordsProportional: estimated words share out the speech (the
// phoneme words, pauses left out) by length, in order, without
// overlapping, and never start in a pause.
func TestRunWordsProportional(t *testing.T) {
	text := "Call 911 now"
	words := textWords(text, 0, len(text))
	phon := []span{{100, 300}, {400, 500}, {600, 700}, {800, 900}, {1000, 1200}}
	got := runWords(text, words, phon, false, true, 50, 1300)
	if len(got) != 3 {
		t.Fatalf("words %v", got)
	}
	prevTo := 0
	for i, w := range got {
		if !w.Estimated || w.From < prevTo || w.To <= w.From || w.From < 150 || w.To > 1250 {
			t.Errorf("word %d: %+v", i, w)
		}
		prevTo = w.To
	}
	// Weights 4, 9 (three digits), 3 of 16 share 700 samples of speech:
	// 175, 393.75, 131.25, laid over the phoneme words.
	want := []engine.Word{
		{Start: 0, End: 4, From: 150, To: 325, Estimated: true},
		{Start: 5, End: 8, From: 325, To: 1119, Estimated: true},
		{Start: 9, End: 12, From: 1119, To: 1250, Estimated: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("runWords:\n got %v\nwant %v", got, want)
	}
	sure := runWords(text, words, phon[:3], true, true, 0, 1300)
	if sure[1].From != 400 || sure[1].To != 500 || sure[1].Estimated {
		t.Errorf("paired words: %v", sure)
	}
}

func TestHopLength(t *testing.T) {
	if c := mustParse(t, func(map[string]any) {}); c.HopLength != 256 {
		t.Errorf("default hop_length %d, want 256", c.HopLength)
	}
	if c := mustParse(t, func(r map[string]any) { r["hop_length"] = 300 }); c.HopLength != 300 {
		t.Errorf("hop_length %d, want 300", c.HopLength)
	}
	if _, err := ParseConfig(configJSON(t, func(r map[string]any) { r["hop_length"] = 0 })); err == nil {
		t.Error("hop_length 0 accepted")
	}
}

// TestWordTimingsHardTexts: texts whose sentences espeak-ng cuts or reads
// otherwise than the text's words still give valid timings of every word,
// in order, with and without durations.
func TestWordTimingsHardTexts(t *testing.T) {
	e := load(t, Options{Models: []string{filepath.Join(alignDir, toneAlign+".onnx"), fixtureModels(toneLow)[0]}})
	texts := []string{
		"Mr. Smith arrived at 5 p.m. today, e.g. on time.",
		"The U.S. costs $5.99 — or 10%... Well-known facts!",
		"He said “hi.” Then he left.",
		"3.14159 is pi; 1,000,000 is a million.",
		"... !!! ???",
		"Ünïcödé wörds ånd ﬁne ligatures.",
	}
	for v, voice := range []string{toneAlign, toneLow} {
		for i, text := range texts {
			if testing.Short() && i%2 != v {
				continue // each text with one of the voices; make test speaks each with both
			}
			clip := checkChunkWords(t, e, engine.Request{Voice: voice, Text: text})
			if enginetest.CheckWords(t, text, clip) > 0 {
				continue
			}
			want := textWordsOf(text)
			var got []string
			for _, w := range clip.Words {
				got = append(got, text[w.Start:w.End])
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %q: words %q, want %q", voice, text, got, want)
			}
		}
	}
}
