//go:build cgo

package espeak

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// The first half of an engine process's sandbox, set up by a constructor
// before the Go runtime starts its first thread, so that every thread of
// the process inherits it: no_new_privs and a Landlock domain. (Landlock
// applies to the thread that asks and to the threads it starts later;
// Linux 6.18 has no flag to spread it to threads already running.)

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

// Landlock's ABI, written out so that older kernel headers do.
#define VOXKIT_RULE_PATH_BENEATH 1
struct voxkit_ruleset_attr {
	uint64_t fs, net, scoped;
};
struct voxkit_path_beneath {
	uint64_t allowed;
	int32_t fd;
} __attribute__((packed));

static int voxkit_nnp = -1;     // 0 once no_new_privs is set, else errno
static int voxkit_landlock = -1; // Landlock's ABI in force (> 0), or -errno

static int voxkit_allow(int ruleset, const char *path, uint64_t allowed) {
	struct voxkit_path_beneath rule = {allowed, open(path, O_PATH | O_CLOEXEC)};
	if (rule.fd < 0)
		return -1;
	int rc = syscall(SYS_landlock_add_rule, ruleset, VOXKIT_RULE_PATH_BENEATH, &rule, 0);
	close(rule.fd);
	return rc;
}

__attribute__((constructor)) static void voxkit_sandbox(void) {
	const char *v = getenv("VOXKIT_ESPEAK_PROCESS");
	if (v == NULL || strcmp(v, "1") != 0)
		return;
	voxkit_nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
	int abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
	if (abi <= 0) {
		voxkit_landlock = -errno;
		return;
	}
	// Every right over files this ABI knows is handled, so denied but for
	// the rules below: reading the data directory and this process's own
	// /proc entry (which the Go runtime and the race detector read).
	struct voxkit_ruleset_attr attr = {(1ull << 13) - 1, 0, 0};
	if (abi >= 2) attr.fs |= 1ull << 13; // refer
	if (abi >= 3) attr.fs |= 1ull << 14; // truncate
	if (abi >= 5) attr.fs |= 1ull << 15; // ioctl on devices
	if (abi >= 4) attr.net = 3;          // bind and connect over TCP
	if (abi >= 6) attr.scoped = 3;       // abstract unix sockets, signals
	int ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0) {
		voxkit_landlock = -errno;
		return;
	}
	const uint64_t read = (1ull << 2) | (1ull << 3); // read a file, read a directory
	char self[64];
	snprintf(self, sizeof self, "/proc/%d", (int)getpid());
	const char *data = getenv("VOXKIT_ESPEAK_DATA");
	if ((data != NULL && data[0] != 0 && voxkit_allow(ruleset, data, read) != 0) ||
	    voxkit_allow(ruleset, self, read) != 0 ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
		voxkit_landlock = -errno;
	} else {
		voxkit_landlock = abi;
	}
	close(ruleset);
}

static int voxkit_sandbox_nnp(void) { return voxkit_nnp; }
static int voxkit_sandbox_landlock(void) { return voxkit_landlock; }
*/
import "C"

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The sandbox of an engine process. libespeak-ng corrupts its memory on
// inputs nobody has found yet, so an engine process is treated as one an
// input may take over, and is given as little as the library needs:
//
//   - an environment of its own, empty but for what it is told
//     (startProcess): none of the server's secrets;
//   - no_new_privs and a Landlock domain (the constructor above): it may
//     read the espeak-ng-data directory and its own /proc entry, and
//     nothing else on any file system, write nowhere, connect to no TCP
//     port, signal no process outside itself;
//   - a seccomp filter (seccompFilter): no sockets, no exec, no ptrace,
//     no io_uring (which would bypass the filter), no mounts or
//     namespaces;
//   - rlimits (sandboxLimits): address space, CPU time, no core files.
//
// What the kernel refuses is reported to the engine, which logs it once;
// the process serves regardless, contained as before.

// sandboxLimits are the resource limits of an engine process.
type sandboxLimits struct {
	// AddressSpace is RLIMIT_AS above the address space the process has
	// when it starts (the Go runtime's reservations, and the race
	// detector's shadow memory under -race, are not the library's use).
	AddressSpace uint64
	// CPU is RLIMIT_CPU: the most CPU time the process may use in its
	// life. The engine retires a process that has used half of it (see
	// reply.Retire), so that legitimate work never meets the limit.
	CPUSeconds uint64
}

// defaultLimits: a worker's address space at start is ~1.6 GB (thread
// stacks and the Go heap's reservations), its peak after long sentences
// ~40 MB more; 1 GiB more is far beyond any legitimate call. One call
// takes at most callTimeout (30 s) of CPU, so a process retired at 5 min
// never reaches 10.
var defaultLimits = sandboxLimits{AddressSpace: 1 << 30, CPUSeconds: 600}

// sandbox finishes an engine process's sandbox — its rlimits and seccomp
// filter — and says what is in force and what the kernel refused.
func sandbox(lim sandboxLimits) (in []string, refused []string) {
	note := func(what string, err error) {
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s (%v)", what, err))
		} else {
			in = append(in, what)
		}
	}
	if e := C.voxkit_sandbox_nnp(); e != 0 {
		note("no_new_privs", syscall.Errno(e))
	} else {
		note("no_new_privs", nil)
	}
	if abi := int(C.voxkit_sandbox_landlock()); abi < 0 {
		note("landlock", syscall.Errno(-abi))
	} else {
		note(fmt.Sprintf("landlock (ABI %d)", abi), nil)
	}
	note("rlimits", setLimits(lim))
	note("seccomp", installSeccomp())
	return in, refused
}

func setLimits(lim sandboxLimits) error {
	if lim.AddressSpace > 0 {
		size, err := addressSpace()
		if err != nil {
			return err
		}
		n := size + lim.AddressSpace
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: n, Max: n}); err != nil {
			return fmt.Errorf("address space: %w", err)
		}
	}
	if lim.CPUSeconds > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: lim.CPUSeconds, Max: lim.CPUSeconds}); err != nil {
			return fmt.Errorf("cpu: %w", err)
		}
	}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
		return fmt.Errorf("core: %w", err)
	}
	return nil
}

// addressSpace returns the process's mapped address space in bytes.
func addressSpace() (uint64, error) {
	var b [64]byte
	fd, err := unix.Open("/proc/self/statm", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	n, err := unix.Read(fd, b[:])
	if err != nil {
		return 0, err
	}
	var pages uint64
	if _, err := fmt.Sscan(string(b[:n]), &pages); err != nil {
		return 0, err
	}
	return pages * uint64(unix.Getpagesize()), nil
}

// auditArch is the seccomp architecture of the calling convention the
// filter's system call numbers belong to; 0 where it has none written.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]

// deniedCalls fail with EPERM in an engine process: the network, running
// programs, reaching into other processes, and the ways around a filter.
var deniedCalls = []uintptr{
	unix.SYS_SOCKET, unix.SYS_SOCKETPAIR, unix.SYS_CONNECT, unix.SYS_BIND, unix.SYS_LISTEN,
	unix.SYS_ACCEPT, unix.SYS_ACCEPT4,
	unix.SYS_EXECVE, unix.SYS_EXECVEAT,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD, unix.SYS_KEXEC_LOAD,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
}

// seccompFilter is a classic BPF program that kills a call of another
// architecture's convention (x32 on amd64 included), fails the denied
// calls with EPERM and allows the rest.
func seccompFilter() []unix.SockFilter {
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
	)
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	n := len(deniedCalls)
	prog := []unix.SockFilter{
		{Code: ldAbs, K: 4}, // seccomp_data.arch
		{Code: jeq, K: auditArch, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ldAbs, K: 0},                          // seccomp_data.nr
		{Code: jge, K: 0x40000000, Jt: uint8(n + 1)}, // the x32 convention
	}
	for i, nr := range deniedCalls {
		prog = append(prog, unix.SockFilter{Code: jeq, K: uint32(nr), Jt: uint8(n - i)})
	}
	return append(prog,
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: ret, K: deny})
}

// installSeccomp puts seccompFilter on every thread of the process
// (TSYNC), and on the threads they start.
func installSeccomp() error {
	if auditArch == 0 {
		return fmt.Errorf("no filter written for %s", runtime.GOARCH)
	}
	prog := seccompFilter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	runtime.KeepAlive(prog)
	return nil
}

// cpuUsed is the CPU time the process has used.
func cpuUsed() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
