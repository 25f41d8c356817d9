//go:build cgo

package espeak

import (
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe asks for a pipe buffer that holds a long sentence's audio
// (1 MiB, Linux's usual most), so that an engine process writes a reply
// at once instead of waking its reader for each 64 KiB. Where the kernel
// refuses, the pipe stays as it was: only slower.
func widenPipe(f *os.File) {
	if raw, err := f.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}
