package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// loadErrors matches the kinds of failure in the load tool's "errors:"
// line, each with its count: "errors: 502 proxy_error×2 transport×1".
var loadErrors = regexp.MustCompile(` (\S+(?: \S+)?)×(\d+)`)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		// A port just closed may come again: two servers of one test
		// must not be given the same one.
		if !handedOut.addrs[addr] {
			handedOut.addrs[addr] = true
			return addr
		}
	}
}

// handedOut are the addresses freeAddr has given this test binary.
var handedOut = struct {
	sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

// process is a running example server.
type process struct {
	cmd    *exec.Cmd
	stdout strings.Builder
	mu     sync.Mutex
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// startAt starts the example server on addr with args and waits until
// it answers /healthz.
func startAt(t *testing.T, bin, addr string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", addr, "-log", "off"}, args...)...)
	p := &process{cmd: cmd}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.stdout.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	var err error
	if !wait.For(60*time.Second, func() bool {
		var res *http.Response
		if res, err = http.Get("http://" + addr + "/healthz"); err == nil {
			res.Body.Close()
		}
		return err == nil
	}) {
		t.Fatalf("%s did not start: %v", addr, err)
	}
	return p
}

// buildLoadTool builds examples/loadtest.
func buildLoadTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "loadtest")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/voxkit/voxkit/examples/loadtest").CombinedOutput(); err != nil {
		t.Fatalf("building the load tool: %v\n%s", err, out)
	}
	return bin
}

// metricSum adds the samples of a Prometheus text exposition whose name
// is name and whose labels include every one of labels.
func metricSum(t *testing.T, url, name string, labels ...string) float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

var loadLine = regexp.MustCompile(`requests: (\d+) ok`)

// TestFleet: PostgreSQL, three workers, two gateways in front of them,
// and the load tool at 16 clients (8 against each gateway) for 60 s, with
// one worker killed at 20 s and restarted at 40 s. No request fails that
// had not started streaming, every failure is a clean proxy_error, the
// restarted worker is back in rotation, and the gateways' counters agree
// with the load tool's.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of load")
	}
	dsn := pgtest.Start(t)
	bin := buildExampleServer(t)
	load := buildLoadTool(t)

	workers := []string{freeAddr(t), freeAddr(t), freeAddr(t)}
	first := startAt(t, bin, workers[0], "-store", dsn, "-data", t.TempDir())
	// The key is printed before the server listens, but its line may reach
	// the output after /healthz answers.
	var key string
	wait.For(30*time.Second, func() bool {
		for line := range strings.Lines(first.output()) {
			if k, ok := strings.CutPrefix(line, "api key:"); ok {
				key = strings.TrimSpace(k)
			}
		}
		return key != ""
	})
	if key == "" {
		t.Fatalf("the first start printed no key:\n%s", first.output())
	}
	procs := []*process{first}
	for _, addr := range workers[1:] {
		procs = append(procs, startAt(t, bin, addr, "-store", dsn, "-data", t.TempDir()))
	}
	var urls []string
	for _, w := range workers {
		urls = append(urls, "http://"+w)
	}
	var gateways, metrics []string
	for range 2 {
		addr, maddr := freeAddr(t), freeAddr(t)
		startAt(t, bin, addr, "-store", dsn, "-data", t.TempDir(), "-upstream", strings.Join(urls, ","),
			"-upstream-key", key, "-metrics-addr", maddr)
		gateways, metrics = append(gateways, addr), append(metrics, "http://"+maddr+"/metrics")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	outs := make([]strings.Builder, len(gateways))
	var wg sync.WaitGroup
	for i, g := range gateways {
		cmd := exec.CommandContext(ctx, load, "-url", "http://"+g, "-key", key, "-c", "8", "-d", "60s")
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { cmd.Wait() })
	}
	time.Sleep(20 * time.Second)
	procs[0].cmd.Process.Signal(syscall.SIGKILL)
	procs[0].cmd.Wait()
	time.Sleep(20 * time.Second)
	startAt(t, bin, workers[0], "-store", dsn, "-data", t.TempDir())
	back := metricSum(t, metrics[0], "voxkit_upstream_requests_total", urls[0])
	wg.Wait()

	total := 0
	for i, out := range outs {
		report := out.String()
		t.Logf("gateway %d:\n%s", i, report)
		m := loadLine.FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("no report from the load tool:\n%s", report)
		}
		ok, _ := strconv.Atoi(m[1])
		total += ok
		errLine := report[strings.Index(report, "errors:"):]
		errLine = errLine[:strings.IndexByte(errLine, '\n')]
		// A request the killed worker had taken fails: the gateway does not
		// try it on another worker (it may be what killed it), and answers
		// 502 proxy_error, or cuts a stream that had begun (a transport
		// error, the clean end the docs describe). A worker that had not
		// taken it yet is retried around. So at most one request per
		// client fails, and only so.
		failed := 0
		for _, m := range loadErrors.FindAllStringSubmatch(strings.TrimPrefix(errLine, "errors:"), -1) {
			n, _ := strconv.Atoi(m[2])
			failed += n
			if m[1] != "502 proxy_error" && m[1] != "transport" {
				t.Errorf("gateway %d: failed requests: %s", i, errLine)
			}
		}
		if failed > 8 {
			t.Errorf("gateway %d: %d requests failed, more than its 8 clients had in flight: %s", i, failed, errLine)
		}
		// Counters: the gateway answered 200 as often as the load tool
		// counted.
		served := metricSum(t, metrics[i], "voxkit_http_requests_total", `route="/v1/audio/speech"`, `status="200"`)
		if int(served) != ok {
			t.Errorf("gateway %d counted %v requests answered 200, the load tool %d", i, served, ok)
		}
	}
	if total < 100 {
		t.Errorf("only %d requests in a minute", total)
	}
	// The restarted worker is back: it took requests after the restart.
	if after := metricSum(t, metrics[0], "voxkit_upstream_requests_total", urls[0]); after <= back {
		t.Errorf("the restarted worker got no requests (%v before the restart's load, %v after)", back, after)
	}
	if h := metricSum(t, metrics[0], "voxkit_upstream_healthy", urls[0]); h != 1 {
		t.Errorf("the restarted worker is not healthy: %v", h)
	}
}
