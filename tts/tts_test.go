package tts_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

func newSynth(t testing.TB, engines map[string]engine.Engine) *tts.Synthesizer {
	t.Helper()
	cat := new(voices.Catalog)
	for name, e := range engines {
		if err := cat.AddEngine(context.Background(), name, e, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	s, err := tts.New(tts.Options{Engines: engines, Voices: cat, MaxInput: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fakeSynth(t testing.TB, opts enginetest.FakeOptions) (*tts.Synthesizer, *enginetest.Fake) {
	f := enginetest.NewFake(opts)
	return newSynth(t, map[string]engine.Engine{"fake": f}), f
}

func TestSynthesizeWAV(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{SampleRate: 16000})
	wav, err := s.Synthesize(context.Background(), "fake", "Hi. Bye.", encode.WAV)
	if err != nil {
		t.Fatal(err)
	}
	if string(wav[:4]) != "RIFF" || string(wav[8:16]) != "WAVEfmt " {
		t.Fatalf("not a WAV header: %q", wav[:16])
	}
	if rate := binary.LittleEndian.Uint32(wav[24:]); rate != 24000 {
		t.Errorf("sample rate %d, want 24000", rate)
	}
	dataSize := binary.LittleEndian.Uint32(wav[40:])
	if int(dataSize) != len(wav)-44 {
		t.Errorf("data size %d, file has %d bytes of data", dataSize, len(wav)-44)
	}
	// "Hi." = 2 letters and a half-letter pause, "Bye." = 3 and a half:
	// 6 letters of 60 ms → 0.36 s at 24 kHz, 2 bytes a sample.
	want := 2 * (24000 * 360 / 1000)
	if int(dataSize) != want {
		t.Errorf("data size %d bytes, want %d", dataSize, want)
	}
}

func TestValidationErrors(t *testing.T) {
	var opts enginetest.FakeOptions
	if testing.Short() {
		opts.LetterDuration = time.Millisecond // the input at the limit says 4 s, not 4 min; make test the usual 60 ms
	}
	s, _ := fakeSynth(t, opts)
	tests := []struct {
		name string
		req  tts.Request
		want error
	}{
		{"unknown voice", tts.Request{Voice: "nobody", Input: "x", Format: encode.WAV}, engine.ErrUnknownVoice},
		{"empty", tts.Request{Voice: "fake", Input: "", Format: encode.WAV}, tts.ErrEmptyInput},
		{"blank", tts.Request{Voice: "fake", Input: " \n\t", Format: encode.WAV}, tts.ErrEmptyInput},
		{"too long", tts.Request{Voice: "fake", Input: strings.Repeat("é", 4097), Format: encode.WAV}, tts.ErrInputTooLong},
		{"format", tts.Request{Voice: "fake", Input: "x", Format: encode.Format{Name: "ogg-vorbis"}}, tts.ErrUnsupportedFormat},
		{"rate", tts.Request{Voice: "fake", Input: "x", Format: encode.Format{Name: "wav", SampleRate: 5}}, tts.ErrUnsupportedFormat},
		{"slow", tts.Request{Voice: "fake", Input: "x", Format: encode.WAV, Speed: 0.1}, tts.ErrBadSpeed},
		{"fast", tts.Request{Voice: "fake", Input: "x", Format: encode.WAV, Speed: 4.5}, tts.ErrBadSpeed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := s.Stream(context.Background(), &buf, tt.req)
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written before the error", buf.Len())
			}
		})
	}
	// Exactly at the limit is fine.
	if _, err := s.Synthesize(context.Background(), "fake", strings.Repeat("é", 4096), encode.PCM); err != nil {
		t.Errorf("input at the limit: %v", err)
	}
}

// flushRecorder records, at each Flush, how many bytes had been written.
type flushRecorder struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	flushes []int
	first   time.Time
	onFirst func() // called at the first write, when set
}

func (r *flushRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first.IsZero() && len(p) > 0 {
		r.first = time.Now()
		if r.onFirst != nil {
			r.onFirst()
		}
	}
	return r.buf.Write(p)
}

func (r *flushRecorder) Flush() {
	r.mu.Lock()
	r.flushes = append(r.flushes, r.buf.Len())
	r.mu.Unlock()
}

func TestStreamFlushesEachSentence(t *testing.T) {
	s, f := fakeSynth(t, enginetest.FakeOptions{SentenceDelay: 30 * time.Millisecond})
	input := strings.Repeat("A short sentence. ", 10)
	requested := -1 // sentences the engine had been asked for at the first write
	w := &flushRecorder{onFirst: func() { requested = len(f.Requests()) }}
	res, err := s.Stream(context.Background(), w, tts.Request{Voice: "fake", Input: input, Format: encode.Format{Name: "pcm", Streaming: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sentences != 10 {
		t.Errorf("%d sentences", res.Sentences)
	}
	if len(w.flushes) < 10 || w.flushes[0] == 0 {
		t.Fatalf("flushes at %v", w.flushes)
	}
	// Audio of the first sentence is out while the last ones are still
	// to be synthesized (on a machine of any speed).
	if requested < 1 || requested >= 10 {
		t.Errorf("first byte written when the engine had been asked for %d of 10 sentences", requested)
	}
	if res.Samples*2 != w.buf.Len() {
		t.Errorf("result says %d samples, %d bytes written", res.Samples, w.buf.Len())
	}
}

func TestSpeedShortensAudio(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{})
	ctx := context.Background()
	var normal, fast bytes.Buffer
	r1, err := s.Stream(ctx, &normal, tts.Request{Voice: "fake", Input: "Some words here.", Format: encode.PCM})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.Stream(ctx, &fast, tts.Request{Voice: "fake", Input: "Some words here.", Format: encode.PCM, Speed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(r2.Samples) / float64(r1.Samples); ratio < 0.45 || ratio > 0.55 {
		t.Errorf("speed 2 gives %.2f of the duration", ratio)
	}
}

func TestCancelStopsSynthesis(t *testing.T) {
	s, f := fakeSynth(t, enginetest.FakeOptions{SentenceDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfterFirstWrite{cancel: cancel, requested: func() int { return len(f.Requests()) }}
	_, err := s.Stream(ctx, w, tts.Request{Voice: "fake", Input: strings.Repeat("Again and again. ", 10), Format: encode.Format{Name: "pcm"}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// The request's goroutine and those rendering ahead (one a slot) may
	// each have begun a sentence as the cancel came; no more.
	if n := len(f.Requests()); n > w.before+runtime.GOMAXPROCS(0) {
		t.Errorf("%d sentences requested, %d of them before cancellation", n, w.before)
	}
}

type cancelAfterFirstWrite struct {
	cancel    func()
	requested func() int
	before    int
}

func (c *cancelAfterFirstWrite) Write(p []byte) (int, error) {
	if c.requested != nil && c.before == 0 {
		c.before = c.requested()
	}
	c.cancel()
	return len(p), nil
}

func TestEspeakWAVMatchesFFprobe(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSynth(t, map[string]engine.Engine{"espeak": e})
	wav, err := s.Synthesize(context.Background(), "en-us", "Hello world. This is voxkit speaking.", encode.WAV)
	if err != nil {
		t.Fatal(err)
	}
	p := audiotest.ProbeBytes(t, wav, "wav")
	if p.SampleRate != 24000 || p.Channels != 1 || p.SampleFmt != "s16" || p.Duration < 1.5 {
		t.Errorf("ffprobe reads %+v, want 24000 Hz mono s16 of about 2 s", p)
	}
}

const paragraph = `The old lighthouse stood at the edge of the cliff. Every night, its beam swept across the dark water. ` +
	`Sailors trusted it to guide them home. One winter, a storm knocked out the power. ` +
	`The keeper climbed the stairs with a lantern in his hand. He lit the wick and held it high. ` +
	`Far out at sea, a small boat saw the faint glow. The captain turned the wheel toward the light. ` +
	`By morning, the boat was safe in the harbor. The keeper slept until noon.`

// BenchmarkSynthesizeParagraph reports the real-time factor (synthesis
// time over audio duration) of a 10-sentence paragraph with espeak-ng.
func BenchmarkSynthesizeParagraph(b *testing.B) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := newSynth(b, map[string]engine.Engine{"espeak": e})
	for _, f := range []encode.Format{encode.WAV, encode.PCM} {
		b.Run(f.Name, func(b *testing.B) {
			b.ReportAllocs()
			var audio time.Duration
			for b.Loop() {
				var buf bytes.Buffer
				res, err := s.Stream(context.Background(), &buf, tts.Request{Voice: "en-us", Input: paragraph, Format: f})
				if err != nil {
					b.Fatal(err)
				}
				audio += res.Audio
			}
			b.ReportMetric(b.Elapsed().Seconds()/audio.Seconds(), "rtf")
			b.ReportMetric(audio.Seconds()/float64(b.N), "audio-s/op")
		})
	}
}

// TestEspeakIntelligible has a speech recognizer pick, among candidate
// sentences, the one the pipeline spoke, at several output rates.
func TestEspeakIntelligible(t *testing.T) {
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSynth(t, map[string]engine.Engine{"espeak": e})
	for i, rate := range []int{16000, 24000, 48000} {
		said := audiotest.Candidates[2*i]
		wav, err := s.Synthesize(context.Background(), "en-us", said+".", encode.Format{Name: "wav", SampleRate: rate})
		if err != nil {
			t.Fatal(err)
		}
		if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), audiotest.Candidates); heard != said {
			t.Errorf("at %d Hz: said %q, recognizer heard %q", rate, said, heard)
		}
	}
}

// firstWrite records when the first byte arrives.
type firstWrite struct{ at time.Time }

func (w *firstWrite) Write(p []byte) (int, error) {
	if w.at.IsZero() && len(p) > 0 {
		w.at = time.Now()
	}
	return len(p), nil
}

// BenchmarkTimeToFirstAudio shows that the time to the first pcm byte
// does not grow with the length of the input.
func BenchmarkTimeToFirstAudio(b *testing.B) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := newSynth(b, map[string]engine.Engine{"espeak": e})
	for _, n := range []int{1, 10, 40} {
		input := strings.Repeat("The keeper climbed the stairs with a lantern in his hand. ", n)
		b.Run(fmt.Sprintf("sentences=%d", n), func(b *testing.B) {
			var first time.Duration
			for b.Loop() {
				w := new(firstWrite)
				start := time.Now()
				if _, err := s.Stream(context.Background(), w, tts.Request{Voice: "en-us", Input: input, Format: encode.Format{Name: "pcm", Streaming: true}}); err != nil {
					b.Fatal(err)
				}
				first += w.at.Sub(start)
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ttfa-ms")
		})
	}
}

// slowWriter takes delay for every write.
type slowWriter struct{ delay time.Duration }

func (w slowWriter) Write(p []byte) (int, error) { time.Sleep(w.delay); return len(p), nil }

func TestSynthesisTimeLeavesOutBlockedWrites(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{SentenceDelay: 10 * time.Millisecond})
	start := time.Now()
	res, err := s.Stream(context.Background(), slowWriter{50 * time.Millisecond},
		tts.Request{Voice: "fake", Input: "One. Two. Three.", Format: encode.Format{Name: "pcm", Streaming: true}})
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	// Three sentences, each 10 ms of engine time and one 50 ms write;
	// the second and third may be rendered ahead while the first is
	// written (Options.Ahead), which the request then does not wait for.
	if res.EngineTime < 10*time.Millisecond || res.SynthesisTime < res.EngineTime {
		t.Errorf("engine %v, synthesis %v", res.EngineTime, res.SynthesisTime)
	}
	if res.SynthesisTime > total-150*time.Millisecond {
		t.Errorf("synthesis %v of %v in all counts blocked writes", res.SynthesisTime, total)
	}
}

// TestLoadAndSlotWait: with one render slot and two requests, Load shows
// one busy and one waiting, and the second request's Result says it
// waited.
func TestLoadAndSlotWait(t *testing.T) {
	f := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}, SentenceDelay: 200 * time.Millisecond})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "fake", f, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": f}, Voices: cat, MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Load(); l != (tts.Load{}) {
		t.Fatalf("idle load %+v", l)
	}
	results := make(chan tts.Result, 2)
	for range 2 {
		go func() {
			res, err := s.Stream(context.Background(), io.Discard, tts.Request{Voice: "fake", Input: "One sentence.", Format: encode.PCM})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	if !wait.For(10*time.Second, func() bool { return s.Load() == (tts.Load{Busy: 1, Waiting: 1}) }) {
		t.Fatalf("load never showed one busy and one waiting: %+v", s.Load())
	}
	a, b := <-results, <-results
	if waited := max(a.SlotWait, b.SlotWait); waited == 0 || min(a.SlotWait, b.SlotWait) > waited/2 {
		t.Errorf("slot waits %v and %v: want one request to have waited", a.SlotWait, b.SlotWait)
	}
	if l := s.Load(); l != (tts.Load{}) {
		t.Fatalf("load after %+v", l)
	}
}

// slowWriterAt is a slowWriter that also rewrites, as a file would.
type slowWriterAt struct{ slowWriter }

func (w slowWriterAt) WriteAt(p []byte, off int64) (int, error) {
	time.Sleep(w.delay)
	return len(p), nil
}

// TestSynthesisTimeCountsClipWrites checks that writing a complete clip
// through to an io.WriterAt, header rewrite included, is synthesis: the
// clip is made there, no reader waits on it.
func TestSynthesisTimeCountsClipWrites(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{})
	for _, name := range []string{"wav", "flac"} {
		t.Run(name, func(t *testing.T) {
			res, err := s.WriteClip(context.Background(), slowWriterAt{slowWriter{20 * time.Millisecond}},
				tts.Request{Voice: "fake", Input: "One. Two.", Format: encode.Format{Name: name}})
			if err != nil {
				t.Fatal(err)
			}
			// At least the header and the header's rewrite at Close.
			if res.SynthesisTime < 40*time.Millisecond {
				t.Errorf("synthesis %v leaves out the writes of the clip", res.SynthesisTime)
			}
		})
	}
}
