package core

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// The contexts of a socket: several input streams on one connection,
// each speaking in its own goroutine, concurrently with the others, fed
// its Ops in order through a Queue, and cancellable alone.

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

// Queue holds the Ops sent to an input stream until its Run takes them,
// bounded in bytes (MaxPending) and in messages (MaxOps). Text that
// waits behind text is joined to it, so a stream fed word by word holds
// one message, however many words wait. It is safe for concurrent use.
type Queue struct {
	mu      sync.Mutex // guards ops and pending
	ops     []Op
	pending int           // bytes of the messages of ops
	wake    chan struct{} // signalled when ops grow
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{wake: make(chan struct{}, 1)} }

// Put queues op, which came in size bytes, unless more than MaxPending
// bytes or MaxOps messages would wait.
func (q *Queue) Put(op Op, size int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	last := len(q.ops) - 1
	join := last >= 0 && op.text() && q.ops[last].text()
	if q.pending+size > MaxPending || !join && len(q.ops) >= MaxOps {
		return false
	}
	if join {
		q.ops[last].Text += op.Text
	} else {
		q.ops = append(q.ops, op)
	}
	q.pending += size
	select {
	case q.wake <- struct{}{}:
	default: // a wake waits already
	}
	return true
}

// take returns the Ops queued so far, which no longer count.
func (q *Queue) take() []Op {
	q.mu.Lock()
	defer q.mu.Unlock()
	ops := q.ops
	q.ops, q.pending = nil, 0
	return ops
}

// text reports whether op only adds text, and so may join the text
// before it.
func (op Op) text() bool { return !op.Flush && !op.Trigger && !op.End && op.Ref == nil }

// Context is one input stream of a socket.
type Context struct {
	ID     string
	queue  *Queue
	cancel context.CancelFunc
	placed bool // holds a place among the socket's MaxSocketContexts (guarded by the set's mu)
	over   bool // its goroutine has ended (guarded by the set's mu)
}

// ContextSet is the contexts open on one socket.
type ContextSet struct {
	c     *Core
	guard *Guard
	mu    sync.Mutex // guards open, places and each Context's placed
	open  map[string]*Context
	// closing holds the contexts ended (End) that still speak: their id
	// may name a new context, and Cancel still stops them.
	closing map[*Context]bool
	// places counts the contexts that hold a place among the
	// MaxSocketContexts: those open, and those ended (End: their id is
	// free) that still speak; a cancelled one gives its place back at once.
	places  int
	wg      sync.WaitGroup
	running atomic.Int32  // goroutines not ended
	ended   chan struct{} // signalled as a context's goroutine ends
}

// NewContextSet returns the contexts of the socket g guards.
func (c *Core) NewContextSet(g *Guard) *ContextSet {
	return &ContextSet{c: c, guard: g, open: map[string]*Context{}, closing: map[*Context]bool{}, ended: make(chan struct{}, 1)}
}

// Running is the number of contexts whose goroutine has not ended:
// those open, and those ended or cancelled that still finish.
func (cs *ContextSet) Running() int { return int(cs.running.Load()) }

// Ended is signalled each time a context's goroutine has ended (one
// signal may stand for several).
func (cs *ContextSet) Ended() <-chan struct{} { return cs.ended }

// Get returns the open context named id, or nil.
func (cs *ContextSet) Get(id string) *Context {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.open[id]
}

// Full reports whether no other context may open: MaxSocketContexts
// are open, or ended and still speaking.
func (cs *ContextSet) Full() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.places >= MaxSocketContexts
}

// Start opens a context named id under parent: the socket's credentials
// checked again (refused, the socket ends), the job admitted and opened
// (Core.Open) with its audio going to w, and run in its own goroutine
// (Input.Run) on the Ops sent to it; done gets its end as Run returns
// it. It refuses a context beyond MaxSocketContexts (TooManyContexts),
// and as Open refuses.
func (cs *ContextSet) Start(parent context.Context, id string, job StreamJob, w io.Writer, done func(tts.Result, error)) (*Context, *fault.Error) {
	if cs.Full() {
		return nil, fault.TooManyContexts(MaxSocketContexts)
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
	sc := &Context{ID: id, queue: NewQueue(), cancel: cancel, placed: true}
	cs.mu.Lock()
	cs.open[id] = sc
	cs.places++
	cs.mu.Unlock()
	cs.running.Add(1)
	cs.wg.Go(func() {
		defer cancel()
		res, err := in.Run(sc.queue)
		cs.mu.Lock()
		sc.over = true
		delete(cs.closing, sc)
		cs.mu.Unlock()
		cs.forget(sc)
		cs.unplace(sc) // before done's last message: a client that reads it may open the next
		done(res, err)
		cs.running.Add(-1)
		select {
		case cs.ended <- struct{}{}:
		default: // a signal waits already
		}
	})
	return sc, nil
}

// toWire is err (ErrGone or a *fault.Error) as a *fault.Error.
func toWire(err error) *fault.Error {
	if werr, ok := err.(*fault.Error); ok {
		return werr
	}
	return fault.Unavailable()
}

// forget closes sc's entry, if it is still the one under its id.
func (cs *ContextSet) forget(sc *Context) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.open[sc.ID] == sc {
		delete(cs.open, sc.ID)
	}
}

// unplace gives sc's place among the MaxSocketContexts back, once.
func (cs *ContextSet) unplace(sc *Context) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if sc.placed {
		sc.placed = false
		cs.places--
	}
}

// Send queues op, which came in size bytes, for sc; when too much waits
// (MaxPending, MaxOps), sc is cancelled and Send reports false.
func (cs *ContextSet) Send(sc *Context, op Op, size int) bool {
	if sc.queue.Put(op, size) {
		return true
	}
	sc.cancel()
	cs.forget(sc)
	cs.unplace(sc)
	return false
}

// End sends sc its last Op (op.End set) and closes its entry: the id may
// name a new context while sc finishes, which keeps its place among the
// MaxSocketContexts until then.
func (cs *ContextSet) End(sc *Context, op Op, size int) bool {
	cs.forget(sc)
	cs.mu.Lock()
	if !sc.over {
		cs.closing[sc] = true
	}
	cs.mu.Unlock()
	op.End = true
	return cs.Send(sc, op, size)
}

// Cancel stops the context named id at once, if it is open or ended
// and still speaking.
func (cs *ContextSet) Cancel(id string) {
	cs.mu.Lock()
	var stop []*Context
	if sc := cs.open[id]; sc != nil {
		stop = append(stop, sc)
		delete(cs.open, id)
	}
	for sc := range cs.closing {
		if sc.ID == id {
			stop = append(stop, sc)
			delete(cs.closing, sc)
		}
	}
	cs.mu.Unlock()
	for _, sc := range stop {
		sc.cancel()
		cs.unplace(sc)
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
func ContextFull(id string) *fault.Error {
	return &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeInvalidRequest, Code: fault.CodeBufferFull, Message: fmt.Sprintf(
		"More than %d KiB of text or %d messages wait for synthesis in context %q: it is cancelled. Send text no faster than it is spoken.",
		MaxPending>>10, MaxOps, id)}
}
