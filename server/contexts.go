package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/wire"
)

// The contexts of a vendor streaming socket (ElevenLabs' multi-stream-input,
// Cartesia's websocket): several input streams on one connection, each
// synthesizing in its own goroutine, concurrently with the others, fed its
// messages in order through a queue bounded in messages and bytes, and
// cancellable alone. Every socket holds its caller to the rules of
// socketauth.go: vendorSocket, serveSocket and contextSet.start apply them.

// maxSocketContexts is the most contexts one socket may have open at
// once (ElevenLabs allows 5; voxkit holds every vendor socket to it).
const maxSocketContexts = 5

// maxContextOps is the most messages that may wait for one context's
// synthesis, and wsMaxPending the most bytes they may have come in (their
// text, id and the rest); a client sending text far faster than it is
// spoken gets an error for that context, which is cancelled.
const maxContextOps = 256

// A contextMessage is a client message of a vendor socket.
type contextMessage interface {
	// contextID names the message's context; the server echoes it.
	contextID() string
}

// socketContext is one context: its messages, in order, and how to stop it.
type socketContext[M contextMessage] struct {
	id     string
	ops    chan M
	cancel context.CancelFunc

	mu sync.Mutex // guards sizes and pending
	// sizes are the sizes of the messages sent to ops, oldest first, of
	// which the last len(ops) still wait there: ops is in order, so those
	// before were taken.
	sizes   []int
	pending int // the sum of sizes
}

// queue sends m, which came in size bytes, to ops unless more than
// wsMaxPending bytes or maxContextOps messages would wait there.
func (sc *socketContext[M]) queue(m M, size int) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for len(sc.sizes) > len(sc.ops) {
		sc.pending -= sc.sizes[0]
		sc.sizes = sc.sizes[1:]
	}
	if sc.pending+size > wsMaxPending {
		return false
	}
	select {
	case sc.ops <- m:
		sc.sizes = append(sc.sizes, size)
		sc.pending += size
		return true
	default:
		return false
	}
}

// contextSet is the contexts open on one socket.
type contextSet[M contextMessage] struct {
	guard *socketGuard
	mu    sync.Mutex // guards open
	open  map[string]*socketContext[M]
	wg    sync.WaitGroup
}

func newContextSet[M contextMessage](g *socketGuard) *contextSet[M] {
	return &contextSet[M]{guard: g, open: map[string]*socketContext[M]{}}
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

// start opens a context named id under parent, one speech request of
// the socket's account, and runs it in its own goroutine: run reads its
// messages from sc.ops until it ends. The socket's credentials are
// checked again first: refused, the socket ends (serveSocket closes it).
// It refuses as admitSpeech does too.
func (cs *contextSet[M]) start(parent context.Context, id string, run func(ctx context.Context, sc *socketContext[M])) (*socketContext[M], *wire.Error) {
	if werr := cs.guard.check(parent); werr != nil {
		return nil, werr
	}
	end, werr := cs.guard.s.admitSpeech(parent, nil, cs.guard.account())
	if werr != nil {
		return nil, werr
	}
	ctx, cancel := context.WithCancel(parent)
	sc := &socketContext[M]{id: id, ops: make(chan M, maxContextOps), cancel: cancel}
	cs.mu.Lock()
	cs.open[id] = sc
	cs.mu.Unlock()
	cs.wg.Go(func() {
		defer end()
		defer cancel()
		defer cs.forget(sc)
		run(ctx, sc)
	})
	return sc, nil
}

// forget closes sc's entry, if it is still the one under its id.
func (cs *contextSet[M]) forget(sc *socketContext[M]) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.open[sc.id] == sc {
		delete(cs.open, sc.id)
	}
}

// send queues m, which came in size bytes, for sc; when too much waits
// (see maxContextOps), sc is cancelled and send reports false.
func (cs *contextSet[M]) send(sc *socketContext[M], m M, size int) bool {
	if sc.queue(m, size) {
		return true
	}
	sc.cancel()
	cs.forget(sc)
	return false
}

// contextFull is the error of a context cancelled because too much
// waits for its synthesis.
func contextFull(id string) *wire.Error {
	return &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeInvalidRequest, Code: wire.CodeBufferFull, Message: fmt.Sprintf(
		"More than %d KiB of text or %d messages wait for synthesis in context %q: it is cancelled. Send text no faster than it is spoken.",
		wsMaxPending>>10, maxContextOps, id)}
}

// end sends sc its last message and closes its entry: the id may name a
// new context while sc finishes.
func (cs *contextSet[M]) end(sc *socketContext[M], last M, size int) bool {
	cs.forget(sc)
	return cs.send(sc, last, size)
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

// endAll sends every open context last (a message the server made,
// which counts for nothing): each finishes what it has.
func (cs *contextSet[M]) endAll(last M) {
	cs.mu.Lock()
	open := cs.open
	cs.open = map[string]*socketContext[M]{}
	cs.mu.Unlock()
	for _, sc := range open {
		cs.send(sc, last, 0)
	}
}

// wait waits for every context's goroutine to end.
func (cs *contextSet[M]) wait() { cs.wg.Wait() }

// A socketDoor is a vendor's socket session, as vendorSocket runs it.
type socketDoor[M contextMessage] interface {
	// handle acts on one message, which came in size bytes (they count
	// against its context's budget while it waits); done says the
	// session is over.
	handle(m M, size int) (done bool, reason closeReason)
	// refuse tells the client, in the vendor's shape and naming no
	// context, of a message it cannot take or of its credentials refused.
	refuse(*wire.Error)
	// wait waits for the session's contexts to end.
	wait()
}

// vendorSocket accepts a vendor's WebSocket whose caller creds admitted
// (account "": none yet, its first message must carry a key) and runs its
// session, as serveSocket says: open makes the session's door for the
// connection, the session's context (cancelled when the client goes, at
// shutdown, or once the session ends) and its guard. The contexts end
// before the connection closes.
func vendorSocket[M contextMessage](s *Server, w http.ResponseWriter, r *http.Request, creds socketCreds, inactivity time.Duration,
	open func(context.Context, *websocket.Conn, *socketGuard) socketDoor[M]) error {
	c, werr := s.acceptSocket(w, r)
	if werr != nil {
		return werr
	}
	if c == nil {
		return nil // Accept has answered
	}
	defer s.sessions.Done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel)
	defer stop()
	g := &socketGuard{s: s, creds: creds}
	door := open(ctx, c, g)
	reason := serveSocket(ctx, s, c, g, inactivity, door)
	cancel()
	door.wait()
	c.Close(reason.code, reason.text)
	return nil
}

// acceptSocket upgrades r to a WebSocket that outlives the server's read
// deadline, reads messages of at most the body limit, and counts among the
// sessions shutdown waits for (the caller calls s.sessions.Done when it
// ends). With no connection it returns the error to answer, or nil when
// Accept has answered (a refused upgrade).
func (s *Server) acceptSocket(w http.ResponseWriter, r *http.Request) (*websocket.Conn, *wire.Error) {
	if s.closing.Err() != nil {
		return nil, wire.Unavailable()
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.origins})
	if err != nil {
		s.log.Info("server: websocket upgrade refused", "request_id", info(r.Context()).id, "err", err)
		return nil, nil
	}
	s.sessions.Add(1)
	c.SetReadLimit(s.maxBody)
	return c, nil
}

// closeReason is how a socket's session ends.
type closeReason struct {
	code websocket.StatusCode
	text string
}

// serveSocket reads c's JSON messages, each an M, and hands them to the
// door in order until it says the session is done, the client closes,
// no message came for inactivity, or the server shuts down; it says why
// the session ended. A message longer than wsMaxInputMessage, not an M,
// or naming a context id longer than wire.MaxClientID is refused. It holds the caller to g's
// rules: no key within the auth timeout, or credentials refused by a
// check (every recheck interval, or one before a context), end the
// session with 1008.
func serveSocket[M contextMessage](ctx context.Context, s *Server, c *websocket.Conn, g *socketGuard, inactivity time.Duration,
	door socketDoor[M]) closeReason {
	type message struct {
		m    M
		size int
	}
	msgs := make(chan message)
	readErr := make(chan error, 1)
	go func() {
		for {
			// Not cancelled with ctx, which would cut the connection
			// before vendorSocket closes it with its close code: the
			// read ends when the connection closes.
			_, data, err := c.Read(context.WithoutCancel(ctx))
			if err != nil {
				readErr <- err
				return
			}
			if len(data) > wsMaxInputMessage {
				door.refuse(wire.BadRequest(wire.CodeInvalidValue, "",
					"A message may be at most %d KiB long; this one has %d bytes.", wsMaxInputMessage>>10, len(data)))
				continue
			}
			var m M
			if err := json.Unmarshal(data, &m); err != nil {
				door.refuse(wire.BadRequest(wire.CodeInvalidJSON, "", "The message is not a JSON object: %v.", err))
				continue
			}
			if id := m.contextID(); len(id) > wire.MaxClientID {
				door.refuse(wire.BadRequest(wire.CodeInvalidValue, "context_id",
					"A context id may be at most %d bytes long; this one has %d.", wire.MaxClientID, len(id)))
				continue
			}
			select {
			case msgs <- message{m, len(data)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	// wait is how long the next message may take: a caller not admitted
	// yet has the auth timeout to send its key.
	wait := func() time.Duration {
		if g.account() == "" {
			return min(inactivity, s.socketAuth)
		}
		return inactivity
	}
	idle := time.NewTimer(wait())
	defer idle.Stop()
	recheck := time.NewTicker(s.recheckGap)
	defer recheck.Stop()
	refused := func(werr *wire.Error) closeReason {
		return closeReason{websocket.StatusPolicyViolation, werr.Code}
	}
	for {
		select {
		case m := <-msgs:
			done, reason := door.handle(m.m, m.size)
			if werr := g.refused(); werr != nil { // a context's check refused the caller
				return refused(werr)
			}
			if done {
				return reason
			}
			idle.Reset(wait())
		case <-recheck.C:
			if werr := g.check(ctx); werr != nil {
				door.refuse(werr)
				return refused(werr)
			}
		case <-readErr:
			return closeReason{websocket.StatusNormalClosure, ""}
		case <-idle.C:
			if g.account() == "" {
				return closeReason{websocket.StatusPolicyViolation, fmt.Sprintf("No API key within %v; closing the connection.", s.socketAuth)}
			}
			return closeReason{websocket.StatusPolicyViolation, fmt.Sprintf("No message for %v; closing the connection (inactivity timeout).", inactivity)}
		case <-s.closing.Done():
			return closeReason{websocket.StatusGoingAway, "server shutting down"}
		}
	}
}

// jsonSender writes a socket's JSON messages, each within the write
// timeout; the messages of the socket's contexts take turns. A write
// that fails closes the connection.
type jsonSender struct {
	c       *websocket.Conn
	ctx     context.Context
	timeout time.Duration
	mu      sync.Mutex // one message at a time
}

func (js *jsonSender) send(m map[string]any) {
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.ctx.Err() != nil {
		return // the session is over: a write would cut the connection before its close code
	}
	ctx, cancel := js.ctx, context.CancelFunc(func() {})
	if js.timeout > 0 {
		ctx, cancel = context.WithTimeout(js.ctx, js.timeout)
	}
	defer cancel()
	if err := js.c.Write(ctx, websocket.MessageText, data); err != nil && !errors.Is(err, context.Canceled) {
		js.c.CloseNow()
	}
}
