package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine/supertonic"
)

// TestSupertonicInVoiceMemory: a Supertonic model of -voices counts its
// graphs' bytes in -voice-memory, so Piper voices that would fit beside
// nothing else are unloaded to make room beside it; its voices speak.
func TestSupertonicInVoiceMemory(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := piperDir(t, "v0", "v1", "v2")
	if out, err := exec.Command("/usr/bin/python3", "../../engine/supertonic/testdata/gen/supertonic.py", "--small", filepath.Join(dir, "st")).CombinedOutput(); err != nil {
		t.Fatalf("generating the model (needs Debian's python3-onnx): %v\n%s", err, out)
	}
	var stSize int64
	for _, p := range []string{"duration_predictor", "text_encoder", "vector_estimator", "vocoder"} {
		st, err := os.Stat(filepath.Join(dir, "st", p+".onnx"))
		if err != nil {
			t.Fatal(err)
		}
		stSize += st.Size()
	}
	piper, _ := os.Stat(filepath.Join(dir, "v0.onnx"))
	var out, errOut bytes.Buffer
	a := onnxApp(&out, &errOut)
	metricsAddr := make(chan net.Addr, 1)
	a.metricsReady = func(addr net.Addr) { metricsAddr <- addr }
	budget := stSize + 2*piper.Size() // the model and two voices
	addr, cancel, done := serve(t, a, &errOut, "-data", t.TempDir(), "-voices", dir, "-metrics-addr", "127.0.0.1:0",
		"-voice-memory", strconv.FormatInt(budget, 10))
	defer func() { cancel(); <-done }()
	maddr := (<-metricsAddr).String()
	key := keyOf(out.String())
	for _, voice := range []string{"v0", "v1", "v2", "st:F1", "st:M1:de"} {
		if st, body := callAPI(t, addr, key, "POST", "/v1/audio/speech", `{"voice":"`+voice+`","input":"Hi there.","response_format":"wav"}`); st != 200 {
			t.Fatalf("%s: %d %.200s", voice, st, body)
		}
	}
	res, err := http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for name, want := range map[string]string{"voxkit_voice_evictions_total": "1", "voxkit_voices_loaded": "2"} {
		got := ""
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				got = strings.TrimSpace(v)
			}
		}
		if got != want {
			t.Errorf("%s %q, want %s", name, got, want)
		}
	}
}

// TestSupertonicBatchFlag: -supertonic-batch sets the Supertonic engine's
// MaxBatch (1: batching off, 0: the default), its voices speak with it,
// and a negative value stops the start with an error naming the flag.
func TestSupertonicBatchFlag(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	var out, errOut bytes.Buffer
	err := newApp(&out, &errOut).run(t.Context(), []string{"-data", t.TempDir(), "-supertonic-batch", "-1"})
	if err == nil || !strings.Contains(err.Error(), "-supertonic-batch -1: want 0") {
		t.Fatalf("-supertonic-batch -1: %v, want the flag's error", err)
	}

	dir := t.TempDir()
	if out, err := exec.Command("/usr/bin/python3", "../../engine/supertonic/testdata/gen/supertonic.py", "--small", filepath.Join(dir, "st")).CombinedOutput(); err != nil {
		t.Fatalf("generating the model (needs Debian's python3-onnx): %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{{[]string{"-supertonic-batch", "1"}, 1}, {nil, supertonic.DefaultMaxBatch}, {[]string{"-supertonic-batch", "3"}, 3}} {
		out.Reset()
		errOut.Reset()
		a := onnxApp(&out, &errOut)
		addr, cancel, done := serve(t, a, &errOut, append(tc.args, "-data", t.TempDir(), "-voices", dir)...)
		if st, body := callAPI(t, addr, keyOf(out.String()), "POST", "/v1/audio/speech", `{"voice":"st:F1","input":"Hi there.","response_format":"wav"}`); st != 200 {
			t.Errorf("%v: %d %.200s", tc.args, st, body)
		}
		cancel()
		<-done
		// The engines a started are closed; the same flags open them again.
		engines, _, err := a.engines(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got := engines["supertonic"].(*supertonic.Engine).MaxBatch(); got != tc.want {
			t.Errorf("%v: MaxBatch %d, want %d", tc.args, got, tc.want)
		}
		for _, e := range engines { // the onnx engine among them
			if c, ok := e.(interface{ Close() error }); ok {
				c.Close()
			}
		}
	}
}
