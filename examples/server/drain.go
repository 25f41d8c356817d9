package main

import (
	"net"
	"sync/atomic"
	"time"
)

// drainListener's connections, once the server drains, wait on close
// until what was written to them has reached the client (up to
// drainWait), so a slow client gets the end of its answer: otherwise it
// waits in the socket of a process that exits — in a container, with its
// network — and is lost.
type drainListener struct {
	net.Listener
	draining atomic.Bool
}

// drainWait bounds how long closing a connection waits for the client to
// take its unsent bytes.
const drainWait = 10 * time.Second

func (l *drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		return &drainConn{TCPConn: tc, draining: &l.draining}, nil
	}
	return c, err
}

type drainConn struct {
	*net.TCPConn
	draining *atomic.Bool
}

func (c *drainConn) Close() error {
	if c.draining.Load() {
		deadline := time.Now().Add(drainWait)
		for unsent(c.TCPConn) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return c.TCPConn.Close()
}
