package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// exampleServer builds and starts examples/server on a free loopback
// port with args, and returns its address and the key it printed on
// first start.
func exampleServer(t *testing.T, args ...string) (addr, key string) {
	t.Helper()
	addr, key, _ = exampleServerPassword(t, args...)
	return addr, key
}

// exampleServerPassword is exampleServer that also returns the password
// of the account "local" printed on first start.
func exampleServerPassword(t *testing.T, args ...string) (addr, key, password string) {
	t.Helper()
	p := startExample(t, nil, args...)
	select {
	case key = <-p.keys:
	case <-time.After(60 * time.Second):
		t.Fatal("example server printed no key")
	}
	return p.addr, key, printedAfter(p.Stdout(), "password:") // printed before the key
}

// exampleProc is a running example server.
type exampleProc struct {
	addr string
	keys chan string // the keys it prints ("api key: …")
	cmd  *exec.Cmd
	stop context.CancelFunc

	mu             sync.Mutex
	stdout, stderr strings.Builder
}

// Stdout and Stderr return what the server printed so far.
func (p *exampleProc) Stdout() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stdout.String() }
func (p *exampleProc) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stderr.String() }

// Stop interrupts the server (SIGINT, as a terminal would) and returns
// an error unless it then exited with status 0.
func (p *exampleProc) Stop() error {
	p.stop()
	err := p.cmd.Wait()
	if p.cmd.ProcessState != nil && p.cmd.ProcessState.Success() {
		return nil // Wait reports the cancelled context even then
	}
	return err
}

// startExample builds and starts examples/server on a free loopback port
// with env added to its environment and args (it logs JSON), and returns
// once it listens.
func startExample(t *testing.T, env []string, args ...string) *exampleProc {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the example server")
	}
	bin := buildExampleServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"-addr", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "data"), "-log", "json"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &exampleProc{keys: make(chan string, 4), cmd: cmd, stop: cancel}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.stdout.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if key, ok := strings.CutPrefix(sc.Text(), "api key:"); ok {
				p.keys <- strings.TrimSpace(key)
			}
		}
	}()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Addr != "" {
				addrc <- strings.TrimPrefix(line.Addr, "http://")
			}
		}
	}()
	select {
	case p.addr = <-addrc:
	case <-time.After(60 * time.Second):
		t.Fatalf("example server did not start:\n%s", p.Stderr())
	}
	return p
}

// printedAfter returns what out printed on its line starting with label.
func printedAfter(out, label string) string {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(line, label); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// exampleCommand runs the example server binary with env added to its
// environment and args (a subcommand), and returns its stdout.
func exampleCommand(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(buildExampleServer(t), append([]string{"-data", filepath.Join(t.TempDir(), "data"), "-log", "off"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), err
}

var exampleBuild struct {
	once sync.Once
	bin  string
	err  error
}

// buildExampleServer builds examples/server once per test binary.
func buildExampleServer(t *testing.T) string {
	t.Helper()
	exampleBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "voxkit-e2e-")
		if err != nil {
			exampleBuild.err = err
			return
		}
		exampleBuild.bin = filepath.Join(dir, "server")
		out, err := exec.Command("go", "build", "-o", exampleBuild.bin, "github.com/voxkit/voxkit/examples/server").CombinedOutput()
		if err != nil {
			exampleBuild.err = fmt.Errorf("go build examples/server: %v\n%s", err, out)
		}
	})
	if exampleBuild.err != nil {
		t.Fatal(exampleBuild.err)
	}
	return exampleBuild.bin
}

// TestMain removes the example server binary after the tests. With
// -short it runs none: these are the slow end-to-end tests (built
// binaries, browsers, SDKs, fleets) that make test runs in full.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: end-to-end tests skipped with -short")
		os.Exit(0)
	}
	code := m.Run()
	if exampleBuild.bin != "" {
		os.RemoveAll(filepath.Dir(exampleBuild.bin))
	}
	pockettest.RemoveShared()
	os.Exit(code)
}

// trickle sends head, then one byte of drip at a time every interval,
// and returns how long the server kept the connection open (0 if it
// outlasted the whole drip) and what it sent.
func trickle(t *testing.T, addr, head, drip string, interval time.Duration) (time.Duration, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	closed := make(chan struct{})
	var got bytes.Buffer
	go func() { io.Copy(&got, c); close(closed) }()
	io.WriteString(c, head)
	for i := range len(drip) {
		select {
		case <-closed:
			return time.Since(start), got.Bytes()
		case <-time.After(interval):
		}
		if _, err := io.WriteString(c, drip[i:i+1]); err != nil {
			<-closed
			return time.Since(start), got.Bytes()
		}
	}
	select {
	case <-closed:
		return time.Since(start), got.Bytes()
	case <-time.After(interval):
		return 0, nil
	}
}

// TestExampleServerSlowloris: the example server must drop clients that
// send their headers or their body too slowly.
func TestExampleServerSlowloris(t *testing.T) {
	addr, key := exampleServer(t, "-read-header-timeout", "1s", "-read-timeout", "1s")
	t.Run("slow headers", func(t *testing.T) {
		held, _ := trickle(t, addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n", strings.Repeat("X", 40), 100*time.Millisecond)
		if held == 0 || held > 3*time.Second {
			t.Errorf("a client trickling headers was held %v (read-header-timeout 1s)", held)
		}
	})
	t.Run("slow body", func(t *testing.T) {
		body := `{"voice":"alloy","input":"` + strings.Repeat("a", 30) + `"}`
		head := fmt.Sprintf("POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, len(body))
		held, got := trickle(t, addr, head, body, 100*time.Millisecond)
		if held == 0 {
			t.Fatalf("a client sending its body at 10 bytes/s kept the connection for the whole %d s", len(body)/10)
		}
		res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
		if err != nil {
			t.Fatalf("no HTTP answer before the close (%q): %v", got, err)
		}
		b, _ := io.ReadAll(res.Body)
		if _, err := checkError(res.Header, b); res.StatusCode != http.StatusRequestTimeout || err != nil {
			t.Errorf("slow body: %d %v", res.StatusCode, err)
		}
	})
}

// TestExampleServerOpenAIVoices: against the example binary as shipped,
// every OpenAI voice name that SDK samples use speaks, and the model list
// answers.
func TestExampleServerOpenAIVoices(t *testing.T) {
	addr, key := exampleServer(t)
	client := &http.Client{Timeout: 30 * time.Second}
	for _, v := range []string{"alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar"} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/audio/speech",
			strings.NewReader(fmt.Sprintf(`{"model":"gpt-4o-mini-tts","voice":%q,"input":"Hello from the example server.","response_format":"pcm"}`, v)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 200 {
			t.Errorf("voice %s: %d %s", v, res.StatusCode, body)
			continue
		}
		if d, r := pcmSeconds(body), rms(body); d < 0.8 || r < 300 {
			t.Errorf("voice %s: %.2fs, rms %.0f", v, d, r)
		}
	}
}
