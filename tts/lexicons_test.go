package tts_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/lexicontest"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

func parseLexicon(t testing.TB, alphabet, lexemes string) *lexicon.Lexicon {
	t.Helper()
	l, err := lexicon.Parse([]byte(`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="` +
		alphabet + `" xml:lang="en-US">` + lexemes + `</lexicon>`))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func whoLexicon(t testing.TB) *lexicon.Lexicon {
	return parseLexicon(t, "ipa", `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
<lexeme><grapheme>New York</grapheme><alias>the Big Apple</alias></lexeme>
<lexeme><grapheme>Yahoo! Inc</grapheme><alias>Yahoo Incorporated</alias></lexeme>`)
}

// texts passes requests to a real engine and keeps the text of each.
type texts struct {
	engine.Engine
	mu   sync.Mutex
	said []string
}

func (r *texts) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	r.mu.Lock()
	r.said = append(r.said, req.Text+"|"+req.Phonemes)
	r.mu.Unlock()
	return r.Engine.Synthesize(ctx, req, emit)
}

func (r *texts) Renders(f engine.Feature) bool { return engine.Renders(r.Engine, f) }

func (r *texts) Voices(ctx context.Context) ([]engine.Voice, error) {
	return r.Engine.(engine.VoiceLister).Voices(ctx)
}

func (r *texts) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.said, " / ")
}

func espeakTexts(t *testing.T, opts tts.Options) (*tts.Synthesizer, *texts) {
	t.Helper()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { es.Close() })
	rec := &texts{Engine: es}
	opts.Engines = map[string]engine.Engine{"espeak": rec}
	s, err := tts.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, rec
}

// wordAt finds the word named w in words.
func wordAt(words []tts.Word, w string) (tts.Word, bool) {
	i := slices.IndexFunc(words, func(x tts.Word) bool { return x.Word == w })
	if i < 0 {
		return tts.Word{}, false
	}
	return words[i], true
}

// TestLexiconAlias: an alias is what the engine reads, and the words
// point at the text as written: one Word "WHO" for the alias's three.
func TestLexiconAlias(t *testing.T) {
	s, rec := espeakTexts(t, tts.Options{})
	input := "We met the WHO today in New York."
	var words []tts.Word
	_, _, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: input, Format: encode.PCM,
		Lexicons:   []*lexicon.Lexicon{whoLexicon(t)},
		OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.all(); !strings.Contains(got, "We met the World Health Organization today in the Big Apple.") {
		t.Errorf("the engine read %q", got)
	}
	for _, want := range []tts.Word{{Word: "WHO", CharStart: 11, CharEnd: 14}, {Word: "today", CharStart: 15, CharEnd: 20}, {Word: "New York", CharStart: 24, CharEnd: 32}} {
		w, ok := wordAt(words, want.Word)
		if !ok || w.CharStart != want.CharStart || w.CharEnd != want.CharEnd || w.End <= w.Start {
			t.Errorf("words %+v: want %q at [%d, %d)", words, want.Word, want.CharStart, want.CharEnd)
		}
	}
	for _, w := range words {
		if w.Word == "World" || w.Word == "Apple" {
			t.Errorf("word %q of an alias named apart: %+v", w.Word, words)
		}
	}
	who, _ := wordAt(words, "WHO")
	today, _ := wordAt(words, "today")
	if who.End > today.Start || who.End-who.Start < today.End-today.Start {
		t.Errorf("WHO heard %v–%v, today %v–%v: WHO should last the alias's three words", who.Start, who.End, today.Start, today.End)
	}
}

// TestLexiconPrecedence: SSML's sub and phoneme come before the lexicon,
// which comes before normalization (which reads an alias's number as
// words, and a number no lexicon names).
func TestLexiconPrecedence(t *testing.T) {
	s, rec := espeakTexts(t, tts.Options{})
	lex := parseLexicon(t, "ipa", `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
<lexeme><grapheme>42</grapheme><alias>the answer</alias></lexeme>
<lexeme><grapheme>BA</grapheme><alias>Flight 7</alias></lexeme>`)
	input := `<speak>The <sub alias="WHO">agency</sub>, the WHO and <phoneme alphabet="ipa" ph="huː">WHO</phoneme> said 42 and 43 on BA.</speak>`
	var words []tts.Word
	_, _, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: input, Format: encode.PCM,
		Lexicons: []*lexicon.Lexicon{lex}, OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.all()
	if strings.Count(got, "World Health Organization") != 1 || !strings.Contains(got, "WHO|huː") ||
		!strings.Contains(got, "said the answer and forty three on Flight seven.") {
		t.Errorf("the engine read %q", got)
	}
	at := strings.Index(input, "the WHO") + 4
	if i := slices.IndexFunc(words, func(w tts.Word) bool { return w.CharStart == at }); i < 0 || words[i].Word != "WHO" || words[i].CharEnd != at+3 {
		t.Errorf("words %+v: want WHO, the alias's words as one, at [%d, %d)", words, at, at+3)
	}
}

// TestLexiconLimits: the aliases count against MaxInput; more than
// MaxLexicons lexicons are refused.
func TestLexiconLimits(t *testing.T) {
	s, _ := espeakTexts(t, tts.Options{MaxInput: 40})
	lex := []*lexicon.Lexicon{whoLexicon(t)}
	_, err := s.Prepare(tts.Request{Voice: "en-us", Input: "The WHO, the WHO.", Lexicons: lex})
	var long *tts.InputTooLongError
	if !errors.As(err, &long) || !long.Lexicons || long.Length != 17+2*22 || long.Max != 40 {
		t.Errorf("aliases past MaxInput: %v", err)
	}
	if _, err := s.Prepare(tts.Request{Voice: "en-us", Input: "The WHO.", Lexicons: lex}); err != nil {
		t.Errorf("aliases within MaxInput: %v", err)
	}
	ts, err := s.StreamText(context.Background(), io.Discard, tts.Request{Voice: "en-us", Lexicons: lex})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.WriteString("The WHO, the WHO. Next"); !errors.As(err, &long) || !long.Lexicons {
		t.Errorf("a stream's aliases past MaxInput: %v", err)
	}
	_, err = s.Prepare(tts.Request{Voice: "en-us", Input: "Hi.", Lexicons: make([]*lexicon.Lexicon, tts.MaxLexicons+1)})
	if !errors.Is(err, tts.ErrTooManyLexicons) {
		t.Errorf("%d lexicons: %v", tts.MaxLexicons+1, err)
	}
}

// TestLexiconTextStream: a grapheme split between writes still matches
// (a sentence waits for its end, and a sentence end inside a grapheme
// for the rest of it), and words point at the stream's text.
func TestLexiconTextStream(t *testing.T) {
	s, rec := espeakTexts(t, tts.Options{})
	var words []tts.Word
	ts, err := s.StreamText(context.Background(), io.Discard, tts.Request{Voice: "en-us", Format: encode.PCM,
		Lexicons: []*lexicon.Lexicon{whoLexicon(t)}, OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range []string{"First. We met the W", "HO today. Then New", " York", " slept. Yahoo!", " I", "nc paid."} {
		if _, err := ts.WriteString(piece); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	got := rec.all()
	if !strings.Contains(got, "We met the World Health Organization today.") || !strings.Contains(got, "Then the Big Apple slept.") ||
		!strings.Contains(got, "Yahoo Incorporated paid.") {
		t.Errorf("the engine read %q", got)
	}
	if w, ok := wordAt(words, "WHO"); !ok || w.CharStart != 18 || w.CharEnd != 21 {
		t.Errorf("words %+v: want WHO at [18, 21)", words)
	}
	if w, ok := wordAt(words, "New York"); !ok || w.CharStart != 34 || w.CharEnd != 42 {
		t.Errorf("words %+v: want New York at [34, 42)", words)
	}
}

// TestLexiconHeard: a recognizer, choosing between the alias and the
// word as written, hears "We met the WHO today." with the lexicon as the
// alias, and (the control) without it not.
func TestLexiconHeard(t *testing.T) {
	synth := listeningSynthesizer(t)
	alias := "we met the world health organization today"
	candidates := []string{alias, "we met the who today", "we met the w h o today"}
	heard := func(lexicons []*lexicon.Lexicon) string {
		wav, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: "We met the WHO today.", Format: encode.WAV, Lexicons: lexicons})
		if err != nil {
			t.Fatal(err)
		}
		return audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), candidates)
	}
	with, without := heard([]*lexicon.Lexicon{whoLexicon(t)}), heard(nil)
	t.Logf("with the lexicon heard %q, without %q", with, without)
	if with != alias {
		t.Errorf("with the lexicon heard %q, want %q", with, alias)
	}
	if without == alias {
		t.Errorf("without the lexicon heard the alias too: the test cannot tell")
	}
}

// TestLexiconPhonemeOnEngines: a phoneme entry (IPA, or X-SAMPA
// converted) reaches espeak-ng, Piper and Kokoro as the phonemes of its
// word, as SSML's phoneme does, and changes the audio of the word.
func TestLexiconPhonemeOnEngines(t *testing.T) {
	lexicons := []struct{ ipa, alphabet, phoneme string }{
		{"təˈmɑːtoʊ", "ipa", "təˈmɑːtoʊ"},
		{"təˈmeɪtoʊ", "x-sampa", `t@"meItoU`},
	}
	forPhonemeEngines(t, func(t *testing.T, eng engine.Engine, s *tts.Synthesizer, rec *recorder, voice string) {
		var audio [][]float32
		for _, l := range lexicons {
			lex := parseLexicon(t, l.alphabet, `<lexeme><grapheme>tomato</grapheme><phoneme>`+l.phoneme+`</phoneme></lexeme>`)
			var words []tts.Word
			_, res, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: voice, Input: "I say tomato twice.", Format: encode.PCM,
				Lexicons: []*lexicon.Lexicon{lex}, OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
			if err != nil {
				t.Fatal(err)
			}
			call := rec.last(t)
			if call.req.Phonemes != l.ipa || call.req.Text != "tomato" || len(res.IgnoredTags) > 0 {
				t.Errorf("%s: the engine got phonemes %q for %q, ignored %v", l.ipa, call.req.Phonemes, call.req.Text, res.IgnoredTags)
			}
			audio = append(audio, call.audio)
			if w, ok := wordAt(words, "tomato"); len(words) > 0 && (!ok || w.CharStart != 6 || w.CharEnd != 12) {
				t.Errorf("%s: words %+v, want tomato at [6, 12)", l.ipa, words)
			}
		}
		if slices.Equal(audio[0], audio[1]) {
			t.Error("təˈmɑːtoʊ and təˈmeɪtoʊ gave the same audio")
		}
	})
}

// BenchmarkLexiconText is espeak-ng speaking lexicon/testdata/bench.txt
// (about 1,000 characters), the text lexicon's BenchmarkFind looks up in
// a lexicon of lexicon.MaxLexemes entries: the two together give the
// share of a request's time that lexicon lookup takes.
func BenchmarkLexiconText(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("..", "lexicon", "testdata", "bench.txt"))
	if err != nil {
		b.Fatal(err)
	}
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer synth.Close()
	req := tts.Request{Voice: "en-us", Input: string(text), Format: encode.PCM}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := synth.WriteClip(context.Background(), io.Discard, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareHostile prepares "a " × 2048 (4,096 characters) naming
// a hostile 1 MiB lexicon (lexicontest.Hostile: its graphemes all begin
// alike, 250 characters deep) tts.MaxLexicons times: what a request
// costs before its synthesis (issue 40: 52.7 s of CPU when each grapheme
// was tried in turn).
func BenchmarkPrepareHostile(b *testing.B) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer synth.Close()
	l, err := lexicon.Parse(lexicontest.Hostile(lexicon.MaxBytes))
	if err != nil {
		b.Fatal(err)
	}
	req := tts.Request{Voice: "en-us", Input: lexicontest.HostileText(2048), Format: encode.PCM,
		Lexicons: slices.Repeat([]*lexicon.Lexicon{l}, tts.MaxLexicons)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := synth.Prepare(req); err != nil {
			b.Fatal(err)
		}
	}
}
