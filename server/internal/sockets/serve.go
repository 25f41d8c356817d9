// Package sockets is the one runtime of every WebSocket of the server —
// voxkit's own, ElevenLabs' and Cartesia's: the handshake's checks
// (CheckUpgrade), the accept, the caller held to the auth deadline and
// its credentials checked again (core.Guard), the idle time, shutdown,
// one Writer with the write deadline and keepalive pings, the contexts
// of the socket (core.ContextSet), the queue of requests taken one at a
// time (Lane), and the timing and log of each speech (Session.Spoke). A
// door's socket only translates its client's messages (Door.Handle) and
// its speech into its own shapes.
//
// A session runs on these goroutines, each owning one part of it: Serve's
// own (the loop: it alone hands messages to the door, so the door's
// Handle never runs twice at once, and it ends the session); the reader,
// which decodes the client's messages; the Writer's Run, the only one
// that writes, and its Keepalive; one per context of the ContextSet, and
// one per Lane.
package sockets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/tts"
)

// MaxMessage is the longest message a socket reads, unless its door
// decodes its messages itself (voxkit's speech.create may be longer): an
// input of as much text as may wait for a context (core.MaxPending), and
// room for the rest.
const MaxMessage = core.MaxPending + 4<<10

// writerSize is how many messages may wait to be sent: a sentence's
// audio and its timestamps while the next sentence is synthesized. A
// client that reads slower than that stalls synthesis.
const writerSize = 4

// pingInterval is how often the server pings the client; a client that
// does not answer within the write timeout is gone.
const pingInterval = 30 * time.Second

// A Message is a client message of a door whose messages Serve decodes
// as JSON.
type Message interface {
	// ContextID names the message's context; the server echoes it.
	ContextID() string
}

// A Door is a door's socket session, as Serve runs it.
type Door[M any] interface {
	// Handle acts on one message, which came in size bytes (they count
	// against its context's budget while it waits); done says the
	// session is over, and how it closes. Handle runs on Serve's loop,
	// never twice at once.
	Handle(m M, size int) (done bool, reason CloseReason)
	// Refuse tells the client, in the door's shape and naming no
	// context, of a message it cannot take or of its credentials
	// refused.
	Refuse(*fault.Error)
}

// A Decoder is a Door that decodes its client's messages itself, of any
// type and length up to the read limit; its error is Refused and the
// message dropped. data is the reader's until the next message: copy
// what outlives Decode. Without it, Serve decodes each message as JSON
// into an M, which must be a Message, refusing one longer than
// MaxMessage or naming a context id longer than vocab.MaxClientID.
type Decoder[M any] interface {
	Decode(typ websocket.MessageType, data []byte) (m M, werr *fault.Error)
}

// A Finisher is a Door whose session can end on its own, without a
// message (ElevenLabs' stream-input, once its one context has spoken):
// Serve closes the socket normally when Finished is closed.
type Finisher interface {
	Finished() <-chan struct{}
}

// Options are how Serve holds one door's sessions.
type Options struct {
	// Creds admitted the caller (Account "": none yet, its first
	// message must carry a key, within the auth timeout).
	Creds core.Creds
	// Idle ends a session that has had no message for that long, with
	// IdleClose (zero: 1008 and "No message for …").
	Idle      time.Duration
	IdleClose CloseReason
	// Busy: the session's work (a Lane's requests, waiting or under way,
	// and its contexts) keeps it from idling, and the idle time counts
	// from its end; a client that leaves while it runs has cut it short
	// (aborted, in the access log).
	Busy bool
}

// CloseReason is how a socket's session ends.
type CloseReason struct {
	Code websocket.StatusCode
	Text string
	// finish lets the session's work end as it will (shutdown, a session
	// the client ended); otherwise it stops.
	finish bool
	// cut drops the connection without a close message (it failed).
	cut bool
}

// Refused is the close of a socket whose credentials werr refused.
func Refused(werr *fault.Error) CloseReason {
	return CloseReason{Code: websocket.StatusPolicyViolation, Text: werr.Code}
}

// Session is one socket's connection, as its door sees it.
type Session struct {
	// Ctx is the session's work's: the door's speech runs under it. It
	// ends with the session — except at shutdown and when the door
	// finished it, when the work ends as it will first.
	Ctx      context.Context
	Guard    *core.Guard
	Out      *Writer          // every message to the client
	Contexts *core.ContextSet // its contexts, whose goroutines Serve waits for
	// Info is the handshake's, whose access log line the session's is.
	Info *core.Request

	c      *core.Core
	end    chan CloseReason // End's
	stop   chan struct{}    // closed once the loop has ended: lanes take nothing more
	lanes  sync.WaitGroup
	queued atomic.Int32  // lanes' requests waiting or under way
	touch  chan struct{} // a lane's request ended
	abort  sync.Once
}

// End ends the session with reason, from any goroutine (the first End
// wins): the door's work is stopped, what it has sent goes out, and the
// socket closes. A door whose work finds the credentials refused tells
// its client, then calls End(Refused(werr)).
func (s *Session) End(reason CloseReason) {
	select {
	case s.end <- reason:
	default: // an end is under way
	}
}

// Fail ends the session with its work cut short by err (a write failed,
// the client left during it): the access log reports it aborted.
func (s *Session) Fail(err error) {
	s.abort.Do(func() { s.Info.Abort = err })
	s.End(CloseReason{cut: true})
}

// busy reports whether the session has work: a lane's request or a
// context.
func (s *Session) busy() bool { return s.queued.Load() > 0 || s.Contexts.Running() > 0 }

// Spoke logs a speech of the session that ended with res, which began
// at start, and returns res with its upstream time (core's UpstreamTime)
// and the gateway time, since start.
func (s *Session) Spoke(log []any, res tts.Result, start time.Time) (tts.Result, time.Duration) {
	res.SynthesisTime = s.c.UpstreamTime(res)
	gateway := time.Since(start)
	s.c.Log.Info("websocket speech", append(append([]any{"request_id", s.Info.ID}, log...), "sentences", res.Sentences,
		"upstream_ms", core.MS(res.SynthesisTime), "engine_ms", core.MS(res.EngineTime), "gateway_ms", core.MS(gateway))...)
	return res, gateway
}

// Serve accepts r's WebSocket and runs its session: open makes the
// door's session for it. It reads the client's messages and hands them
// to the door in order until the door says the session is done (or
// Finished), the client closes, no message came for the idle time, the
// server shuts down, a write fails, or the credentials are refused: no
// key within the auth timeout, or a check refusing them (every recheck
// interval, before each context, or a door's own: End). Then it stops
// the door's work (at shutdown or when the door finished, lets it end),
// waits for it, sends what waits to be sent, and closes the socket. Its
// error is one to answer before the upgrade.
func Serve[M any](rt *Runtime, w http.ResponseWriter, r *http.Request, opts Options, open func(*Session) Door[M]) error {
	c := rt.c
	conn, werr := accept(c, w, r)
	if werr != nil {
		return werr
	}
	if conn == nil {
		return nil // Accept has answered
	}
	defer c.Sessions.Done()
	life, endLife := context.WithCancel(r.Context()) // the connection's: its writes
	defer endLife()
	work, stopWork := context.WithCancel(life)
	defer stopWork()
	g := c.NewGuard(opts.Creds)
	s := &Session{Ctx: work, Guard: g, Contexts: c.NewContextSet(g), Info: core.Info(r.Context()), c: c,
		end: make(chan CloseReason, 1), stop: make(chan struct{}), touch: make(chan struct{}, 1)}
	s.Out = NewWriter(work, conn, writerSize, c.WriteTimeout, s.Fail)
	var writing sync.WaitGroup
	writing.Go(func() { s.Out.Run(life) })
	writing.Go(func() { s.Out.Keepalive(life, pingInterval) })
	door := open(s)
	reason := loop(s, conn, door, opts)
	close(s.stop)
	if !reason.finish {
		stopWork()
	}
	s.lanes.Wait()
	s.Contexts.Wait()
	s.Out.Drain()
	endLife() // the keepalive ends: a ping cut by the close is no failure
	writing.Wait()
	if reason.cut {
		conn.CloseNow()
	} else {
		conn.Close(reason.Code, reason.Text)
	}
	return nil
}

// message is a client message, decoded.
type message[M any] struct {
	m    M
	size int
}

// read decodes the client's messages onto msgs until the connection
// ends (its error on readErr), refusing those the door cannot take.
func read[M any](s *Session, conn *websocket.Conn, door Door[M], msgs chan<- message[M], readErr chan<- error) {
	decode := decodeJSON[M]
	if d, ok := door.(Decoder[M]); ok {
		decode = d.Decode
	}
	var buf bytes.Buffer // each message is read into it: one buffer, not one per message
	for {
		// Not cancelled with the session, which would cut the connection
		// before Serve closes it with its close code: the read ends when
		// the connection closes.
		typ, rd, err := conn.Reader(context.WithoutCancel(s.Ctx))
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(rd)
		}
		if err != nil {
			readErr <- err
			return
		}
		m, werr := decode(typ, buf.Bytes())
		if werr != nil {
			door.Refuse(werr)
			continue
		}
		select {
		case msgs <- message[M]{m, buf.Len()}:
		case <-s.stop:
			return
		}
	}
}

// decodeJSON decodes a message as a JSON M, a Message.
func decodeJSON[M any](_ websocket.MessageType, data []byte) (M, *fault.Error) {
	var m M
	if len(data) > MaxMessage {
		return m, fault.BadRequest(fault.CodeInvalidValue, "",
			"A message may be at most %d KiB long; this one has %d bytes.", MaxMessage>>10, len(data))
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fault.BadRequest(fault.CodeInvalidJSON, "", "The message is not a JSON object: %v.", err)
	}
	if id := any(m).(Message).ContextID(); len(id) > vocab.MaxClientID {
		return m, fault.BadRequest(fault.CodeInvalidValue, "context_id",
			"A context id may be at most %d bytes long; this one has %d.", vocab.MaxClientID, len(id))
	}
	return m, nil
}

// loop is Serve's: it says why the session ended.
func loop[M any](s *Session, conn *websocket.Conn, door Door[M], opts Options) CloseReason {
	c := s.c
	msgs := make(chan message[M])
	readErr := make(chan error, 1)
	go read(s, conn, door, msgs, readErr)
	// wait is how long the next message may take: a caller not admitted
	// yet has the auth timeout to send its key.
	wait := func() time.Duration {
		if s.Guard.Account() == "" {
			return min(opts.Idle, c.SocketAuth)
		}
		return opts.Idle
	}
	idle := time.NewTimer(wait())
	defer idle.Stop()
	recheck := time.NewTicker(c.RecheckGap)
	defer recheck.Stop()
	var finished, ended <-chan struct{}
	if f, ok := door.(Finisher); ok {
		finished = f.Finished()
	}
	if opts.Busy {
		ended = s.Contexts.Ended()
	}
	for {
		select {
		case <-finished:
			return CloseReason{Code: websocket.StatusNormalClosure, finish: true}
		case m := <-msgs:
			done, reason := door.Handle(m.m, m.size)
			if s.Info.Account == "" {
				s.Info.Account = s.Guard.Account() // admitted by its first message
			}
			if werr := s.Guard.Refused(); werr != nil { // a context's check refused the caller
				return Refused(werr)
			}
			if done {
				return reason
			}
			idle.Reset(wait())
		case reason := <-s.end:
			return reason
		case <-s.touch:
			idle.Reset(wait())
		case <-ended:
			idle.Reset(wait())
		case <-recheck.C:
			if werr := s.Guard.Check(s.Ctx); werr != nil {
				door.Refuse(werr)
				return Refused(werr)
			}
		case err := <-readErr:
			if opts.Busy && s.busy() && !errors.Is(err, net.ErrClosed) {
				s.abort.Do(func() { s.Info.Abort = fmt.Errorf("client closed the connection: %w", err) })
			}
			return CloseReason{Code: websocket.StatusNormalClosure}
		case <-idle.C:
			switch {
			case opts.Busy && s.busy():
				idle.Reset(wait()) // at work
				continue
			case s.Guard.Account() == "":
				return CloseReason{Code: websocket.StatusPolicyViolation, Text: fmt.Sprintf("No API key within %v; closing the connection.", c.SocketAuth)}
			case opts.IdleClose != CloseReason{}:
				return opts.IdleClose
			}
			return CloseReason{Code: websocket.StatusPolicyViolation, Text: fmt.Sprintf("No message for %v; closing the connection (inactivity timeout).", opts.Idle)}
		case <-c.Closing().Done():
			return CloseReason{Code: websocket.StatusGoingAway, Text: "server shutting down", finish: true}
		}
	}
}
