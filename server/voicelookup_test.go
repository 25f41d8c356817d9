package server_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/tts"
)

// resolving is the fake engine behind a voice it does not list, which
// it resolves when the catalog asks (engine.VoiceResolver, as Kokoro's
// blends are): each lookup of the voice is a ResolveVoice call, counted.
type resolving struct {
	engine.Engine
	lookups *atomic.Int64
}

func (r resolving) ResolveVoice(name string) (engine.Voice, error) {
	if name != "resolved-voice" {
		return engine.Voice{}, engine.ErrUnknownVoice
	}
	r.lookups.Add(1)
	return engine.Voice{Name: "fake", SampleRate: 24000}, nil
}

// TestVoiceLookedUpOnce: every door looks a request's voice up once and
// carries it (tts.Request.Resolved) to the checks and the synthesis;
// before, ElevenLabs' door looked it up three times (its alias, its
// own check, tts's check) and tts again as it prepared the request.
func TestVoiceLookedUpOnce(t *testing.T) {
	t.Parallel()
	lookups := new(atomic.Int64)
	e := newConformEnv(t, testserver.Options{Synth: func(o *tts.Options) {
		r := resolving{o.Engines["fake"], lookups}
		o.Engines["resolving"] = r
		if err := o.Voices.AddEngine(context.Background(), "resolving", r, time.Unix(1700000000, 0)); err != nil {
			t.Fatal(err)
		}
	}})
	e.wyomingAddr(t, "local")
	for _, d := range ruleDoors {
		t.Run(d.name, func(t *testing.T) {
			before := lookups.Load()
			if h := hear(t, d.ask(t, e, ruleAsk{voice: "resolved-voice", text: hello})); !h.done || h.fail != nil {
				t.Fatalf("did not speak: %+v", h)
			}
			if n := lookups.Load() - before; n != 1 {
				t.Errorf("the voice was looked up %d times, want once", n)
			}
		})
	}
}
