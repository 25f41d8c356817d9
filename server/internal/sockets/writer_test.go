package sockets

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// pair returns the two ends of a WebSocket connection on loopback.
func pair(t *testing.T) (server, client *websocket.Conn) {
	t.Helper()
	accepted := make(chan *websocket.Conn, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		accepted <- c
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	client, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.CloseNow() })
	server = <-accepted
	t.Cleanup(func() { server.CloseNow() })
	return server, client
}

// TestOrderSkipDrain: messages arrive in the order queued, skipped ones
// not at all; Drain sends what waits and refuses what comes after.
func TestOrderSkipDrain(t *testing.T) {
	server, client := pair(t)
	o := NewWriter(context.Background(), server, 8, time.Second, func(err error) { t.Errorf("fail: %v", err) })
	ctx := context.Background()
	go o.Run(ctx)
	skipped := new(atomic.Bool)
	skipped.Store(true)
	for _, m := range []Frame{{Type: websocket.MessageText, Data: []byte("one")}, {Type: websocket.MessageText, Data: []byte("gone"), Skip: skipped},
		{Type: websocket.MessageBinary, Data: []byte("two")}} {
		if err := o.Queue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	o.Drain()
	if err := o.Queue(ctx, Frame{Type: websocket.MessageText, Data: []byte("late")}); !errors.Is(err, ErrDrained) {
		t.Errorf("Queue after Drain: %v", err)
	}
	for _, want := range []string{"one", "two"} {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, data, err := client.Read(rctx)
		cancel()
		if err != nil || string(data) != want {
			t.Fatalf("read %q, %v; want %q", data, err, want)
		}
	}
}

// TestWriteTimeout: a peer that reads nothing makes a write pass its
// timeout, which fails the session, and the producers are not held.
func TestWriteTimeout(t *testing.T) {
	server, _ := pair(t)
	failed := make(chan error, 1)
	o := NewWriter(context.Background(), server, 1, 100*time.Millisecond, func(err error) {
		select {
		case failed <- err:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go o.Run(ctx)
	big := make([]byte, 4<<20) // more than the socket buffers hold
	go func() {
		for ctx.Err() == nil {
			o.Queue(ctx, Frame{Type: websocket.MessageBinary, Data: big})
		}
	}()
	select {
	case err := <-failed:
		// The write times out, or, now and then under load, finds the
		// connection closed under it (the websocket library closes it
		// when a write's context ends): either ends the session.
		if !strings.Contains(err.Error(), "write timeout") && !errors.Is(err, net.ErrClosed) {
			t.Errorf("failed with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a peer that reads nothing never timed out")
	}
}
