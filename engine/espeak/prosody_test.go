//go:build cgo

package espeak

import (
	"context"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

func TestMarkup(t *testing.T) {
	tests := []struct {
		p    engine.Prosody
		text string
		want string
	}{
		{engine.Prosody{Emphasis: true}, "a < b & c", "<emphasis>a &lt; b &amp; c</emphasis>"},
		{engine.Prosody{Spell: true}, "ABC", `<say-as interpret-as="characters">ABC</say-as>`},
		{engine.Prosody{Range: 1.5, Emphasis: true, Spell: true}, "x>", `<prosody range="150%"><emphasis><say-as interpret-as="characters">x&gt;</say-as></emphasis></prosody>`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if !needsSSML(tt.p) {
				t.Errorf("needsSSML(%+v) = false", tt.p)
			}
			if got := markup(tt.text, tt.p); got != tt.want {
				t.Errorf("markup = %q, want %q", got, tt.want)
			}
		})
	}
	if needsSSML(engine.Prosody{Rate: 2, Range: 1, Whisper: true}) {
		t.Error("needsSSML for rate, neutral range and whisper")
	}
	if got := whisperVoice("en-us+f3"); got != "en-us+whisper" {
		t.Errorf("whisperVoice = %q", got)
	}
}

// TestNativeFeatures measures what espeak renders for each feature it
// declares, against the same sentence said plainly.
func TestNativeFeatures(t *testing.T) {
	e := newEngine(t)
	const text = "The quick brown fox jumps over the lazy dog."
	say := func(p engine.Prosody, text string) ([]float32, int) {
		c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "en-us", Text: text, Prosody: p})
		if err != nil {
			t.Fatal(err)
		}
		return c.Samples, c.SampleRate
	}
	plain, rate := say(engine.Prosody{}, text)
	if p := audiotest.Periodicity(plain, rate); p < 0.6 {
		t.Fatalf("plain speech has periodicity %.2f", p)
	}
	if x, _ := say(engine.Prosody{Whisper: true}, text); audiotest.Periodicity(x, rate) > 0.45 {
		t.Errorf("whisper: periodicity %.2f", audiotest.Periodicity(x, rate))
	}
	if x, _ := say(engine.Prosody{Emphasis: true}, text); len(x) < len(plain)*11/10 || dsp.RMS(x) < dsp.RMS(plain)*1.1 {
		t.Errorf("emphasis: %d samples at RMS %.3f, plain %d at %.3f", len(x), dsp.RMS(x), len(plain), dsp.RMS(plain))
	}
	word, _ := say(engine.Prosody{}, "hello")
	if x, _ := say(engine.Prosody{Spell: true}, "hello"); len(x) < len(word)*3/2 {
		t.Errorf("spelled: %d samples, word %d", len(x), len(word))
	}
	// Pitch range: the intonation moves more, or less.
	s0 := audiotest.F0Spread(plain, rate)
	wide, _ := say(engine.Prosody{Range: 1.5}, text)
	flat, _ := say(engine.Prosody{Range: 0.5}, text)
	if sw, sf := audiotest.F0Spread(wide, rate), audiotest.F0Spread(flat, rate); sw < s0*1.15 || sf > s0*0.85 {
		t.Errorf("F0 spread: range 0.5 %.2f st, plain %.2f, range 1.5 %.2f", sf, s0, sw)
	}
	// Below espeak's slowest rate the audio is stretched.
	if x, _ := say(engine.Prosody{Rate: 0.3}, text); float64(len(x)) < 2.8*float64(len(plain)) {
		t.Errorf("rate 0.3: %d samples, plain %d", len(x), len(plain))
	}
	for _, f := range []engine.Feature{engine.FeatureRate, engine.FeatureRange, engine.FeatureWhisper, engine.FeatureEmphasis, engine.FeatureSpell} {
		if !engine.Renders(e, f) {
			t.Errorf("Renders(%s) = false", f)
		}
	}
	for _, f := range []engine.Feature{engine.FeaturePitch, engine.FeatureGain} {
		if engine.Renders(e, f) {
			t.Errorf("Renders(%s) = true", f)
		}
	}
}
