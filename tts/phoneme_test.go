package tts_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
)

// recorder passes requests to a real engine and keeps each phoneme
// request with the audio the engine made for it.
type recorder struct {
	engine.Engine
	mu    sync.Mutex
	calls []phonemeCall
}

type phonemeCall struct {
	req   engine.Request
	audio []float32
}

func (r *recorder) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	var audio []float32
	err := r.Engine.Synthesize(ctx, req, func(c engine.Chunk) error {
		audio = append(audio, c.Samples...)
		return emit(c)
	})
	if req.Phonemes != "" {
		r.mu.Lock()
		r.calls = append(r.calls, phonemeCall{req, audio})
		r.mu.Unlock()
	}
	return err
}

func (r *recorder) Renders(f engine.Feature) bool { return engine.Renders(r.Engine, f) }

func (r *recorder) Voices(ctx context.Context) ([]engine.Voice, error) {
	return r.Engine.(engine.VoiceLister).Voices(ctx)
}

func (r *recorder) UnknownPhonemes(ctx context.Context, voice, ipa string) ([]string, error) {
	return r.Engine.(engine.PhonemeChecker).UnknownPhonemes(ctx, voice, ipa)
}

func (r *recorder) last(t *testing.T) phonemeCall {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		t.Fatal("no phoneme request reached the engine")
	}
	return r.calls[len(r.calls)-1]
}

// TestSSMLPhonemeReachesEngines: an SSML phoneme in IPA reaches espeak-ng,
// Piper and Kokoro as Request.Phonemes with its text as written (not
// normalized), the audio heard is what the engine makes for exactly those
// phonemes (engine/espeak and engine/onnx check that those are the IPA
// asked for), two pronunciations differ, and the word's timestamp points
// at the element's text.
func TestSSMLPhonemeReachesEngines(t *testing.T) {
	forPhonemeEngines(t, func(t *testing.T, eng engine.Engine, s *tts.Synthesizer, rec *recorder, voice string) {
		var audio [][]float32
		for _, ph := range []string{"təˈmɑːtoʊ", "təˈmeɪtoʊ"} {
			input := `<speak>I say <phoneme alphabet="ipa" ph="` + ph + `">tomato 2</phoneme> twice.</speak>`
			var words []tts.Word
			_, res, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: voice, Input: input, Format: encode.PCM,
				OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
			if err != nil {
				t.Fatal(err)
			}
			call := rec.last(t)
			if call.req.Phonemes != ph || call.req.Text != "tomato 2" || len(res.IgnoredTags) > 0 {
				t.Errorf("%s: the engine got phonemes %q for %q, ignored %v", ph, call.req.Phonemes, call.req.Text, res.IgnoredTags)
			}
			// The same phonemes asked of the engine directly.
			direct, _, _ := collectAudio(t, eng, engine.Request{Voice: call.req.Voice, Text: "tomato 2", Phonemes: ph, Prosody: call.req.Prosody})
			// espeak-ng's length varies by a few samples from call to call.
			if d := len(call.audio) - len(direct); len(direct) == 0 || d*d > len(direct)*len(direct)/10000 {
				t.Errorf("%s: %d samples through tts, %d from the engine", ph, len(call.audio), len(direct))
			}
			audio = append(audio, call.audio)
			at := strings.Index(input, "tomato 2") // the word points at the SSML the caller sent
			want := tts.Word{Word: "tomato 2", CharStart: utf8.RuneCountInString(input[:at])}
			want.CharEnd = want.CharStart + 8
			i := slices.IndexFunc(words, func(w tts.Word) bool { return w.Word == "tomato 2" })
			if i < 0 || words[i].CharStart != want.CharStart || words[i].CharEnd != want.CharEnd || words[i].End <= words[i].Start {
				t.Errorf("%s: words %+v, want one %q at characters [%d, %d)", ph, words, want.Word, want.CharStart, want.CharEnd)
			}
		}
		if slices.Equal(audio[0], audio[1]) {
			t.Error("təˈmɑːtoʊ and təˈmeɪtoʊ gave the same audio")
		}
	})
}

// forPhonemeEngines runs f on espeak-ng, Piper and Kokoro (the
// engine/onnx fixtures), each behind a recorder in a Synthesizer of its
// own, with a voice of each.
func forPhonemeEngines(t *testing.T, f func(t *testing.T, eng engine.Engine, s *tts.Synthesizer, rec *recorder, voice string)) {
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { es.Close() })
	ox := onnxtest.Load(t, onnx.Options{
		Models:    []string{filepath.Join("..", "engine", "onnx", "testdata", "voices", "en_US-tone-medium.onnx")},
		VoicesDir: filepath.Join("..", "engine", "onnx", "testdata", "kokoro"),
	})
	for _, c := range []struct {
		name  string
		eng   engine.Engine
		voice string
	}{{"espeak", es, "en-us"}, {"piper", ox, "en_US-tone-medium"}, {"kokoro", ox, "af_heart"}} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{Engine: c.eng}
			s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{c.name: rec}})
			if err != nil {
				t.Fatal(err)
			}
			f(t, c.eng, s, rec, c.voice)
		})
	}
}

func collectAudio(t *testing.T, e engine.Engine, req engine.Request) ([]float32, int, error) {
	t.Helper()
	var out []float32
	rate := 0
	err := e.Synthesize(context.Background(), req, func(c engine.Chunk) error {
		out = append(out, c.Samples...)
		rate = c.SampleRate
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, rate, err
}

// TestSSMLPhonemeIgnored: what of a phoneme element is not heard is
// listed: another alphabet, an engine that takes no phonemes (its text is
// read, normalized), symbols the voice has no phoneme for.
func TestSSMLPhonemeIgnored(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{})
	ox := onnxtest.Load(t, onnx.Options{Models: []string{filepath.Join("..", "engine", "onnx", "testdata", "voices", "en_US-tone-medium.onnx")}})
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake, "onnx": ox}, Ahead: -1}) // the engine calls in the text's order: none rendered ahead
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ voice, input, ignored, text string }{
		{"fake", `<speak>I ate <phoneme alphabet="ipa" ph="wʌn">1</phoneme>.</speak>`, "phoneme", "I ate one."},
		{"fake", `<speak><phoneme alphabet="x-sampa" ph="wVn">1</phoneme></speak>`, "phoneme:x-sampa", "one"},
		{"en_US-tone-medium", `<speak><phoneme alphabet="ipa" ph="təʬˈmɑːtoʊ">tomato</phoneme></speak>`, `phoneme:\u02ac`, ""},
	} {
		before := len(fake.Requests())
		_, res, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: c.voice, Input: c.input})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.IgnoredTags, ","); got != c.ignored {
			t.Errorf("%s: ignored %q, want %q", c.input, got, c.ignored)
		}
		if c.text != "" {
			var texts []string
			for _, r := range fake.Requests()[before:] {
				texts = append(texts, r.Text)
			}
			if got := strings.Join(texts, " "); got != c.text {
				t.Errorf("%s: the engine read %q, want %q", c.input, got, c.text)
			}
		}
	}
}
