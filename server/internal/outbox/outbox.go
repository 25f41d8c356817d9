// Package outbox writes a WebSocket connection's messages from one
// goroutine, in the order they were queued, each within a write timeout,
// and pings the peer so that one that vanished is noticed. Writers on
// other goroutines queue messages and wait while the outbox is full, so a
// client that reads slowly slows its producers down instead of growing
// memory.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// ErrDrained is what Queue returns once Drain has begun: later messages
// are not sent.
var ErrDrained = errors.New("outbox: drained")

// Message is one message to send. A message whose Skip is set when its
// turn comes is not sent (audio of a cancelled request, say).
type Message struct {
	Type websocket.MessageType
	Data []byte
	Skip *atomic.Bool
}

// Outbox sends the messages of one connection.
type Outbox struct {
	c            *websocket.Conn
	writeTimeout time.Duration
	fail         func(error)

	out  chan Message
	quit chan struct{} // closed by Drain
	sent chan struct{} // closed when Run has returned
	once sync.Once
}

// New returns an outbox of c holding up to size messages. Each write has
// writeTimeout (0: none); fail is called once a write or a ping fails,
// and should end the session.
func New(c *websocket.Conn, size int, writeTimeout time.Duration, fail func(error)) *Outbox {
	return &Outbox{c: c, writeTimeout: writeTimeout, fail: fail,
		out: make(chan Message, size), quit: make(chan struct{}), sent: make(chan struct{})}
}

// Run writes the queued messages in order until Drain; it is the only
// goroutine that writes to the connection.
func (o *Outbox) Run(ctx context.Context) {
	defer close(o.sent)
	for {
		select {
		case m := <-o.out:
			o.write(ctx, m)
		case <-o.quit:
			for {
				select {
				case m := <-o.out:
					o.write(ctx, m)
				default:
					return
				}
			}
		}
	}
}

// Drain lets Run send what is queued and waits until it has (each message
// within the write timeout); later messages are not sent. Run must have
// been started.
func (o *Outbox) Drain() {
	o.once.Do(func() { close(o.quit) })
	<-o.sent
}

// Queue hands m to Run, waiting while the outbox is full. Once Drain has
// begun it returns ErrDrained (a message queued while Drain begins may be
// dropped).
func (o *Outbox) Queue(ctx context.Context, m Message) error {
	select {
	case <-o.quit:
		return ErrDrained
	default:
	}
	select {
	case o.out <- m:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-o.quit:
		return ErrDrained
	}
}

// write sends one message within the write timeout, so a client that
// stops reading cannot hold the connection. After a failed write the
// session is over (fail) and the rest is dropped.
func (o *Outbox) write(ctx context.Context, m Message) {
	if ctx.Err() != nil || m.Skip != nil && m.Skip.Load() {
		return
	}
	if o.writeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.writeTimeout)
		defer cancel()
	}
	if err := o.c.Write(ctx, m.Type, m.Data); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("write timeout (%v): %w", o.writeTimeout, err)
		}
		o.fail(err)
	}
}

// Keepalive pings the peer every interval until ctx ends, so that a peer
// that vanished without closing (a dropped network) is noticed instead of
// holding the connection; a ping unanswered within the write timeout (at
// least 5 s) calls fail. Pongs arrive through the connection's reader,
// which must be running.
func (o *Outbox) Keepalive(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, max(o.writeTimeout, 5*time.Second))
			err := o.c.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				o.fail(fmt.Errorf("no pong: %w", err))
				return
			}
		}
	}
}
