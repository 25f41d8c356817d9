package enginetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unicode"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/sentence"
)

// Fake is a deterministic engine. Each letter or digit becomes LetterDuration
// of a harmonic tone whose fundamental is the voice's pitch; each other
// character is a short silence. The speaking rate scales every duration.
// It records the requests it is given.
type Fake struct {
	opts FakeOptions

	mu       sync.Mutex
	requests []engine.Request
	closed   bool
}

// FakeOptions configure a Fake. The zero value works.
type FakeOptions struct {
	// SampleRate of the output; 0 means 16000.
	SampleRate int
	// Voices are the voice names; nil means {"fake"}. The i-th voice
	// speaks at a fundamental of 120 + 40·i Hz.
	Voices []string
	// LetterDuration is the sound of one letter at rate 1; 0 means 60 ms.
	LetterDuration time.Duration
	// SentenceDelay is slept before each sentence, to simulate a slow
	// engine. It ends early when the context is cancelled.
	SentenceDelay time.Duration
}

var _ engine.Engine = (*Fake)(nil)
var _ engine.VoiceLister = (*Fake)(nil)

// NewFake returns a Fake.
func NewFake(opts FakeOptions) *Fake {
	if opts.SampleRate <= 0 {
		opts.SampleRate = 16000
	}
	if opts.Voices == nil {
		opts.Voices = []string{"fake"}
	}
	if opts.LetterDuration <= 0 {
		opts.LetterDuration = 60 * time.Millisecond
	}
	return &Fake{opts: opts}
}

// Pitch returns the fundamental frequency of voice in hertz, 0 if the
// voice does not exist.
func (f *Fake) Pitch(voice string) float64 {
	i := slices.Index(f.opts.Voices, voice)
	if i < 0 {
		return 0
	}
	return 120 + 40*float64(i)
}

// Requests returns a copy of the requests received so far.
func (f *Fake) Requests() []engine.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// Voices lists the configured voices.
func (f *Fake) Voices(context.Context) ([]engine.Voice, error) {
	var out []engine.Voice
	for _, name := range f.opts.Voices {
		out = append(out, engine.Voice{Name: name, Language: "en-US", Description: "deterministic test voice"})
	}
	return out, nil
}

// Close marks the engine closed; later calls fail.
func (f *Fake) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}

// Synthesize renders req sentence by sentence, one chunk per sentence.
func (f *Fake) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	f.mu.Lock()
	closed := f.closed
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if closed {
		return fmt.Errorf("enginetest: fake %w", engine.ErrClosed)
	}
	pitch := f.Pitch(req.Voice)
	if pitch == 0 {
		return fmt.Errorf("enginetest: %w %q", engine.ErrUnknownVoice, req.Voice)
	}
	letter := int(f.opts.LetterDuration.Seconds() * float64(f.opts.SampleRate) / req.Prosody.RateOrDefault())
	for _, text := range sentence.Split(req.Text, 0) {
		if err := f.wait(ctx); err != nil {
			return err
		}
		var samples []float32
		for _, r := range text {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				samples = f.appendTone(samples, letter, pitch)
			} else {
				samples = append(samples, make([]float32, letter/2)...)
			}
		}
		if err := emit(engine.Chunk{Samples: samples, SampleRate: f.opts.SampleRate}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (f *Fake) wait(ctx context.Context) error {
	if f.opts.SentenceDelay <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(f.opts.SentenceDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// appendTone appends n samples of a three-harmonic tone at pitch hertz with
// short fades, so letters join without clicks.
func (f *Fake) appendTone(dst []float32, n int, pitch float64) []float32 {
	fade := min(n/2, f.opts.SampleRate/200)
	for i := range n {
		ph := 2 * math.Pi * pitch * float64(i) / float64(f.opts.SampleRate)
		v := 0.3*math.Sin(ph) + 0.15*math.Sin(2*ph) + 0.08*math.Sin(3*ph)
		if i < fade {
			v *= float64(i) / float64(fade)
		} else if n-i < fade {
			v *= float64(n-i) / float64(fade)
		}
		dst = append(dst, float32(v))
	}
	return dst
}
