package server_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/server/wire"
)

// TestMetricsCount: the counters agree with the requests made — by route,
// status and format — and speech is timed per format.
func TestMetricsCount(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg})
	formats := []string{"wav", "mp3", "opus", "flac", "pcm"}
	for _, f := range formats {
		for range 2 {
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
				strings.NewReader(`{"model":"tts-1","voice":"en-us","input":"Counted twice.","response_format":"`+f+`"}`))
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", f, res.StatusCode)
			}
		}
	}
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"faulty","input":"Please FAIL."}`))
	testserver.APIError(t, res, 502, wire.CodeEngineError)
	testserver.APIError(t, e.Do("GET", "/v1/models", "", "", nil), 401, wire.CodeMissingAPIKey)
	testserver.APIError(t, e.Do("GET", "/v1/nothing", e.Key, "", nil), 404, wire.CodeNotFound)
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "en-us", "input": "Over the socket.", "response_format": "pcm"})
	for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
	}
	c.Close(1000, "")

	requests := testserver.Gathered(t, reg, "voxkit_http_requests_total")
	count := func(labels map[string]string) float64 {
		var n float64
		for _, m := range testserver.Labelled(requests, labels) {
			n += m.GetCounter().GetValue()
		}
		return n
	}
	for _, f := range formats {
		if n := count(map[string]string{"route": "/v1/audio/speech", "status": "200", "format": f}); n != 2 {
			t.Errorf("%s: %v requests counted, want 2", f, n)
		}
		ttfb := testserver.Labelled(testserver.Gathered(t, reg, "voxkit_time_to_first_byte_seconds"), map[string]string{"format": f})
		if len(ttfb) != 1 || ttfb[0].GetHistogram().GetSampleCount() != 2 {
			t.Errorf("%s: first-byte times %v", f, ttfb)
		}
		audio := testserver.Labelled(testserver.Gathered(t, reg, "voxkit_audio_seconds_total"), map[string]string{"format": f})
		if len(audio) != 1 || audio[0].GetCounter().GetValue() < 1 {
			t.Errorf("%s: audio seconds %v, want the two clips' (over a second)", f, audio)
		}
	}
	if n := count(map[string]string{"route": "/v1/audio/speech", "status": "502"}); n != 1 {
		t.Errorf("502s counted: %v", n)
	}
	if n := count(map[string]string{"route": "/v1/models", "status": "401"}); n != 1 {
		t.Errorf("401s counted: %v", n)
	}
	if n := count(map[string]string{"route": "other", "status": "404"}); n != 1 {
		t.Errorf("404s counted: %v", n)
	}
	if errs := testserver.Gathered(t, reg, "voxkit_engine_errors_total"); errs.GetMetric()[0].GetCounter().GetValue() != 1 {
		t.Errorf("engine errors: %v", errs)
	}
	// The WebSocket utterance is timed like a request: the two pcm
	// requests and it.
	syn := testserver.Labelled(testserver.Gathered(t, reg, "voxkit_synthesis_seconds"), map[string]string{"format": "pcm"})
	if len(syn) != 1 || syn[0].GetHistogram().GetSampleCount() != 3 {
		t.Errorf("pcm syntheses timed: %v, want 3", syn)
	}
	for _, name := range []string{"voxkit_render_slots_busy", "voxkit_render_queue_depth", "voxkit_requests_in_flight", "voxkit_slot_wait_seconds", "voxkit_gateway_overhead_seconds"} {
		if testserver.Gathered(t, reg, name) == nil {
			t.Errorf("no %s", name)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res := e.Do("GET", "/healthz", "", "", nil)
	testserver.Status(t, res, 200)
	testserver.Status(t, e.Do("GET", "/readyz", "", "", nil), 200)
	if err := e.Server.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Store.Close() // the store is gone
	res = e.Do("GET", "/readyz", "", "", nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || !strings.Contains(string(body), "store") {
		t.Errorf("readyz with the store closed: %d %s", res.StatusCode, body)
	}
	testserver.Status(t, e.Do("GET", "/healthz", "", "", nil), 200)
}
