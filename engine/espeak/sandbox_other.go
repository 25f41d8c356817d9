//go:build cgo && !linux

package espeak

import (
	"syscall"
	"time"
)

// Engine processes have no sandbox but their environment on systems
// other than Linux (see sandbox_linux.go).
type sandboxLimits struct{ AddressSpace, CPUSeconds uint64 }

var defaultLimits sandboxLimits

func sandbox(sandboxLimits) (in, refused []string) {
	return nil, []string{"no_new_privs, landlock, rlimits, seccomp (Linux only)"}
}

func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
