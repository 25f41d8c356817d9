//go:build cgo

package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/wire"
)

// GetJSON GETs path with key and decodes the body into v.
func (e *Env) GetJSON(t *testing.T, path, key string, v any) int {
	t.Helper()
	res := e.Do("GET", path, key, "", nil)
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %d, %v", path, res.StatusCode, err)
	}
	return res.StatusCode
}

// speak posts a speech request for pcm audio and returns the samples'
// bytes and the ignored tags (a trailer of a pcm stream).
func (e *Env) SpeakPCM(t *testing.T, input, instructions string) ([]byte, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": input, "response_format": "pcm", "instructions": instructions})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	defer res.Body.Close()
	pcm, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("instructions %q: %d %v %s", instructions, res.StatusCode, err, pcm)
	}
	return pcm, res.Trailer.Get("X-Ignored-Tags")
}

// SpeechRequest sends a speech request with body and returns the status,
// headers and the whole body (or what arrived of it).
func (e *Env) SpeechRequest(key, body string) (*http.Response, []byte) {
	e.T.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

const Sentences10 = "One is first. Two comes next. Three is here. Four follows. Five is half. " +
	"Six is more. Seven goes on. Eight is late. Nine is near. Ten is the end."

// Probe decodes audio with ffprobe and returns the codec, rate and
// duration in seconds.
func Probe(t *testing.T, audio []byte, format string) (codec string, rate int, dur float64) {
	t.Helper()
	p := audiotest.ProbeBytes(t, audio, format)
	return p.Codec, p.SampleRate, p.Duration
}

// APIError reads an error response and checks its shape.
func APIError(t *testing.T, res *http.Response, status int, code string) wire.Error {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e wire.Error
	if err := json.Unmarshal(b, &e); err != nil || res.StatusCode != status || e.Code != code ||
		res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %s %q (%v); want %d JSON with code %q", res.StatusCode, res.Header.Get("Content-Type"), b, err, status, code)
	}
	return e
}

// SyncBuffer is a log destination the server writes while a test reads.
type SyncBuffer struct {
	Mu sync.Mutex
	B  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.B.Write(p)
}

// RequestLine waits for the access-log line of the request id and
// returns it.
func (s *SyncBuffer) RequestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	var line map[string]any
	if !wait.For(60*time.Second, func() bool {
		s.Mu.Lock()
		sc := bufio.NewScanner(bytes.NewReader(bytes.Clone(s.B.Bytes())))
		s.Mu.Unlock()
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "request" && m["request_id"] == id {
				line = m
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no access-log line for request %s", id)
	}
	return line
}

// Gate holds each sentence until the test lets it through, and reports
// its text as it arrives.
type Gate struct {
	engine.Engine
	Arrived chan string
	Next    chan struct{}
	Open    chan struct{} // closed: let everything through
}

func (g Gate) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	g.Arrived <- req.Text
	select {
	case <-g.Next:
	case <-g.Open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Engine.Synthesize(ctx, req, emit)
}

// Gathered returns the metric family name of reg, nil if it has none.
func Gathered(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
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

// Labelled returns the metrics of mf whose labels include want.
func Labelled(mf *dto.MetricFamily, want map[string]string) []*dto.Metric {
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

// ReportPercentiles reports the p50 and p99 of durations d in
// milliseconds, as the metrics NAME-p50-ms and NAME-p99-ms (prefix is
// "NAME-"). It sorts d.
func ReportPercentiles(b *testing.B, prefix string, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, prefix+"p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, prefix+"p99-ms")
}

// ErrorJSON is the exact shape of an error body: every field present.
type ErrorJSON struct {
	Error struct {
		Message *string `json:"message"`
		Type    *string `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// Update is the flag -update of the tests that compare with golden files:
// it rewrites them.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Varying matches what differs between runs: request ids, key prefixes.
var Varying = regexp.MustCompile(`req_[0-9a-f]+|sk_[0-9A-Za-z_-]{8}…`)

// CheckGolden compares got with the JSON object in file, byte for byte,
// or rewrites the file with -update. Error bodies are part of the
// interface: a refactoring must not change one.
func CheckGolden(t *testing.T, file string, got map[string]string) {
	t.Helper()
	if *Update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: no response", name)
		} else if g != w {
			t.Errorf("%s: body changed\n got %s\nwant %s", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: not in %s (run with -update)", name, file)
		}
	}
}
