package main

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unsent returns the bytes written to c that the client has not
// acknowledged yet (the send queue, SIOCOUTQ); 0 when it cannot tell, and
// when the connection is closed: a client that reset it acknowledges
// nothing more, though the count stays.
func unsent(c *net.TCPConn) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	rc.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err != nil || info.State == tcpClosed {
			return
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}

// tcpClosed is Linux's TCP_CLOSE state (include/net/tcp_states.h).
const tcpClosed = 7
