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

// vendorSocket accepts a vendor's WebSocket and runs its session: serve
// gets the connection and the session's context (cancelled when the
// client goes, at shutdown, or once serve returns) and returns why the
// session ended and how to wait for its contexts, which end before the
// connection closes.
func (s *Server) vendorSocket(w http.ResponseWriter, r *http.Request, serve func(context.Context, *websocket.Conn) (closeReason, func())) error {
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
	reason, wait := serve(ctx, c)
	cancel()
	wait()
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

// serveSocket reads c's JSON messages, each an M, and hands them to
// handle in order until handle says the session is done, the client
// closes, no message came for inactivity, or the server shuts down; it
// says why the session ended. A message that is not an M goes to bad.
func serveSocket[M any](ctx context.Context, s *Server, c *websocket.Conn, inactivity time.Duration,
	handle func(M) (done bool, reason closeReason), bad func(error)) closeReason {
	msgs := make(chan M)
	readErr := make(chan error, 1)
	go func() {
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				readErr <- err
				return
			}
			var m M
			if err := json.Unmarshal(data, &m); err != nil {
				bad(err)
				continue
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	idle := time.NewTimer(inactivity)
	defer idle.Stop()
	for {
		select {
		case m := <-msgs:
			idle.Reset(inactivity)
			if done, reason := handle(m); done {
				return reason
			}
		case <-readErr:
			return closeReason{websocket.StatusNormalClosure, ""}
		case <-idle.C:
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
	ctx, cancel := js.ctx, context.CancelFunc(func() {})
	if js.timeout > 0 {
		ctx, cancel = context.WithTimeout(js.ctx, js.timeout)
	}
	defer cancel()
	if err := js.c.Write(ctx, websocket.MessageText, data); err != nil && !errors.Is(err, context.Canceled) {
		js.c.CloseNow()
	}
}
