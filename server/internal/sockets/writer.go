package sockets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// ErrDrained is what Queue returns once Drain has begun: later messages
// are not sent.
var ErrDrained = errors.New("sockets: writer drained")

// Frame is one message to send. A message whose Skip is set when its
// turn comes is not sent (audio of a cancelled request, say).
type Frame struct {
	Type websocket.MessageType
	Data []byte
	Skip *atomic.Bool
}

// Writer is the one writer of a socket, of every door: it writes the
// connection's messages from one goroutine (Run), in the order they were
// queued, each within the write timeout, and pings the peer
// (Keepalive) so that one that vanished is noticed. Senders on other
// goroutines queue messages and wait while it is full, so a client that
// reads slowly slows them down instead of growing memory. After a write
// fails, the session is over (fail) and the rest is dropped.
type Writer struct {
	c       *websocket.Conn
	timeout time.Duration
	fail    func(error)
	ctx     context.Context // Send's
	failed  atomic.Bool     // a write failed: drop the rest

	out  chan Frame
	quit chan struct{} // closed by Drain
	sent chan struct{} // closed when Run has returned
	once sync.Once
}

// NewWriter returns a writer of c holding up to size messages. Each
// write has timeout (0: none); fail is called once a write or a ping
// fails, and should end the session; Send waits under ctx.
func NewWriter(ctx context.Context, c *websocket.Conn, size int, timeout time.Duration, fail func(error)) *Writer {
	return &Writer{c: c, timeout: timeout, fail: fail, ctx: ctx,
		out: make(chan Frame, size), quit: make(chan struct{}), sent: make(chan struct{})}
}

// Run writes the queued messages in order until Drain; it is the only
// goroutine that writes to the connection.
func (w *Writer) Run(ctx context.Context) {
	defer close(w.sent)
	for {
		select {
		case m := <-w.out:
			w.write(ctx, m)
		case <-w.quit:
			for {
				select {
				case m := <-w.out:
					w.write(ctx, m)
				default:
					return
				}
			}
		}
	}
}

// Drain lets Run send what is queued and waits until it has (each
// message within the write timeout); later messages are not sent. Run
// must have been started.
func (w *Writer) Drain() {
	w.once.Do(func() { close(w.quit) })
	<-w.sent
}

// Send queues v as a JSON text message.
func (w *Writer) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.Queue(w.ctx, Frame{Type: websocket.MessageText, Data: b})
}

// Queue hands m to Run, waiting while the writer is full. Once Drain has
// begun it returns ErrDrained (a message queued while Drain begins may
// be dropped).
func (w *Writer) Queue(ctx context.Context, m Frame) error {
	select {
	case <-w.quit:
		return ErrDrained
	default:
	}
	select {
	case w.out <- m:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-w.quit:
		return ErrDrained
	}
}

// write sends one message within the write timeout, so a client that
// stops reading cannot hold the connection.
func (w *Writer) write(ctx context.Context, m Frame) {
	if ctx.Err() != nil || w.failed.Load() || m.Skip != nil && m.Skip.Load() {
		return
	}
	if w.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.timeout)
		defer cancel()
	}
	if err := w.c.Write(ctx, m.Type, m.Data); err != nil {
		// A write that times out closes the connection, and the error
		// may be the closed connection's rather than the deadline's.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("write timeout (%v): %w", w.timeout, err)
		}
		w.failed.Store(true)
		w.fail(err)
	}
}

// Keepalive pings the peer every interval until ctx ends, so that a peer
// that vanished without closing (a dropped network) is noticed instead of
// holding the connection; a ping unanswered within the write timeout (at
// least 5 s) calls fail. Pongs arrive through the connection's reader,
// which must be running.
func (w *Writer) Keepalive(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, max(w.timeout, 5*time.Second))
			err := w.c.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				w.fail(fmt.Errorf("no pong: %w", err))
				return
			}
		}
	}
}
