package server

import (
	"context"
	"sync"
)

// The contexts of a vendor streaming socket (ElevenLabs' multi-stream-input,
// Cartesia's websocket): several input streams on one connection, each
// synthesizing in its own goroutine, concurrently with the others, fed its
// messages in order through a bounded queue, and cancellable alone.

// maxSocketContexts is the most contexts one socket may have open at
// once (ElevenLabs allows 5; voxkit holds every vendor socket to it).
const maxSocketContexts = 5

// maxContextOps is the most messages that may wait for one context's
// synthesis; a client sending text far faster than it is spoken gets an
// error for that context, which is cancelled.
const maxContextOps = 256

// socketContext is one context: its messages, in order, and how to stop it.
type socketContext[M any] struct {
	id     string
	ops    chan M
	cancel context.CancelFunc
}

// contextSet is the contexts open on one socket.
type contextSet[M any] struct {
	mu   sync.Mutex // guards open
	open map[string]*socketContext[M]
	wg   sync.WaitGroup
}

func newContextSet[M any]() *contextSet[M] {
	return &contextSet[M]{open: map[string]*socketContext[M]{}}
}

// get returns the open context named id, or nil.
func (cs *contextSet[M]) get(id string) *socketContext[M] {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.open[id]
}

// full reports whether no other context may open.
func (cs *contextSet[M]) full() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.open) >= maxSocketContexts
}

// start opens a context named id under parent and runs it in its own
// goroutine: run reads its messages from sc.ops until it ends.
func (cs *contextSet[M]) start(parent context.Context, id string, run func(ctx context.Context, sc *socketContext[M])) *socketContext[M] {
	ctx, cancel := context.WithCancel(parent)
	sc := &socketContext[M]{id: id, ops: make(chan M, maxContextOps), cancel: cancel}
	cs.mu.Lock()
	cs.open[id] = sc
	cs.mu.Unlock()
	cs.wg.Go(func() {
		defer cancel()
		defer cs.forget(sc)
		run(ctx, sc)
	})
	return sc
}

// forget closes sc's entry, if it is still the one under its id.
func (cs *contextSet[M]) forget(sc *socketContext[M]) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.open[sc.id] == sc {
		delete(cs.open, sc.id)
	}
}

// send queues m for sc; when too many messages wait, sc is cancelled and
// send reports false.
func (cs *contextSet[M]) send(sc *socketContext[M], m M) bool {
	select {
	case sc.ops <- m:
		return true
	default:
		sc.cancel()
		cs.forget(sc)
		return false
	}
}

// end sends sc its last message and closes its entry: the id may name a
// new context while sc finishes.
func (cs *contextSet[M]) end(sc *socketContext[M], last M) bool {
	cs.forget(sc)
	return cs.send(sc, last)
}

// cancel stops the context named id at once, if it is open.
func (cs *contextSet[M]) cancel(id string) {
	cs.mu.Lock()
	sc := cs.open[id]
	delete(cs.open, id)
	cs.mu.Unlock()
	if sc != nil {
		sc.cancel()
	}
}

// endAll sends every open context last: each finishes what it has.
func (cs *contextSet[M]) endAll(last M) {
	cs.mu.Lock()
	open := cs.open
	cs.open = map[string]*socketContext[M]{}
	cs.mu.Unlock()
	for _, sc := range open {
		cs.send(sc, last)
	}
}

// wait waits for every context's goroutine to end.
func (cs *contextSet[M]) wait() { cs.wg.Wait() }
