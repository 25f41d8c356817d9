package tts

import (
	"context"
	"math"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tags"
)

type bareEngine struct{}

func (bareEngine) Synthesize(context.Context, engine.Request, engine.ChunkFunc) error { return nil }
func (bareEngine) Close() error                                                       { return nil }

// fullEngine renders every feature.
type fullEngine struct{ bareEngine }

func (fullEngine) Renders(engine.Feature) bool { return true }

func TestPlan(t *testing.T) {
	rich := tags.Style{Rate: 2, Pitch: 3, Range: 1.5, Gain: -6, Whisper: true, Emphasis: true, Spell: true}
	tests := []struct {
		name     string
		eng      engine.Engine
		st       tags.Style
		speed    float64
		wantPros engine.Prosody
		wantText string
		wantFx   effects
	}{
		{"neutral", bareEngine{}, tags.Style{}, 0, engine.Prosody{Rate: 1}, "ab1", effects{span: 1}},
		{"speed times rate", bareEngine{}, tags.Style{Rate: 3}, 2, engine.Prosody{Rate: tags.MaxRate}, "ab1", effects{span: 1}},
		{"all by DSP", bareEngine{}, rich, 1, engine.Prosody{Rate: 2 * emphasisRate}, "A B 1", effects{whisper: true, pitch: 3 + emphasisPitch, span: 1.5, gain: -6 + emphasisGain}},
		{"all native", fullEngine{}, rich, 1, engine.Prosody{Rate: 2, Pitch: 3, Range: 1.5, Gain: -6, Whisper: true, Emphasis: true, Spell: true}, "ab1", effects{span: 1}},
		{"silence", bareEngine{}, tags.Style{Gain: math.Inf(-1)}, 1, engine.Prosody{Rate: 1}, "ab1", effects{span: 1, gain: math.Inf(-1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pros, text, fx := plan(tt.eng, tt.st, tt.speed, "ab1")
			if pros != tt.wantPros || text != tt.wantText || fx != tt.wantFx {
				t.Errorf("plan = %+v %q %+v\nwant   %+v %q %+v", pros, text, fx, tt.wantPros, tt.wantText, tt.wantFx)
			}
		})
	}
}

func TestSpellOut(t *testing.T) {
	for in, want := range map[string]string{
		"abc":       "A B C",
		"R2-D2, ok": "R 2-D 2, O K",
		"ÉTÉ 42":    "É T É 4 2",
		"":          "",
	} {
		if got := spellOut(in); got != want {
			t.Errorf("spellOut(%q) = %q, want %q", in, got, want)
		}
	}
}
