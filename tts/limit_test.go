package tts_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// A request over MaxAudio fails with ErrAudioTooLong: before anything is
// written when the estimate shows it, else as soon as the samples pass the
// limit, having written no more than the limit.
func TestAudioLimit(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "espeak", e, time.Now()); err != nil {
		t.Fatal(err)
	}
	const limit = 10 * time.Second
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": e}, Voices: cat, MaxAudio: limit})
	if err != nil {
		t.Fatal(err)
	}
	pcm := encode.Format{Name: "pcm"}
	for _, tc := range []struct {
		name, input string
		speed       float64
		before      bool // refused before synthesis
	}{
		{"pauses", "Hi." + strings.Repeat("<|pause:5|>", 3), 0, true},
		{"slow", strings.Repeat("Speech takes time. ", 10), 0.25, true},
		{"spelled", "<|spell|>" + strings.Repeat("abcdefghij", 8) + "<|/spell|>", 0, true},
		{"digits", "Hello. 1234567 8901234 5678901 2345678.", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tts.Request{Voice: "en-us", Input: tc.input, Speed: tc.speed, Format: pcm}
			_, verr := s.Prepare(req)
			var out bytes.Buffer
			_, err := s.Stream(context.Background(), &out, req)
			if !errors.Is(err, tts.ErrAudioTooLong) {
				t.Fatalf("Stream: %v, want ErrAudioTooLong", err)
			}
			if tc.before != errors.Is(verr, tts.ErrAudioTooLong) {
				t.Errorf("Validate: %v; refused before synthesis: want %v", verr, tc.before)
			}
			if got := time.Duration(out.Len()/2) * time.Second / 24000; got > limit || tc.before && got > 0 {
				t.Errorf("wrote %v of audio", got)
			}
		})
	}
	// Under the limit, the same voice speaks.
	if _, err := s.Synthesize(context.Background(), "en-us", "Hi."+strings.Repeat("<|pause:1|>", 3), pcm); err != nil {
		t.Error(err)
	}
}
