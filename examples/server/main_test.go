package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

func newApp(stdout, stderr io.Writer) *app {
	return &app{stdout: &lockedWriter{w: stdout}, stderr: &lockedWriter{w: stderr}, getenv: func(string) string { return "" }}
}

// lockedWriter makes a test's buffer safe for the server's writers: it
// logs from goroutines of its own (the job queue's among them) while it
// prints to the same writer. Read the buffer once run has returned.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func cmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := newApp(&out, &errOut).run(context.Background(), append([]string{"-data", dir, "-log", "off"}, args...)); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// passwordOf and keyOf return what a command printed on its "password:"
// and "api key:" lines.
func passwordOf(out string) string { return printed(out, "password:") }
func keyOf(out string) string      { return printed(out, "api key:") }

func printed(out, label string) string {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(line, label); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestSubcommands(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := t.TempDir()
	out := cmd(t, dir, "accounts", "create", "acme")
	first := passwordOf(out)
	if !strings.Contains(out, "acme") || len(first) != 20 {
		t.Errorf("accounts create: %q", out)
	}
	second := passwordOf(cmd(t, dir, "accounts", "passwd", "acme"))
	if len(second) != 20 || second == first {
		t.Errorf("accounts passwd printed %q after %q", second, first)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	hash, err := st.PasswordHash(context.Background(), "acme")
	st.Close()
	if ok, _ := store.CheckPassword(hash, second); err != nil || !ok {
		t.Errorf("the printed password does not match the stored hash (%v)", err)
	}
	out = cmd(t, dir, "keys", "create", "--account", "acme", "--name", "ci")
	key := strings.TrimSuffix(out, "\n")
	if !store.WellFormed(key) || strings.Count(out, "\n") != 1 {
		t.Fatalf("keys create printed %q, want the key alone on a line", out)
	}
	list := cmd(t, dir, "keys", "list")
	if !strings.Contains(list, key[:11]) || strings.Contains(list, key) || !strings.Contains(list, "active") {
		t.Errorf("keys list:\n%s", list)
	}
	if out := cmd(t, dir, "keys", "revoke", key[:9]); !strings.Contains(out, key[:11]) {
		t.Errorf("keys revoke: %q", out)
	}
	if list := cmd(t, dir, "keys", "list", "--account", "acme"); !strings.Contains(list, "revoked") {
		t.Errorf("after revoke:\n%s", list)
	}
	var errOut bytes.Buffer
	if err := newApp(io.Discard, &errOut).run(context.Background(), []string{"-data", dir, "keys", "create"}); err == nil {
		t.Error("keys create without --account succeeded")
	}
}

// serve runs a on a free loopback port with args, until cancel; done
// receives what run returned.
// startTimeout is how long a test waits for the server to listen: a
// hang, not a measure (under the race detector on a busy 2-core machine a
// start that migrates the stores and loads generated models took over
// 20 s).
const startTimeout = 2 * time.Minute

func serve(t *testing.T, a *app, stderr *bytes.Buffer, args ...string) (addr net.Addr, cancel func(), done chan error) {
	t.Helper()
	addrc := make(chan net.Addr, 1)
	a.ready = func(addr net.Addr) { addrc <- addr }
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- a.run(ctx, append(args, "-addr", "127.0.0.1:0", "-log", "off")) }()
	select {
	case addr = <-addrc:
	case err := <-done:
		cancel()
		t.Fatalf("server exited: %v\n%s", err, stderr.String())
	case <-time.After(startTimeout):
		cancel()
		t.Fatalf("server did not start in %v", startTimeout)
	}
	return addr, cancel, done
}

func TestServeFirstStartAndShutdown(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut)
	addr, cancel, done := serve(t, a, &errOut, "-data", dir)
	key := keyOf(out.String())
	if !store.WellFormed(key) || len(passwordOf(out.String())) != 20 || !strings.Contains(errOut.String(), `"local"`) {
		t.Fatalf("first start printed %q / %q", out.String(), errOut.String())
	}
	body := `{"model":"tts-1","voice":"alloy","input":"Hello from the example server. Goodbye."}`
	req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/audio/speech", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.HasPrefix(wav, []byte("RIFF")) {
		t.Fatalf("speech: %d %q", res.StatusCode, wav[:min(len(wav), 200)])
	}
	// A voice clone made over HTTP speaks, and is in the store.
	post := func(path, body string) int {
		req, _ := http.NewRequest("POST", "http://"+addr.String()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	if st := post("/v1/voices", `{"id":"quick","name":"Quick","base_voice":"alloy","speed":2}`); st != 201 {
		t.Fatalf("create voice: %d", st)
	}
	if st := post("/v1/audio/speech", `{"voice":"quick","input":"Fast."}`); st != 200 {
		t.Errorf("speech with the clone: %d", st)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(startTimeout):
		t.Fatal("server did not stop")
	}
	// A second start finds the account and prints no key.
	if got := cmd(t, dir, "accounts", "list"); !strings.HasPrefix(got, "local\t") {
		t.Errorf("accounts: %q", got)
	}
	if got := cmd(t, dir, "voices", "list", "--account", "local"); !strings.Contains(got, "quick") || !strings.Contains(got, "en-us") {
		t.Errorf("voices list:\n%s", got)
	}
	if got := cmd(t, dir, "voices", "delete", "--account", "local", "quick"); !strings.Contains(got, "deleted voice quick") {
		t.Errorf("voices delete: %q", got)
	}
	if got := cmd(t, dir, "voices", "list"); strings.Contains(got, "quick") {
		t.Errorf("after delete:\n%s", got)
	}
}

// TestRescanOnHangup: a Piper voice copied into the voices directory is
// served after SIGHUP.
// serveVoices serves with -voices voicesDir, ONNX Runtime from
// $ONNXRUNTIME_LIB and a new data directory; it returns the address, the
// first account's API key, and serve's cancel and done; args are more flags.
func serveVoices(t *testing.T, voicesDir string, args ...string) (addr net.Addr, key string, cancel func(), done chan error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut)
	a.getenv = func(k string) string {
		if k == "ONNXRUNTIME_LIB" {
			return os.Getenv(k)
		}
		return ""
	}
	addr, cancel, done = serve(t, a, &errOut, append([]string{"-data", t.TempDir(), "-voices", voicesDir}, args...)...)
	return addr, keyOf(out.String()), cancel, done
}

// callAPI sends a request with a JSON body and key, and returns the
// response's status and body.
func callAPI(t *testing.T, addr net.Addr, key, method, path, body string) (int, string) {
	t.Helper()
	return sendAPI(t, addr, key, method, path, "application/json", strings.NewReader(body))
}

// sendAPI sends a request with a body of contentType and key, and returns
// the response's status and body.
func sendAPI(t *testing.T, addr net.Addr, key, method, path, contentType string, body io.Reader) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr.String()+path, body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestRescanOnHangup(t *testing.T) {
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	voicesDir, fixtures := t.TempDir(), "../../engine/onnx/testdata/voices/"
	copyVoice := func(name string) {
		for _, ext := range []string{".onnx", ".onnx.json"} {
			b, err := os.ReadFile(fixtures + name + ext)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(voicesDir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyVoice("en_US-tone-low")
	// A voice that cannot load is left out; the others serve.
	os.WriteFile(filepath.Join(voicesDir, "broken.onnx"), []byte("not a model"), 0o644)
	os.WriteFile(filepath.Join(voicesDir, "broken.onnx.json"), []byte("{}"), 0o644)
	addr, key, cancel, done := serveVoices(t, voicesDir)
	defer cancel()
	call := func(method, path, body string) (int, string) { return callAPI(t, addr, key, method, path, body) }
	status := func(voice string) int {
		st, _ := call("GET", "/v1/models/"+voice, "")
		return st
	}
	if status("en_US-tone-low") != 200 || status("en_US-tone-medium") != 404 {
		t.Fatalf("before the rescan: low %d, medium %d", status("en_US-tone-low"), status("en_US-tone-medium"))
	}
	// A clone takes the id of a Piper voice not loaded yet.
	if st, body := call("POST", "/v1/voices", `{"id":"en_US-tone-medium","name":"early","base_voice":"en-us"}`); st != 201 {
		t.Fatalf("clone: %d %s", st, body)
	}
	copyVoice("en_US-tone-medium")
	os.Remove(filepath.Join(voicesDir, "en_US-tone-low.onnx"))
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	global := func() bool {
		_, body := call("GET", "/v1/models/en_US-tone-medium", "")
		return strings.Contains(body, `"owned_by":"service"`)
	}
	// The rescan is not aborted by the clash: the new voice is the
	// global one, for the clone's owner too, and the removed one goes.
	for !global() || status("en_US-tone-low") != 404 {
		if time.Now().After(deadline) {
			_, body := call("GET", "/v1/models/en_US-tone-medium", "")
			t.Fatalf("after SIGHUP: medium %s, low %d", body, status("en_US-tone-low"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The owner's DELETE removes its clone, not the global voice.
	if st, body := call("DELETE", "/v1/voices/en_US-tone-medium", ""); st != 200 {
		t.Errorf("deleting the clone: %d %s", st, body)
	}
	if !global() {
		t.Error("the global voice went with the clone")
	}
	if st, _ := call("POST", "/v1/audio/speech", `{"voice":"en_US-tone-medium","input":"Hi.","response_format":"pcm"}`); st != 200 {
		t.Errorf("speech with the new voice: %d", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// "accounts create -h" prints the usage instead of making an account
// "-h", and listings escape names that are not plain text.
func TestSubcommandsAreDefensive(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := t.TempDir()
	var errOut bytes.Buffer
	err := newApp(io.Discard, &errOut).run(context.Background(), []string{"-data", dir, "-log", "off", "accounts", "create", "-h"})
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(errOut.String(), "usage") {
		t.Errorf("accounts create -h: %v, %q", err, errOut.String())
	}
	if out := cmd(t, dir, "accounts", "list"); strings.Contains(out, "-h") {
		t.Errorf("an account -h was made:\n%s", out)
	}
	cmd(t, dir, "accounts", "create", "acme")
	// A name the API refuses, as a database written directly could hold.
	cmd(t, dir, "keys", "create", "--account", "acme", "--name", "x\x1b]0;pwned\x07\nsk_fake\u202e")
	list := cmd(t, dir, "keys", "list")
	if strings.ContainsAny(list, "\x1b\x07\u202e") || strings.Count(list, "\n") != 2 {
		t.Errorf("keys list printed raw control characters:\n%q", list)
	}
}

// TestMetricsListener: -metrics-addr serves Prometheus metrics, /healthz
// and /readyz on a listener of its own, and the API's listener has no
// /metrics.
func TestMetricsListener(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut)
	metricsAddr := make(chan net.Addr, 1)
	a.metricsReady = func(addr net.Addr) { metricsAddr <- addr }
	addr, cancel, done := serve(t, a, &errOut, "-data", t.TempDir(), "-metrics-addr", "127.0.0.1:0")
	defer func() { cancel(); <-done }()
	maddr := (<-metricsAddr).String()
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	req, _ := http.NewRequest("POST", "http://"+addr.String()+"/v1/audio/speech",
		strings.NewReader(`{"model":"tts-1","voice":"alloy","input":"Measured.","response_format":"mp3"}`))
	req.Header.Set("Authorization", "Bearer "+keyOf(out.String()))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	code, body := get("http://" + maddr + "/metrics")
	want := `voxkit_http_requests_total{format="mp3",method="POST",route="/v1/audio/speech",status="200"} 1`
	if code != 200 || !strings.Contains(body, want) || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics: %d, want a line %s in:\n%.2000s", code, want, body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get("http://" + maddr + path); code != 200 {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	if code, _ := get("http://" + addr.String() + "/metrics"); code != 404 {
		t.Errorf("the API listener serves /metrics: %d", code)
	}
}

// -store takes a PostgreSQL URL or nothing; anything else is refused
// before a SQLite database is made in -data. (internal/e2e runs the server
// on a PostgreSQL store.)
func TestStoreFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	for _, bad := range []string{"mysql://db/voxkit", "host=db dbname=voxkit", dir + "/voxkit.db"} {
		var errOut bytes.Buffer
		err := newApp(io.Discard, &errOut).run(context.Background(), []string{"-data", dir, "-store", bad, "-log", "off", "accounts", "list"})
		if err == nil || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("-store %q: %v", bad, err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("-data was made for a refused -store: %v", err)
	}
	a := newApp(io.Discard, io.Discard)
	a.getenv = func(k string) string {
		if k == "VOXKIT_STORE" {
			return "postgres://nobody@127.0.0.1:1/voxkit?connect_timeout=2"
		}
		return ""
	}
	if err := a.run(context.Background(), []string{"-data", dir, "-log", "off", "accounts", "list"}); err == nil || !strings.Contains(err.Error(), "store: postgres") {
		t.Errorf("$VOXKIT_STORE with no server there: %v", err)
	}
}
