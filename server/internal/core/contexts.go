package core

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// The contexts of a socket: several input streams on one connection,
// each speaking in its own goroutine, concurrently with the others, fed
// its Ops in order through a queue bounded in messages and bytes, and
// cancellable alone.

// MaxSocketContexts is the most contexts one socket may have open at
// once: as many as ElevenLabs allows on its multi-stream socket, and
// every socket of every door is held to it.
const MaxSocketContexts = 5

// MaxPending is the most bytes of messages that may wait for one
// context's synthesis (their text, id and the rest), and MaxOps the most
// messages; a client sending text far faster than it is spoken gets an
// error for that context (ContextFull), which is cancelled.
const (
	MaxPending = 64 << 10
	MaxOps     = 256
)

// Context is one input stream of a socket.
type Context struct {
	ID     string
	ops    chan Op
	cancel context.CancelFunc

	mu sync.Mutex // guards sizes and pending
	// sizes are the sizes of the Ops sent to ops, oldest first, of
	// which the last len(ops) still wait there: ops is in order, so those
	// before have been taken.
	sizes   []int
	pending int
}

// queue sends op, which came in size bytes, to ops unless more than
// MaxPending bytes or MaxOps messages would wait there.
func (sc *Context) queue(op Op, size int) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for len(sc.sizes) > len(sc.ops) {
		sc.pending -= sc.sizes[0]
		sc.sizes = sc.sizes[1:]
	}
	if sc.pending+size > MaxPending {
		return false
	}
	select {
	case sc.ops <- op:
		sc.sizes = append(sc.sizes, size)
		sc.pending += size
		return true
	default:
		return false
	}
}

// ContextSet is the contexts open on one socket.
type ContextSet struct {
	c     *Core
	guard *Guard
	mu    sync.Mutex // guards open
	open  map[string]*Context
	wg    sync.WaitGroup
}

// NewContextSet returns the contexts of the socket g guards.
func (c *Core) NewContextSet(g *Guard) *ContextSet {
	return &ContextSet{c: c, guard: g, open: map[string]*Context{}}
}

// Get returns the open context named id, or nil.
func (cs *ContextSet) Get(id string) *Context {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.open[id]
}

// Full reports whether no other context may open.
func (cs *ContextSet) Full() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.open) >= MaxSocketContexts
}

// Start opens a context named id under parent: the socket's credentials
// checked again (refused, the socket ends), the job admitted and opened
// (Core.Open) with its audio going to w, and run in its own goroutine
// (Input.Run) on the Ops sent to it; done gets its end as Run returns
// it. It refuses a context beyond MaxSocketContexts (TooManyContexts),
// and as Open refuses.
func (cs *ContextSet) Start(parent context.Context, id string, job StreamJob, w io.Writer, done func(tts.Result, error)) (*Context, *wire.Error) {
	if cs.Full() {
		return nil, wire.TooManyContexts(MaxSocketContexts)
	}
	if werr := cs.guard.Check(parent); werr != nil {
		return nil, werr
	}
	ctx, cancel := context.WithCancel(parent)
	in, err := cs.c.Open(ctx, job, w)
	if err != nil {
		cancel()
		return nil, toWire(err)
	}
	sc := &Context{ID: id, ops: make(chan Op, MaxOps), cancel: cancel}
	cs.mu.Lock()
	cs.open[id] = sc
	cs.mu.Unlock()
	cs.wg.Go(func() {
		defer cancel()
		res, err := in.Run(sc.ops)
		cs.forget(sc)
		done(res, err)
	})
	return sc, nil
}

// toWire is err (ErrGone or a *wire.Error) as a *wire.Error.
func toWire(err error) *wire.Error {
	if werr, ok := err.(*wire.Error); ok {
		return werr
	}
	return wire.Unavailable()
}

// forget closes sc's entry, if it is still the one under its id.
func (cs *ContextSet) forget(sc *Context) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.open[sc.ID] == sc {
		delete(cs.open, sc.ID)
	}
}

// Send queues op, which came in size bytes, for sc; when too much waits
// (MaxPending, MaxOps), sc is cancelled and Send reports false.
func (cs *ContextSet) Send(sc *Context, op Op, size int) bool {
	if sc.queue(op, size) {
		return true
	}
	sc.cancel()
	cs.forget(sc)
	return false
}

// End sends sc its last Op (op.End set) and closes its entry: the id may
// name a new context while sc finishes.
func (cs *ContextSet) End(sc *Context, op Op, size int) bool {
	cs.forget(sc)
	op.End = true
	return cs.Send(sc, op, size)
}

// Cancel stops the context named id at once, if it is open.
func (cs *ContextSet) Cancel(id string) {
	cs.mu.Lock()
	sc := cs.open[id]
	delete(cs.open, id)
	cs.mu.Unlock()
	if sc != nil {
		sc.cancel()
	}
}

// EndAll ends every open context: each speaks what it has.
func (cs *ContextSet) EndAll() {
	cs.mu.Lock()
	open := cs.open
	cs.open = map[string]*Context{}
	cs.mu.Unlock()
	for _, sc := range open {
		cs.Send(sc, Op{End: true}, 0)
	}
}

// Wait waits for every context's goroutine to end.
func (cs *ContextSet) Wait() { cs.wg.Wait() }

// ContextFull is the error of a context cancelled because too much waits
// for its synthesis.
func ContextFull(id string) *wire.Error {
	return &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeInvalidRequest, Code: wire.CodeBufferFull, Message: fmt.Sprintf(
		"More than %d KiB of text or %d messages wait for synthesis in context %q: it is cancelled. Send text no faster than it is spoken.",
		MaxPending>>10, MaxOps, id)}
}
