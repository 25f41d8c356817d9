//go:build unix

package encode_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used. On
// a shared machine it measures an encoder better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
