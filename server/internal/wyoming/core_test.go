package wyoming_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// TestWyomingServerTimeouts: a Wyoming connection has the server's own
// times. One that waits Options.WSIdleTimeout for its next event is
// closed; one whose client stops reading is cut off after
// Options.WriteTimeout, its synthesis ended as the client's going (not
// logged as a failure); the server goes on.
func TestWyomingServerTimeouts(t *testing.T) {
	testserver.Long(t)
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{Log: &log, WSIdle: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond,
		Synth: func(o *tts.Options) { o.MaxInput = 8000 }})
	addr := testserver.StartWyoming(t, e)

	idle := testserver.DialWyoming(t, addr)
	if ev, err := wyoming.Read(idle.R); !errors.Is(err, io.EOF) {
		t.Errorf("a connection idle past WSIdleTimeout: %s %v, want it closed", ev.Type, err)
	}

	// About 20 MB of audio, far more than the socket buffers hold.
	stalled := testserver.DialWyoming(t, addr)
	stalled.Send("synthesize", map[string]any{"text": strings.Repeat("One more sentence is spoken here. ", 200), "voice": map[string]any{"name": "en-us"}})
	if !wait.For(20*time.Second, func() bool { return strings.Contains(log.String(), "client went away during synthesis") }) {
		t.Fatalf("a client that stopped reading was not cut off within 20 s:\n%s", log.String())
	}
	if strings.Contains(log.String(), "synthesis failed") {
		t.Errorf("a client cut off is logged as a failed synthesis:\n%s", log.String())
	}
	for {
		ev, err := wyoming.ReadSkippingPayload(stalled.R)
		if err != nil {
			break
		}
		if ev.Type == "audio-stop" || ev.Type == "error" {
			t.Fatalf("the client cut off got %s %v", ev.Type, ev.Data)
		}
	}

	c := testserver.DialWyoming(t, addr)
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "en-us"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("after the cut: no audio")
	}
}

// TestWyomingMetrics: Wyoming's syntheses, whole and streamed, are
// timed and counted as the HTTP API's are, and an engine's failure is
// an engine_error event counted once.
func TestWyomingMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg})
	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	voice := map[string]any{"name": "en-us"}
	c.Send("synthesize", map[string]any{"text": "Counted once.", "voice": voice})
	c.Audio()
	c.Send("synthesize-start", map[string]any{"voice": voice})
	c.Send("synthesize-chunk", map[string]any{"text": "Counted twice."})
	c.Send("synthesize-stop", nil)
	c.Audio()
	if ev := c.Next(); ev.Type != "synthesize-stopped" {
		t.Fatalf("after the stream: %s", ev.Type)
	}
	c.Send("synthesize", map[string]any{"text": "Please FAIL.", "voice": map[string]any{"name": "faulty"}})
	if ev := c.Next(); ev.Type != "error" || ev.String("code") != wire.CodeEngineError {
		t.Errorf("an engine's failure: %s %v", ev.Type, ev.Data)
	}

	for _, name := range []string{"voxkit_synthesis_seconds", "voxkit_engine_seconds", "voxkit_gateway_overhead_seconds"} {
		h := testserver.Labelled(testserver.Gathered(t, reg, name), map[string]string{"format": "pcm"})
		if len(h) != 1 || h[0].GetHistogram().GetSampleCount() != 2 {
			t.Errorf("%s: %v, want the two syntheses", name, h)
		}
	}
	if audio := testserver.Labelled(testserver.Gathered(t, reg, "voxkit_audio_seconds_total"), map[string]string{"format": "pcm"}); len(audio) != 1 || audio[0].GetCounter().GetValue() < 1 {
		t.Errorf("audio seconds %v, want the two syntheses' (over a second)", audio)
	}
	if errs := testserver.Gathered(t, reg, "voxkit_engine_errors_total"); errs.GetMetric()[0].GetCounter().GetValue() != 1 {
		t.Errorf("engine errors: %v", errs)
	}
}
