package servertest

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// PeakRSS returns the process's peak resident memory, in bytes, since the
// last ResetPeakRSS (or its start), for tests that bound what serving
// costs. It skips the test where Linux's /proc does not tell.
func PeakRSS(t testing.TB) int64 {
	t.Helper()
	return PeakRSSOf(t, os.Getpid())
}

// PeakRSSOf is PeakRSS of another process, pid: a server the test
// started, say.
func PeakRSSOf(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
	return 0
}

// ResetPeakRSS starts a new peak measurement: PeakRSS then reports the
// peak from here on. It skips the test where Linux's /proc cannot.
func ResetPeakRSS(t testing.TB) {
	t.Helper()
	ResetPeakRSSOf(t, os.Getpid())
}

// ResetPeakRSSOf is ResetPeakRSS of another process, pid.
func ResetPeakRSSOf(t testing.TB, pid int) {
	t.Helper()
	if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS: %v", err)
	}
}

// PeakRSSGrowth collects the garbage, returns free memory to the system
// and starts a new peak measurement; the function it returns reports how
// far the peak resident memory has since risen above where it started.
// It skips the test where Linux's /proc does not tell.
func PeakRSSGrowth(t testing.TB) func() int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	ResetPeakRSS(t)
	base := PeakRSS(t)
	return func() int64 { return PeakRSS(t) - base }
}
