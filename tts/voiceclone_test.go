package tts_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// cloneSynth is a synthesizer over one engine whose global voice base has
// derived voices owned by account "acct", one per style.
func cloneSynth(t *testing.T, eng engine.Engine, base string, styles map[string]tags.Style) *tts.Synthesizer {
	t.Helper()
	cat := new(voices.Catalog)
	if err := cat.Add(voices.Voice{ID: base, Engine: "e", EngineVoice: base}); err != nil {
		t.Fatal(err)
	}
	for id, st := range styles {
		if err := cat.Add(voices.Voice{ID: id, Owner: "acct", Base: base, Style: st}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"e": eng}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sayAs(t *testing.T, s *tts.Synthesizer, req tts.Request) []float32 {
	t.Helper()
	req.Format = encode.PCM
	if req.Account == "" {
		req.Account = "acct"
	}
	var buf bytes.Buffer
	if _, err := s.Stream(context.Background(), &buf, req); err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	x := make([]float32, buf.Len()/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(buf.Bytes()[2*i:]))) / 32768
	}
	return x
}

// TestCloneStyle checks that a derived voice speaks with its base voice's
// engine and its stored style under the input's tags, on the fake engine
// (which renders the rate; the rest is the DSP stage).
func TestCloneStyle(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})
	s := cloneSynth(t, fake, "fake", map[string]tags.Style{
		"fast": {Rate: 2},
		"high": {Pitch: 4},
		"soft": {Gain: 20 * math.Log10(0.5)},
	})
	plain := sayAs(t, s, tts.Request{Voice: "fake", Input: sample})
	f0, rms, dur := audiotest.EstimateF0(plain, pcmRate), dsp.RMS(plain), seconds(plain)
	tests := []struct {
		name              string
		req               tts.Request
		dur, f0, loudness float64 // ratios to plain; loudness 0 is not checked
	}{
		{"speed 2", tts.Request{Voice: "fast", Input: sample}, 0.5, 1, 1},
		{"request speed multiplies", tts.Request{Voice: "fast", Input: sample, Speed: 1.5}, 1 / 3.0, 1, 0},
		{"a rate tag overrides", tts.Request{Voice: "fast", Input: "<|slow|>" + sample}, 1 / 0.75, 1, 1},
		{"pitch +4", tts.Request{Voice: "high", Input: sample}, 1, math.Pow(2, 4.0/12), 1},
		{"a pitch tag overrides", tts.Request{Voice: "high", Input: "<|low|>" + sample}, 1, math.Pow(2, -4.0/12), 1},
		{"other attributes stay", tts.Request{Voice: "high", Input: "<|fast|>" + sample}, 1 / 1.3, math.Pow(2, 4.0/12), 1},
		{"volume 0.5", tts.Request{Voice: "soft", Input: sample}, 1, 1, 0.5},
		{"tags add to it", tts.Request{Voice: "soft", Input: "<|high|>" + sample}, 1, math.Pow(2, 4.0/12), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := sayAs(t, s, tt.req)
			d, f, r := seconds(x)/dur, audiotest.EstimateF0(x, pcmRate)/f0, dsp.RMS(x)/rms
			t.Logf("duration ×%.3f, F0 ×%.3f, RMS ×%.3f", d, f, r)
			if math.Abs(d/tt.dur-1) > 0.03 {
				t.Errorf("duration ×%.3f, want ×%.3f", d, tt.dur)
			}
			if math.Abs(f/tt.f0-1) > 0.03 {
				t.Errorf("F0 ×%.3f, want ×%.3f", f, tt.f0)
			}
			// (The fake's letters fade in and out: at triple speed they are
			// quieter on average.)
			if tt.loudness != 0 && math.Abs(r/tt.loudness-1) > 0.05 {
				t.Errorf("RMS ×%.3f, want ×%.3f", r, tt.loudness)
			}
		})
	}
	t.Run("as a voice tag", func(t *testing.T) {
		x := sayAs(t, s, tts.Request{Voice: "fake", Input: "<|voice:fast|>" + sample})
		if r := seconds(x) / dur; math.Abs(r-0.5) > 0.02 {
			t.Errorf("duration ×%.3f, want ×0.5", r)
		}
	})
	t.Run("other accounts", func(t *testing.T) {
		_, err := s.Prepare(tts.Request{Voice: "fast", Input: "hi", Format: encode.PCM, Account: "intruder"})
		if !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("another account used a clone: %v", err)
		}
	})
}

// TestCloneEspeak renders derived voices of espeak-ng's en-us.
func TestCloneEspeak(t *testing.T) {
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { es.Close() })
	s := cloneSynth(t, es, "en-us", map[string]tags.Style{"quick": {Rate: 2}, "high": {Pitch: 4}})
	plain := sayAs(t, s, tts.Request{Voice: "en-us", Input: sample})
	quick := sayAs(t, s, tts.Request{Voice: "quick", Input: sample})
	high := sayAs(t, s, tts.Request{Voice: "high", Input: sample})
	t.Logf("speed 2: duration ×%.3f; pitch +4: F0 ×%.3f, duration ×%.3f", seconds(quick)/seconds(plain),
		audiotest.EstimateF0(high, pcmRate)/audiotest.EstimateF0(plain, pcmRate), seconds(high)/seconds(plain))
	if r := seconds(quick) / seconds(plain); math.Abs(r-0.5) > 0.05 {
		t.Errorf("speed 2: duration ×%.3f, want ×0.5", r)
	}
	want := math.Pow(2, 4.0/12)
	if r := audiotest.EstimateF0(high, pcmRate) / audiotest.EstimateF0(plain, pcmRate); math.Abs(r/want-1) > 0.04 {
		t.Errorf("pitch +4: F0 ×%.3f, want ×%.3f", r, want)
	}
	if r := seconds(high) / seconds(plain); math.Abs(r-1) > 0.02 {
		t.Errorf("pitch +4: duration ×%.3f, want ×1", r)
	}
}
