package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exampleServer builds and starts examples/server on a free loopback
// port with args, and returns its address and the key it printed on
// first start.
func exampleServer(t *testing.T, args ...string) (addr, key string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the example server")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	build := exec.Command("go", "build", "-o", bin, "github.com/voxkit/voxkit/examples/server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/server: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"-addr", "127.0.0.1:0", "-data", filepath.Join(dir, "data"), "-log", "json"}, args...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	keyc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "sk_") {
				keyc <- sc.Text()
			}
		}
	}()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Addr != "" {
				addrc <- strings.TrimPrefix(line.Addr, "http://")
			}
		}
	}()
	for addr == "" || key == "" {
		select {
		case addr = <-addrc:
		case key = <-keyc:
		case <-time.After(60 * time.Second):
			t.Fatal("example server did not start")
		}
	}
	return addr, key
}

// trickle sends head, then one byte of drip at a time every interval,
// and returns how long the server kept the connection open (0 if it
// outlasted the whole drip).
func trickle(t *testing.T, addr, head, drip string, interval time.Duration) time.Duration {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	closed := make(chan struct{})
	go func() { io.Copy(io.Discard, c); close(closed) }()
	io.WriteString(c, head)
	for i := range len(drip) {
		select {
		case <-closed:
			return time.Since(start)
		case <-time.After(interval):
		}
		if _, err := io.WriteString(c, drip[i:i+1]); err != nil {
			return time.Since(start)
		}
	}
	select {
	case <-closed:
		return time.Since(start)
	case <-time.After(interval):
		return 0
	}
}

// TestExampleServerSlowloris: the example server must drop clients that
// send their headers or their body too slowly.
func TestExampleServerSlowloris(t *testing.T) {
	addr, key := exampleServer(t, "-read-header-timeout", "1s")
	t.Run("slow headers", func(t *testing.T) {
		held := trickle(t, addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n", strings.Repeat("X", 40), 100*time.Millisecond)
		if held == 0 || held > 3*time.Second {
			t.Errorf("a client trickling headers was held %v (read-header-timeout 1s)", held)
		}
	})
	t.Run("slow body", func(t *testing.T) {
		knownBug(t, "examples/server sets no ReadTimeout or body read deadline: a slow body holds a connection forever (examples/server/main.go:290)")
		body := `{"voice":"alloy","input":"` + strings.Repeat("a", 30) + `"}`
		head := fmt.Sprintf("POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, len(body))
		held := trickle(t, addr, head, body, 100*time.Millisecond)
		if held == 0 {
			t.Errorf("a client sending its body at 10 bytes/s kept the connection for the whole %d s", len(body)/10)
		}
	})
}
