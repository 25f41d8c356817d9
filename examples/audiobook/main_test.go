package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/tts"

	_ "github.com/voxkit/voxkit/encode/mp3" // the tests ask for mp3
)

// TestMain runs the command itself when a test starts this binary as it
// (AUDIOBOOK_MAIN=1), so that a test can send it a real Ctrl-C.
func TestMain(m *testing.M) {
	if os.Getenv("AUDIOBOOK_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// book is a small Markdown book of two chapters.
const book = `# The Start

It was the first day of spring. The river ran high and fast.

# The End

"Is that all?" asked Mira. It was, and they went home.
`

// testServer is a voxkit server with jobs, speaking with espeak-ng, in
// front of which a test can hold the jobs' event streams (a long wait)
// and count the jobs submitted.
type testServer struct {
	URL, Key string
	posts    atomic.Int32
	// flaky is how many event streams fail next: a 503 when it is
	// even, a stream that ends at once when it is odd.
	flaky atomic.Int32
	mu    sync.Mutex
	hold  chan struct{} // while not nil, event streams wait for it to close
	held  chan string   // the path of each event stream held
}

func newServer(t *testing.T) *testServer {
	t.Helper()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": es}})
	if err != nil {
		t.Fatal(err)
	}
	env := servertest.Start(t, servertest.Options{Synthesizer: synth, Server: server.Options{
		Jobs: server.JobOptions{Enabled: true, MaxSegment: 80, Poll: 50 * time.Millisecond}}})
	s := &testServer{Key: env.Keys["local"], held: make(chan string, 16)}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/audio/jobs" {
			s.posts.Add(1)
		}
		if strings.HasSuffix(r.URL.Path, "/events") {
			if n := s.flaky.Add(-1); n >= 0 {
				if n%2 == 0 {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusServiceUnavailable)
					w.Write([]byte(`{"error":{"message":"The server is restarting.","type":"server_error","code":null,"param":null}}`))
				} else {
					w.Header().Set("Content-Type", "text/event-stream")
				}
				return
			}
		}
		s.mu.Lock()
		hold := s.hold
		s.mu.Unlock()
		if hold != nil && strings.HasSuffix(r.URL.Path, "/events") {
			s.held <- r.URL.Path
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		env.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/v1"
	return s
}

// holdEvents makes event streams wait until the function it returns is
// called.
func (s *testServer) holdEvents() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = make(chan struct{})
	hold := s.hold
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		close(hold)
		s.hold = nil
	}
}

// run runs the command with args against s and returns its output.
func (s *testServer) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(ctx, append([]string{"-base", s.URL, "-key", s.Key}, args...), &out, &errOut)
	return out.String(), errOut.String(), err
}

func writeBook(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// savedJob is the id the directory's .voxkit-job holds.
func savedJob(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, jobFile))
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(string(b), "\n")
	return id
}

// TestAudiobook: a Markdown book of two chapters becomes a job whose
// progress is shown (a line per step on a pipe) up to 100 %, and whose
// results are downloaded under the server's names: the whole mp3 with
// its two chapters, each chapter's, the captions and the word timings.
// A second run of the same command submits nothing and downloads the
// same job's; -list lists it, -cancel refuses a finished job, -delete
// removes it, and a run after that submits the book again.
func TestAudiobook(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "out")
	file := writeBook(t, "book.md", book)
	args := []string{"-voice", "en-us", "-format", "mp3", "-captions", "srt,vtt", "-timestamps", "-chapters", "-o", dir, file}
	stdout, stderr, err := s.run(ctx, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("stderr:\n%sstdout:\n%s", stderr, stdout)
	id := savedJob(t, dir)
	if !strings.Contains(stderr, "submitted job "+id+": 2 chapters (\"The Start\", \"The End\")") {
		t.Errorf("stderr: %s", stderr)
	}
	// The progress, one line per step, rises to 100 %.
	steps := regexp.MustCompile(`(?m)^`+id+` (\w+) +([0-9.]+) %`).FindAllStringSubmatch(stderr, -1)
	if len(steps) == 0 || steps[len(steps)-1][1] != "succeeded" || steps[len(steps)-1][2] != "100.0" {
		t.Fatalf("progress lines %q in\n%s", steps, stderr)
	}
	last := -1.0
	for _, s := range steps {
		p, _ := strconv.ParseFloat(s[2], 64)
		if p < last {
			t.Errorf("progress went back: %q", steps)
		}
		last = p
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("a bar drawn in place on a pipe: %q", stderr)
	}
	names := []string{"audio.mp3", "chapter-1.mp3", "chapter-2.mp3", "captions.srt", "captions.vtt", "timestamps.json"}
	for _, n := range names {
		p := filepath.Join(dir, id+"-"+n)
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.Contains(stdout, "saved "+p) {
			t.Errorf("stdout does not name %s:\n%s", p, stdout)
		}
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_chapters", "-of", "json", filepath.Join(dir, id+"-audio.mp3")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Chapters []struct {
			Tags struct{ Title string } `json:"tags"`
		} `json:"chapters"`
	}
	if json.Unmarshal(out, &probe); len(probe.Chapters) != 2 || probe.Chapters[0].Tags.Title != "The Start" || probe.Chapters[1].Tags.Title != "The End" {
		t.Errorf("the mp3's chapters: %s", out)
	}
	if srt, _ := os.ReadFile(filepath.Join(dir, id+"-captions.srt")); !strings.HasPrefix(string(srt), "1\n00:00:") || !strings.Contains(string(srt), "Mira") {
		t.Errorf("captions: %q", srt)
	}

	// Again: the same job, nothing submitted, nothing downloaded again
	// but a file that is not whole.
	if err := os.WriteFile(filepath.Join(dir, id+"-captions.vtt"), []byte("WEBVTT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = s.run(ctx, args...)
	if err != nil || s.posts.Load() != 1 || savedJob(t, dir) != id || !strings.Contains(stderr, "job "+id+", submitted earlier ("+filepath.Join(dir, jobFile)+"): succeeded") {
		t.Fatalf("second run: %v, %d jobs submitted\n%s", err, s.posts.Load(), stderr)
	}
	for _, n := range names {
		verb := "have "
		if n == "captions.vtt" {
			verb = "saved "
		}
		if p := filepath.Join(dir, id+"-"+n); !strings.Contains(stdout, verb+p) {
			t.Errorf("second run: stdout does not say %s%s:\n%s", verb, p, stdout)
		}
	}
	if vtt, _ := os.ReadFile(filepath.Join(dir, id+"-captions.vtt")); !strings.Contains(string(vtt), "Mira") {
		t.Errorf("the captions cut short were not downloaded again: %q", vtt)
	}

	stdout, _, err = s.run(ctx, "-list")
	if err != nil || !regexp.MustCompile(id+` +succeeded +100.0% +2 .* The Start`).MatchString(stdout) {
		t.Errorf("-list: %v\n%s", err, stdout)
	}
	if _, _, err = s.run(ctx, "-cancel", id); err == nil || !strings.Contains(err.Error(), "has ended (succeeded)") {
		t.Errorf("-cancel of a finished job: %v", err)
	}
	if stdout, _, err = s.run(ctx, "-delete", id); err != nil || stdout != "job "+id+" deleted\n" {
		t.Errorf("-delete: %v %q", err, stdout)
	}
	if stdout, _, _ = s.run(ctx, "-list"); strings.Contains(stdout, id) {
		t.Errorf("-list after -delete:\n%s", stdout)
	}
	if _, _, err = s.run(ctx, "-resume", id, "-o", dir); !isStatus(err, 404) || !strings.Contains(err.Error(), "No job") {
		t.Errorf("-resume of a deleted job: %v", err)
	}
	_, stderr, err = s.run(ctx, args...)
	if err != nil || s.posts.Load() != 2 || savedJob(t, dir) == id || !strings.Contains(stderr, "is gone: submitting the book again") {
		t.Errorf("after -delete: %v, %d jobs submitted\n%s", err, s.posts.Load(), stderr)
	}
}

// TestAudiobookResume: a wait interrupted (the context Ctrl-C ends)
// leaves the job running and says how to resume; the same command run
// again waits for that job, submitting nothing, and downloads its audio;
// so does -resume ID into another directory. -cancel stops a job.
func TestAudiobookResume(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	dir := filepath.Join(t.TempDir(), "out")
	file := writeBook(t, "book.md", book)
	args := []string{"-voice", "en-us", "-format", "wav", "-o", dir, file}

	release := s.holdEvents()
	ctx, interrupt := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr string
	go func() {
		var err error
		_, stderr, err = s.run(ctx, args...)
		done <- err
	}()
	<-s.held // submitted, and waiting
	interrupt()
	err := <-done
	id := savedJob(t, dir)
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "job "+id+" goes on on the server") ||
		!strings.Contains(err.Error(), "audiobook -resume "+id+" -o "+dir) {
		t.Fatalf("interrupted: %v\n%s", err, stderr)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.wav")); len(matches) != 0 {
		t.Errorf("downloaded before the job ended: %q", matches)
	}
	release()

	stdout, stderr, err := s.run(context.Background(), args...)
	if err != nil || s.posts.Load() != 1 || !strings.Contains(stdout, "saved "+filepath.Join(dir, id+"-audio.wav")) {
		t.Fatalf("resumed: %v, %d jobs submitted\n%s\n%s", err, s.posts.Load(), stdout, stderr)
	}
	other := filepath.Join(t.TempDir(), "other")
	if stdout, _, err = s.run(context.Background(), "-resume", id, "-o", other); err != nil || !strings.Contains(stdout, "saved "+filepath.Join(other, id+"-audio.wav")) {
		t.Errorf("-resume: %v\n%s", err, stdout)
	}

	// -cancel stops a job of a long text (some 500 segments) just
	// submitted.
	long := writeBook(t, "long.txt", strings.Repeat("A sentence of a long text, to be cancelled. ", 1000))
	release = s.holdEvents()
	defer release()
	ctx, interrupt = context.WithCancel(context.Background())
	go func() {
		_, _, err := s.run(ctx, "-voice", "en-us", "-format", "wav", "-o", dir, long)
		done <- err
	}()
	<-s.held
	interrupt()
	<-done
	id = savedJob(t, dir)
	if stdout, _, err = s.run(context.Background(), "-cancel", id); err != nil || stdout != "job "+id+" cancelled\n" {
		t.Errorf("-cancel: %v %q", err, stdout)
	}
	if _, _, err = s.run(context.Background(), "-delete", "job_nobody"); !isStatus(err, 404) {
		t.Errorf("-delete of no job: %v", err)
	}
}

// TestAudiobookReconnects: a wait whose event stream ends early or
// gets a 503 (a server restarting behind a proxy) follows the job again
// and downloads its audio. Each failed stream costs the command's pause
// of a second: under -short only the 503 fails (make test runs both).
func TestAudiobookReconnects(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	dir := t.TempDir()
	flaky := int32(2) // a stream that ends at once, then a 503
	if testing.Short() {
		flaky = 1 // the 503
	}
	s.flaky.Store(flaky)
	stdout, stderr, err := s.run(context.Background(), "-voice", "en-us", "-format", "wav", "-o", dir, writeBook(t, "book.md", book))
	if err != nil || !strings.Contains(stdout, "-audio.wav") {
		t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr, "the server does not answer (503 server_error: The server is restarting.); trying again") || s.flaky.Load() >= 0 {
		t.Errorf("the failed streams were not followed again (%d left):\n%s", s.flaky.Load(), stderr)
	}
}

// TestAudiobookCtrlC: the command itself, sent SIGINT while it waits,
// exits 130 saying the job goes on and how to resume it.
func TestAudiobookCtrlC(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	dir := t.TempDir()
	release := s.holdEvents()
	defer release()
	cmd := exec.Command(os.Args[0], "-voice", "en-us", "-format", "wav", "-o", dir, writeBook(t, "book.md", book))
	cmd.Env = append(os.Environ(), "AUDIOBOOK_MAIN=1", "VOXKIT_BASE_URL="+s.URL, "VOXKIT_API_KEY="+s.Key)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-s.held
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	id := savedJob(t, dir)
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || !strings.Contains(stderr.String(), "audiobook: interrupted: job "+id+" goes on on the server") {
		t.Errorf("after SIGINT: %v\n%s", err, stderr.String())
	}
}

// TestAudiobookErrors: the server's errors are printed with their
// message: a file of a type no book is, text that is not UTF-8, a bad
// key, an unknown voice. Nothing is kept for a job that was not made.
func TestAudiobookErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"pdf", []string{writeBook(t, "book.pdf", "%PDF-1.4\n1 0 obj\n")}, `400 invalid_request_error (unsupported_media_type): Unsupported file "book.pdf"`},
		{"epub", []string{writeBook(t, "book.epub", zipOf(t, "OEBPS/one.xhtml", "<p>Hi.</p>"))}, "400 invalid_request_error (invalid_value): book: epub: META-INF/container.xml is missing: is it an EPUB?"},
		{"latin-1", []string{writeBook(t, "book.txt", "caf\xe9 cr\xe8me\n")}, "400 invalid_request_error (invalid_value): The file is not UTF-8 text."},
		{"voice", []string{"-voice", "nobody", writeBook(t, "book.md", book)}, "404 proxy_error (voice_not_found)"},
		{"key", []string{"-key", "sk_bad", writeBook(t, "book.md", book)}, "401 invalid_request_error (invalid_api_key)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.run(context.Background(), append([]string{"-voice", "en-us", "-o", dir}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, jobFile)); !os.IsNotExist(err) {
		t.Errorf("%s kept without a job: %v", jobFile, err)
	}
}

// zipOf is a zip archive of one file.
func zipOf(t *testing.T, name, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(text))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The key from $VOXKIT_API_KEY is used, and not shown in the usage (-h
// printed it as the -key flag's default, where it ends up in pasted
// output and logs).
func TestAudiobookKeyNotShown(t *testing.T) {
	t.Setenv("VOXKIT_API_KEY", "sk_secret_from_env")
	var usage bytes.Buffer
	if _, err := parse([]string{"-h"}, &usage); !errors.Is(err, flag.ErrHelp) || strings.Contains(usage.String(), "sk_secret") {
		t.Errorf("-h: %v\n%s", err, usage.String())
	}
	o, err := parse([]string{"-list"}, &usage)
	if err != nil || o.key != "sk_secret_from_env" {
		t.Errorf("the key: %q, %v", o.key, err)
	}
	if o, _ := parse([]string{"-list", "-key", "sk_flag"}, &usage); o.key != "sk_flag" {
		t.Errorf("-key: %q", o.key)
	}
}

// -list shows a chapter title with control characters (a line break, a
// terminal escape) on its job's line, as spaces: it printed them raw,
// breaking the table and reaching the terminal.
func TestAudiobookListControlCharacters(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	req, _ := http.NewRequest("POST", s.URL+"/audio/jobs", strings.NewReader(`{"voice":"en-us","chapters":[{"title":"Red\u001b[31m\nTwo","input":"Hi."}]}`))
	req.Header.Set("Authorization", "Bearer "+s.Key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %v %v", res, err)
	}
	res.Body.Close()
	stdout, _, err := s.run(context.Background(), "-list")
	if lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); err != nil || len(lines) != 2 || strings.ContainsRune(stdout, 0x1b) ||
		!strings.HasSuffix(lines[1], "Red [31m Two") {
		t.Errorf("-list: %v\n%q", err, stdout)
	}
}
