package main

import (
	"net"
	"syscall"
	"unsafe"
)

// unsent returns the bytes written to c that the client has not
// acknowledged yet (the send queue, SIOCOUTQ); 0 when it cannot tell.
func unsent(c *net.TCPConn) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	rc.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}
