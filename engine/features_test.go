package engine_test

import (
	"context"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

type plainEngine struct{}

func (plainEngine) Synthesize(context.Context, engine.Request, engine.ChunkFunc) error { return nil }
func (plainEngine) Close() error                                                       { return nil }

type pitchEngine struct{ plainEngine }

func (pitchEngine) Renders(f engine.Feature) bool { return f == engine.FeaturePitch }

func TestRenders(t *testing.T) {
	tests := []struct {
		e    engine.Engine
		f    engine.Feature
		want bool
	}{
		{plainEngine{}, engine.FeatureRate, true},
		{plainEngine{}, engine.FeaturePitch, false},
		{pitchEngine{}, engine.FeaturePitch, true},
		{pitchEngine{}, engine.FeatureRate, true},
		{pitchEngine{}, engine.FeatureWhisper, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			if got := engine.Renders(tt.e, tt.f); got != tt.want {
				t.Errorf("Renders(%T, %s) = %v", tt.e, tt.f, got)
			}
		})
	}
}
