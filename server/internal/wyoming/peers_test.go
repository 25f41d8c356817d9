package wyoming_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/internal/wyoming"
)

// dialWyomingFrom is dialWyoming from the local address ip (another
// loopback address is another peer).
func dialWyomingFrom(t *testing.T, addr, ip string) *testserver.WyomingClient {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dialing from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	return &testserver.WyomingClient{T: t, C: c, R: bufio.NewReader(c)}
}

// TestWyomingPeerShare: one peer address opening as many connections as
// the server holds gets its share (a quarter, by default) and then
// server_busy naming the per-address limit; another peer is still
// served.
func TestWyomingPeerShare(t *testing.T) {
	e := testserver.New(t, testserver.Options{WyomingConns: 8})
	addr := testserver.StartWyoming(t, e)
	served := 0
	for i := range 8 {
		c := dialWyomingFrom(t, addr, "127.0.0.1")
		c.Send("describe", nil)
		ev, err := wyoming.Read(c.R)
		switch {
		case err == nil && ev.Type == "info":
			served++
		case err == nil && ev.String("code") == "server_busy":
			if !strings.Contains(ev.String("text"), "one address (2)") {
				t.Errorf("connection %d: %s", i, ev.String("text"))
			}
		default:
			t.Fatalf("connection %d: %s %v %v", i, ev.Type, ev.Data, err)
		}
	}
	if served != 2 {
		t.Errorf("one peer holds %d of 8 connections, want its share of 2", served)
	}
	other := dialWyomingFrom(t, addr, "127.0.0.2")
	other.Send("describe", nil)
	if ev, err := wyoming.Read(other.R); err != nil || ev.Type != "info" {
		t.Errorf("another peer, while the first holds its most: %s %s %v", ev.Type, ev.String("text"), err)
	}
}

// TestWyomingDescribeIsNotWork: a connection that keeps sending describe,
// each answered, is closed once the idle time has passed since it opened
// (a describe does not count as activity).
func TestWyomingDescribeIsNotWork(t *testing.T) {
	e := testserver.New(t, testserver.Options{WSIdle: 500 * time.Millisecond})
	addr := testserver.StartWyoming(t, e)
	c := testserver.DialWyoming(t, addr)
	closed := wait.For(20*time.Second, func() bool {
		if err := wyoming.Write(c.C, "describe", nil, nil); err != nil {
			return true
		}
		ev, err := wyoming.Read(c.R)
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || (err != nil && strings.Contains(err.Error(), "reset")) {
			return true
		}
		if err != nil || ev.Type != "info" {
			t.Fatalf("describe: %s %v %v", ev.Type, ev.Data, err)
		}
		time.Sleep(100 * time.Millisecond)
		return false
	})
	if !closed {
		t.Error("a connection that only describes is still open 20 s after it opened, with an idle time of 0.5 s")
	}
}
