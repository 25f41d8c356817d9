package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// piperDir makes a voices directory of copies of the tone-low fixture
// voice under the names given, and returns it.
func piperDir(t *testing.T, names ...string) string {
	t.Helper()
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	dir, fixture := t.TempDir(), "../../engine/onnx/testdata/voices/en_US-tone-low"
	for _, name := range names {
		for _, ext := range []string{".onnx", ".onnx.json"} {
			b, err := os.ReadFile(fixture + ext)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name+ext), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func onnxApp(out, errOut io.Writer) *app {
	a := newApp(out, errOut)
	a.getenv = func(k string) string {
		if k == "ONNXRUNTIME_LIB" {
			return os.Getenv(k)
		}
		return ""
	}
	return a
}

// TestVoiceLoadOnDemand: voices load on first use within -voice-memory;
// the first request for a cold voice has x-voice-load-ms, a warm one
// not, and the metrics count the loads and what is loaded.
func TestVoiceLoadOnDemand(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := piperDir(t, "v0", "v1", "v2")
	st, _ := os.Stat(filepath.Join(dir, "v0.onnx"))
	var out, errOut bytes.Buffer
	a := onnxApp(&out, &errOut)
	metricsAddr := make(chan net.Addr, 1)
	a.metricsReady = func(addr net.Addr) { metricsAddr <- addr }
	budget := st.Size() * 2 // two voices
	addr, cancel, done := serve(t, a, &errOut, "-data", t.TempDir(), "-voices", dir, "-metrics-addr", "127.0.0.1:0",
		"-voice-memory", strconv.FormatInt(budget, 10))
	defer func() { cancel(); <-done }()
	maddr := (<-metricsAddr).String()
	key := keyOf(out.String())
	speak := func(voice string) http.Header {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/audio/speech",
			strings.NewReader(`{"voice":"`+voice+`","input":"Hi.","response_format":"wav"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %s", voice, res.Status)
		}
		return res.Header
	}
	metric := func(name string) string {
		res, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	if n := metric("voxkit_voices_loaded"); n != "0" {
		t.Errorf("voices loaded at start: %q, want 0", n)
	}
	if h := speak("v0"); h.Get("x-voice-load-ms") == "" {
		t.Error("the first request for v0 has no x-voice-load-ms")
	}
	if h := speak("v0"); h.Get("x-voice-load-ms") != "" {
		t.Errorf("the second request for v0 has x-voice-load-ms %s", h.Get("x-voice-load-ms"))
	}
	speak("v1")
	speak("v2")
	for name, want := range map[string]string{
		"voxkit_voice_loads_total":         "3",
		"voxkit_voice_evictions_total":     "1",
		"voxkit_voices_loaded":             "2",
		"voxkit_voice_loaded_bytes":        strconv.FormatInt(budget, 10),
		"voxkit_voice_memory_budget_bytes": strconv.FormatInt(budget, 10),
		"voxkit_voice_load_seconds_count":  "3",
	} {
		if got := metric(name); got != want {
			t.Errorf("%s %q, want %s", name, got, want)
		}
	}
}

// TestStrictRefusesBrokenVoice: -strict loads every voice at start and
// refuses to start when one cannot load, though the file is a whole ONNX
// model and its config is good; without -strict the server starts, the
// broken voice's requests fail with 502 and the other voices serve.
// Every start binds a free port (127.0.0.1:0): a make run serving on the
// default 127.0.0.1:8080 must not fail the tests.
func TestStrictRefusesBrokenVoice(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := piperDir(t, "good", "broken")
	model, _ := os.ReadFile(filepath.Join(dir, "broken.onnx"))
	os.WriteFile(filepath.Join(dir, "broken.onnx"), bytes.Replace(model, []byte("Floor"), []byte("Flxxr"), 1), 0o644)
	var errOut bytes.Buffer
	err := onnxApp(io.Discard, &errOut).run(context.Background(), []string{"-data", t.TempDir(), "-addr", "127.0.0.1:0", "-voices", dir, "-strict", "-log", "off"})
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("-strict with a broken voice: %v", err)
	}
	var out bytes.Buffer
	addr, cancel, done := serve(t, onnxApp(&out, &errOut), &errOut, "-data", t.TempDir(), "-voices", dir)
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}()
	for voice, want := range map[string]int{"broken": 502, "good": 200} {
		req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/audio/speech",
			strings.NewReader(`{"voice":"`+voice+`","input":"Hi.","response_format":"wav"}`))
		req.Header.Set("Authorization", "Bearer "+keyOf(out.String()))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%s without -strict: %s %.200s, want %d", voice, res.Status, body, want)
		}
	}
}
