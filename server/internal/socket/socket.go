// Package socket serves voxkit's own WebSocket, GET /v1/audio/speech/ws:
// speech requests as JSON text messages, audio back as one binary
// message per sentence (a concurrent input stream's as one speech.audio
// message per sentence), on the speech core:
//
//   - the handshake: core.CheckUpgrade, core.Admit (or the key of the
//     first message, through the core.Guard), core.AcceptSocket;
//   - the credentials checked again before each request and input
//     stream, before each input.flush and input.done, and every recheck
//     interval: the core.Guard;
//   - a speech.create with its whole input: core.Speak, in the
//     connection's queue, one request at a time;
//   - an input stream ("input_stream": true) of the queue: core.Open and
//     Input.Run, its input.append, input.flush and input.done messages
//     waiting in a core.Queue (bounded as every input stream's input is)
//     until it has its turn;
//   - a concurrent input stream ("concurrent": true): a context of the
//     connection's core.ContextSet, beside the queue, at most
//     core.MaxSocketContexts at once;
//   - every write: the outbox (server/internal/outbox), which sends
//     binary audio and JSON in order, each within the write timeout, and
//     pings the client.
//
// A session runs on four goroutines, each owning one part of it, and one
// more per concurrent context:
//
//   - the handler's own (serve) authenticates, takes the queued requests
//     one at a time and speaks each (run); it alone starts and ends a
//     queued request, and it ends the session (drain, then close) on
//     idle, shutdown or refusal;
//   - read owns the connection's reads: it checks each message, queues a
//     speech.create or starts it at once when it is concurrent, hands
//     input messages to their stream and acts on speech.cancel at once;
//     it closes the queue when the connection ends;
//   - each concurrent context (the ContextSet's goroutine) speaks its
//     input stream and sends its last message;
//   - the outbox's Run owns the connection's writes, and its Keepalive
//     pings the client.
package socket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/outbox"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/wire"
)

// Path is the socket's route.
const Path = "/v1/audio/speech/ws"

// queueSize is how many speech requests may wait behind the one in
// progress; concurrent contexts do not count towards it.
const queueSize = 8

// outboxSize is how many messages may wait to be sent: a sentence's
// audio and its timestamps while the next sentence is synthesized. A
// client that reads slower than that stalls synthesis.
const outboxSize = 4

// pingInterval is how often the server pings the client; a client that
// does not answer within the write timeout is gone.
const pingInterval = 30 * time.Second

// Mount serves the socket on mux.
func Mount(mux *http.ServeMux, c *core.Core) {
	route.Route(mux, c.Log, Path, core.Methods{http.MethodGet: func(w http.ResponseWriter, r *http.Request) error {
		return serve(c, w, r)
	}})
}

// errSessionOver ends a session's context when its handler returns.
var errSessionOver = errors.New("socket: session over")

// session is one connection.
type session struct {
	ctx   context.Context // the session's, which end cancels
	c     *core.Core
	conn  *websocket.Conn
	ri    *core.Request
	guard *core.Guard
	end   context.CancelCauseFunc // ends the session
	// stopWork stops the session's speech, before the session ends:
	// what it would still write is not an error.
	stopWork context.CancelFunc
	out      *outbox.Outbox   // every write to the connection
	contexts *core.ContextSet // the concurrent contexts

	mu      sync.Mutex
	streams map[string]*stream // input streams open or queued, by id
	active  *stream            // the queued request in progress
	running int                // concurrent contexts open

	gate sync.Mutex // held while a concurrent context starts
	shut bool       // under gate: the session is ending, no concurrent context starts

	ended chan struct{} // signalled when a concurrent context ends

	// refusing is held while refuse tells the client and closes the
	// socket, so that the session's end, which its stopped work sets off,
	// does not cut the connection under it; over is set, under it, once
	// the session ends: no refusal begins then.
	refusing sync.Mutex
	over     bool
}

// serve serves one connection. The session ends, stopping the request
// in progress and the concurrent contexts and dropping the queued
// requests, when the client closes or breaks the connection, when a
// write fails or passes the write timeout, when the credentials are
// refused on a check, after the idle time with no message and nothing at
// work, or at shutdown (which lets the request in progress and the
// concurrent contexts finish).
func serve(c *core.Core, w http.ResponseWriter, r *http.Request) error {
	ri := core.Info(r.Context())
	if werr := c.CheckUpgrade(w.Header(), r); werr != nil {
		return werr
	}
	creds := core.Creds{R: r, Key: credentials.Bearer(r)}
	if c.Auth.HasHost() || creds.Key != "" || c.Auth.SessionToken(r) != "" {
		caller, werr := c.Auth.Admit(r)
		switch {
		case werr != nil && werr.Code != wire.CodeMissingAPIKey: // without one, the first message may carry it
			return werr
		case werr == nil:
			creds.Account, ri.Account = caller.Account, caller.Account
		}
	}
	conn, werr := c.AcceptSocket(w, r)
	if werr != nil {
		return werr
	}
	if conn == nil {
		return nil // Accept has answered
	}
	defer c.Sessions.Done()
	ctx, end := context.WithCancelCause(r.Context())
	work, stopWork := context.WithCancel(ctx)
	defer stopWork()
	g := c.NewGuard(creds)
	s := &session{ctx: ctx, c: c, conn: conn, ri: ri, guard: g, end: end, stopWork: stopWork, contexts: c.NewContextSet(g),
		streams: map[string]*stream{}, ended: make(chan struct{}, 1)}
	s.out = outbox.New(conn, outboxSize, c.WriteTimeout, s.fail)
	go s.out.Run(ctx)
	var reader sync.WaitGroup
	defer func() {
		s.refusing.Lock() // a refusal under way closes first, with its code
		s.over = true
		s.refusing.Unlock()
		s.out.Drain()
		end(errSessionOver)
		conn.CloseNow()
		reader.Wait() // no concurrent context starts after this
		s.settle()    // each one stops with the session
	}()
	if creds.Account == "" && !s.authFirst(ctx) {
		return nil
	}
	if s.send(ctx, wire.WSReadyMessage{Type: wire.WSReady, Account: ri.Account, RequestID: ri.ID}) != nil {
		return nil
	}
	queue := make(chan *stream, queueSize)
	reader.Go(func() { s.read(ctx, work, queue) })
	reader.Go(func() { s.out.Keepalive(ctx, pingInterval) })
	reader.Go(func() { s.watch(ctx) })
	idle := time.NewTimer(c.SocketIdle)
	defer idle.Stop()
	for {
		select {
		case st, ok := <-queue:
			if !ok || work.Err() != nil {
				return nil // the client closed or broke the connection
			}
			s.run(work, st)
			if work.Err() != nil {
				return nil // a write failed or the credentials were refused
			}
			idle.Reset(c.SocketIdle)
		case <-s.ended: // a concurrent context ended
			idle.Reset(c.SocketIdle)
		case <-work.Done():
			return nil
		case <-idle.C:
			if !s.quiet() {
				idle.Reset(c.SocketIdle) // a concurrent context is at work
				continue
			}
			s.settle() // the last one may be sending its speech.done
			s.out.Drain()
			conn.Close(websocket.StatusNormalClosure, "idle for "+c.SocketIdle.String())
			return nil
		case <-c.Closing().Done():
			s.settle()
			s.out.Drain()
			conn.Close(websocket.StatusGoingAway, "server shutting down")
			return nil
		}
	}
}

// fail ends the session with work cut short (a write failed, or the
// client left with requests pending): the access log reports it aborted.
func (s *session) fail(err error) {
	s.mu.Lock()
	if s.ri.Abort == nil {
		s.ri.Abort = err
	}
	s.mu.Unlock()
	s.end(err)
}

// send queues a JSON message.
func (s *session) send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.out.Queue(ctx, outbox.Message{Type: websocket.MessageText, Data: b})
}

func (s *session) sendError(ctx context.Context, id string, werr *wire.Error) error {
	return s.send(ctx, errorMessage(id, werr))
}

// errorMessage is the error message of the request id ("": of none).
func errorMessage(id string, werr *wire.Error) wire.WSErrorMsg {
	return wire.WSErrorMsg{Type: wire.WSErrorMessage, ID: id, Error: werr.Object()}
}

// watch checks the session's credentials again every recheck interval:
// credentials refused meanwhile end the session, whatever it is doing.
func (s *session) watch(ctx context.Context) {
	t := time.NewTicker(s.c.RecheckGap)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if werr := s.guard.Check(ctx); werr != nil {
			s.refuse("", werr)
			return
		}
	}
}

// refuse ends the session whose credentials a check refused: its speech
// stops, then the error (of request id), then close status 1008.
func (s *session) refuse(id string, werr *wire.Error) {
	s.refusing.Lock()
	defer s.refusing.Unlock()
	if s.over {
		return
	}
	s.stopWork()
	s.sendError(s.ctx, id, werr)
	s.out.Drain()
	s.conn.Close(websocket.StatusPolicyViolation, werr.Code)
	s.end(fmt.Errorf("credentials refused: %s", werr.Code))
}

// authFirst reads the auth message of a connection opened without
// credentials (browsers cannot set an Authorization header).
func (s *session) authFirst(ctx context.Context) bool {
	actx, cancel := context.WithTimeout(ctx, s.c.SocketAuth)
	defer cancel()
	typ, data, err := s.conn.Read(actx)
	if err != nil {
		s.conn.Close(websocket.StatusPolicyViolation, "no auth message")
		return false
	}
	refuse := func(werr *wire.Error, reason string) bool {
		s.sendError(ctx, "", werr)
		s.out.Drain()
		s.conn.Close(websocket.StatusPolicyViolation, reason)
		return false
	}
	var m wire.WSClientMessage
	if typ != websocket.MessageText || json.Unmarshal(data, &m) != nil || m.Type != wire.WSAuth {
		return refuse(wire.MissingKey(), "the first message must be {\"type\":\"auth\",\"api_key\":...}")
	}
	account, werr := s.guard.AdmitKey(ctx, m.APIKey)
	if werr != nil {
		return refuse(werr, werr.Code)
	}
	s.ri.Account = account
	return true
}

// quiet reports whether no concurrent context is open; if so, none
// starts any more (the session closes as idle).
func (s *session) quiet() bool {
	s.gate.Lock()
	defer s.gate.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running > 0 {
		return false
	}
	s.shut = true
	return true
}

// settle lets no concurrent context start any more and waits until the
// open ones have sent their last message (at shutdown each speaks what
// it has, then ends; when the session ends, each stops).
func (s *session) settle() {
	s.gate.Lock()
	s.shut = true // no ContextSet.Start after this: Wait may begin
	s.gate.Unlock()
	s.contexts.Wait()
}
