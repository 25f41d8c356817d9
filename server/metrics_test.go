package server_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/voxkit/voxkit/server/wire"
)

// gathered returns the metric family name of reg, nil if it has none.
func gathered(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

// labelled returns the metrics of mf whose labels include want.
func labelled(mf *dto.MetricFamily, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	for _, m := range mf.GetMetric() {
		n := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				n++
			}
		}
		if n == len(want) {
			out = append(out, m)
		}
	}
	return out
}

// TestMetricsCount: the counters agree with the requests made — by route,
// status and format — and speech is timed per format.
func TestMetricsCount(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, envOptions{metrics: reg})
	formats := []string{"wav", "mp3", "opus", "flac", "pcm"}
	for _, f := range formats {
		for range 2 {
			res := e.do("POST", "/v1/audio/speech", e.key, "application/json",
				strings.NewReader(`{"model":"tts-1","voice":"en-us","input":"Counted twice.","response_format":"`+f+`"}`))
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", f, res.StatusCode)
			}
		}
	}
	res := e.do("POST", "/v1/audio/speech", e.key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"faulty","input":"Please FAIL."}`))
	apiError(t, res, 502, wire.CodeEngineError)
	apiError(t, e.do("GET", "/v1/models", "", "", nil), 401, wire.CodeMissingAPIKey)
	apiError(t, e.do("GET", "/v1/nothing", e.key, "", nil), 404, wire.CodeNotFound)
	c := dialWS(t, e, e.key)
	next(t, c) // ready
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "en-us", "input": "Over the socket.", "response_format": "pcm"})
	for m := next(t, c); m.Type != "speech.done"; m = next(t, c) {
	}
	c.Close(1000, "")

	requests := gathered(t, reg, "voxkit_http_requests_total")
	count := func(labels map[string]string) float64 {
		var n float64
		for _, m := range labelled(requests, labels) {
			n += m.GetCounter().GetValue()
		}
		return n
	}
	for _, f := range formats {
		if n := count(map[string]string{"route": "/v1/audio/speech", "status": "200", "format": f}); n != 2 {
			t.Errorf("%s: %v requests counted, want 2", f, n)
		}
		ttfb := labelled(gathered(t, reg, "voxkit_time_to_first_byte_seconds"), map[string]string{"format": f})
		if len(ttfb) != 1 || ttfb[0].GetHistogram().GetSampleCount() != 2 {
			t.Errorf("%s: first-byte times %v", f, ttfb)
		}
		audio := labelled(gathered(t, reg, "voxkit_audio_seconds_total"), map[string]string{"format": f})
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
	if errs := gathered(t, reg, "voxkit_engine_errors_total"); errs.GetMetric()[0].GetCounter().GetValue() != 1 {
		t.Errorf("engine errors: %v", errs)
	}
	// The WebSocket utterance is timed like a request: the two pcm
	// requests and it.
	syn := labelled(gathered(t, reg, "voxkit_synthesis_seconds"), map[string]string{"format": "pcm"})
	if len(syn) != 1 || syn[0].GetHistogram().GetSampleCount() != 3 {
		t.Errorf("pcm syntheses timed: %v, want 3", syn)
	}
	for _, name := range []string{"voxkit_render_slots_busy", "voxkit_render_queue_depth", "voxkit_requests_in_flight", "voxkit_slot_wait_seconds", "voxkit_gateway_overhead_seconds"} {
		if gathered(t, reg, name) == nil {
			t.Errorf("no %s", name)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	e := newEnv(t, envOptions{})
	res := e.do("GET", "/healthz", "", "", nil)
	status(t, res, 200)
	status(t, e.do("GET", "/readyz", "", "", nil), 200)
	if err := e.srv.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.store.Close() // the store is gone
	res = e.do("GET", "/readyz", "", "", nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || !strings.Contains(string(body), "store") {
		t.Errorf("readyz with the store closed: %d %s", res.StatusCode, body)
	}
	status(t, e.do("GET", "/healthz", "", "", nil), 200)
}
