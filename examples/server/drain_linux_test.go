package main

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestUnsentAfterReset: bytes written to a client that had gone are
// never acknowledged (its end answers with a reset); unsent counts them
// no longer, so closing such a connection while draining does not wait
// drainWait for them.
func TestUnsentAfterReset(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := c.(*net.TCPConn)
	client.Close()
	if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after the client left: %v", err)
	}
	if _, err := conn.Write(make([]byte, 24)); err != nil { // as a TLS close_notify alert would
		t.Fatal(err)
	}
	// The reset arrives on the loopback within a moment; poll for it.
	for deadline := time.Now().Add(2 * time.Second); unsent(conn) != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := unsent(conn); n != 0 {
		t.Errorf("%d bytes unsent to a client that reset the connection", n)
	}
}
