//go:build cgo && linux

package espeak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"golang.org/x/sys/unix"
)

// Set before any init function runs, so engine processes of the test
// binary answer probes too.
var _ = func() bool {
	probe = func(c probeCall) string {
		var out []string
		try := func(what string, err error) {
			if err != nil {
				out = append(out, what+": "+err.Error())
			} else {
				out = append(out, what+": ok")
			}
		}
		_, err := os.ReadFile(c.Path)
		try("read", err)
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		try("socket", err)
		cmd := exec.Command("/bin/true")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr, os.Stderr // not /dev/null, which it may not open
		try("exec", cmd.Run())
		return strings.Join(out, "; ")
	}
	return true
}()

// TestSandbox: an engine process gets none of the program's
// environment, runs with no_new_privs, a seccomp filter and rlimits, and
// can read espeak-ng's data but no other file, open no socket and run no
// program — while it still speaks.
func TestSandbox(t *testing.T) {
	t.Setenv("VOXKIT_STORE", "postgres://voxkit:hunter2@db/voxkit")
	t.Setenv("VOXKIT_UPSTREAM_KEY", "sk-secret-upstream")
	p, err := startProcesses("", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := <-p.idle
	p.idle <- w
	proc := fmt.Sprintf("/proc/%d/", w.cmd.Process.Pid)

	environ, err := os.ReadFile(proc + "environ")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00") {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case workerEnv, dataEnv, limitsEnv, "GOTRACEBACK", "ESPEAK_DATA_PATH":
		default:
			t.Errorf("engine process environment has %q", kv)
		}
	}

	status, err := os.ReadFile(proc + "status")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(string(status), want+"\n") {
			t.Errorf("/proc/PID/status lacks %q", want)
		}
	}

	limits, err := os.ReadFile(proc + "limits")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(limits), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Max address space") && f[3] == "unlimited",
			strings.HasPrefix(line, "Max cpu time") && f[3] != fmt.Sprint(defaultLimits.CPUSeconds),
			strings.HasPrefix(line, "Max core file size") && f[4] != "0":
			t.Errorf("limit: %s", line)
		}
	}

	ctx := context.Background()
	secret := filepath.Join(t.TempDir(), "voxkit.db")
	if err := os.WriteFile(secret, []byte("accounts"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The probe's answer is in rep.Err (so err is not nil).
	rep, err := p.do(ctx, request{Probe: &probeCall{Path: secret}})
	if errors.Is(err, engine.ErrCrashed) {
		t.Fatal(err)
	}
	if want := "read: open " + secret + ": permission denied; socket: operation not permitted; exec: fork/exec /bin/true: operation not permitted"; rep.Err != want {
		t.Errorf("probe of a data file:\n got %s\nwant %s", rep.Err, want)
	}
	// The library's own data stays readable.
	rep, _ = p.do(ctx, request{Probe: &probeCall{Path: filepath.Join(p.dataDir, "phontab")}})
	if !strings.HasPrefix(rep.Err, "read: ok;") {
		t.Errorf("probe of espeak-ng-data: %s", rep.Err)
	}
	res, err := p.synth(ctx, synthCall{Voice: "en-us", Text: "Hello from the sandbox.", WPM: normalWPM})
	if err != nil || len(res.PCM) == 0 {
		t.Fatalf("speaking in the sandbox: %v, %d bytes", err, len(res.PCM))
	}
}

// TestProcessRetires: a process that has used half its CPU time limit is
// replaced after the call it answered, not killed in one: every call
// succeeds.
func TestProcessRetires(t *testing.T) {
	p, err := startProcesses("", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.limits.CPUSeconds = 1 // the next process retires after 0.5 s of CPU
	first := <-p.idle
	first.kill()
	<-first.exited
	p.idle <- first
	long := synthCall{Voice: "en-us", Text: strings.Repeat("This sentence goes on and on, ", 20) + "until it ends.", WPM: normalWPM}
	ctx := context.Background()
	var pids []int
	for i := 0; i < 200 && len(pids) < 2; i++ {
		if _, err := p.synth(ctx, long); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		w := <-p.idle
		p.idle <- w
		if pid := w.cmd.Process.Pid; len(pids) == 0 || pids[len(pids)-1] != pid {
			pids = append(pids, pid)
		}
	}
	if len(pids) < 2 {
		t.Fatalf("one process served every call: it never retired")
	}
}
