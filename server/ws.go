package server

// A WebSocket session (GET /v1/audio/speech/ws) runs on four goroutines,
// each owning one part of it, and one more per concurrent context:
//
//   - the handler's own (websocket, then run and speech) authenticates,
//     takes the queued speech.create contexts one at a time and
//     synthesizes each; it alone starts and ends a queued request, and it
//     ends the session (drain, then close) on idle, shutdown or refusal;
//   - read owns the connection's reads: it checks each message's shape,
//     queues a speech.create as a wsContext (the queue channel, at most
//     wsQueue) or starts it at once when it is concurrent, hands
//     input.append/flush/done to their context (wsContext.add, under the
//     context's mutex) and acts on speech.cancel at once; it closes the
//     queue when the connection ends;
//   - each concurrent context (start, then speech) synthesizes its input
//     stream beside the queued requests and the other concurrent contexts,
//     at most wsMaxConcurrent of them; it ends itself (release), and the
//     session waits for it (settle at shutdown, workers when it ends);
//   - the outbox's Run (server/internal/outbox) owns the connection's
//     writes: every message (events, audio) is queued there in order, each
//     written within the write timeout; audio of a cancelled context is
//     skipped there;
//   - the outbox's Keepalive pings the client.
//
// wsSession.mu guards the map of open input streams, the request in
// progress (read cancels through them) and the count of concurrent
// contexts; everything else a goroutine touches is its own or passes
// through a channel. Every context queues its messages in the outbox from
// one goroutine, so each context's messages keep their order.

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
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/outbox"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// wsQueue is how many speech requests may wait behind the one in progress.
const wsQueue = 8

// wsMaxConcurrent is how many concurrent input streams ("concurrent":
// true) one connection may have open at once, as many as ElevenLabs
// allows on its multi-stream-input socket; they do not count towards
// wsQueue.
const wsMaxConcurrent = 5

// DefaultWSIdleTimeout is how long an authenticated WebSocket session may
// stay without a message from the client and without work in progress
// when Options.WSIdleTimeout is 0.
const DefaultWSIdleTimeout = 5 * time.Minute

// websocket serves GET /v1/audio/speech/ws: speech requests as JSON text
// messages, audio back as one binary message per sentence (a concurrent
// input stream's as one speech.audio text message per sentence).
//
// The session ends, cancelling the request in progress and the concurrent
// input streams and dropping the queued requests, when the client closes
// or breaks the connection, when a write fails or passes the write
// timeout, when the key stops being valid (it is checked again before
// each request and every Options.KeyRecheckInterval), after the idle timeout (which waits while a concurrent
// input stream is open), or at shutdown (which lets the request in
// progress and the concurrent input streams finish).
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) error {
	ri := core.Info(r.Context())
	if werr := s.core.CheckUpgrade(w.Header(), r); werr != nil {
		return werr
	}
	token := core.Bearer(r)
	if s.core.HasHost() || token != "" || s.core.SessionToken(r) != "" {
		c, werr := s.core.Admit(r)
		switch {
		case werr != nil && werr.Code != wire.CodeMissingAPIKey: // without one, the first message may carry it
			return werr
		case werr == nil:
			ri.Account = c.Account
		}
	}
	c, werr := s.core.AcceptSocket(w, r)
	if werr != nil {
		return werr
	}
	if c == nil {
		return nil // Accept has answered
	}
	defer s.core.Sessions.Done()
	ctx, end := context.WithCancelCause(r.Context())
	sess := newWSSession(s, c, ri, r, token, end)
	go sess.out.Run(ctx)
	var reader sync.WaitGroup
	defer func() {
		sess.out.Drain()
		end(errSessionOver)
		c.CloseNow()
		reader.Wait() // no concurrent context starts after this
		sess.settle() // each one stops with the session
	}()
	if ri.Account == "" && !sess.authFirst(ctx) {
		return nil
	}
	if sess.send(ctx, wire.WSReadyMessage{Type: wire.WSReady, Account: ri.Account, RequestID: ri.ID}) != nil {
		return nil
	}
	queue := make(chan *wsContext, wsQueue)
	reader.Go(func() { sess.read(ctx, queue) })
	reader.Go(func() { sess.out.Keepalive(ctx, wsPingInterval) })
	reader.Go(func() { sess.watchKey(ctx) })
	idle := time.NewTimer(s.core.SocketIdle)
	defer idle.Stop()
	for {
		select {
		case wc, ok := <-queue:
			if !ok || ctx.Err() != nil {
				return nil // the client closed or broke the connection
			}
			sess.run(ctx, wc)
			if ctx.Err() != nil {
				return nil // a write failed or the key was refused
			}
			idle.Reset(s.core.SocketIdle)
		case <-sess.ended: // a concurrent context ended
			idle.Reset(s.core.SocketIdle)
		case <-ctx.Done():
			return nil
		case <-idle.C:
			if !sess.quiet() {
				idle.Reset(s.core.SocketIdle) // a concurrent context is at work
				continue
			}
			sess.settle() // the last one may be sending its speech.done
			sess.out.Drain()
			c.Close(websocket.StatusNormalClosure, "idle for "+s.core.SocketIdle.String())
			return nil
		case <-s.core.Closing().Done():
			sess.settle()
			sess.out.Drain()
			c.Close(websocket.StatusGoingAway, "server shutting down")
			return nil
		}
	}
}

// errSessionOver ends a session's context when its handler returns.
var errSessionOver = errors.New("server: websocket session over")

type wsSession struct {
	s     *Server
	c     *websocket.Conn
	ri    *core.Request
	r     *http.Request           // the handshake, for Options.Authenticate
	token string                  // the key, checked again before each request
	end   context.CancelCauseFunc // ends the session

	out *outbox.Outbox // every write to the connection

	mu       sync.Mutex
	contexts map[string]*wsContext // input streams open or queued, by id
	active   *wsContext            // the request in progress
	running  int                   // concurrent contexts open
	shut     bool                  // the session is ending: no concurrent context starts

	workers sync.WaitGroup // the concurrent contexts' goroutines
	ended   chan struct{}  // signalled when a concurrent context ends
}

func newWSSession(s *Server, c *websocket.Conn, ri *core.Request, r *http.Request, token string, end context.CancelCauseFunc) *wsSession {
	ws := &wsSession{s: s, c: c, ri: ri, r: r, token: token, end: end, contexts: make(map[string]*wsContext),
		ended: make(chan struct{}, 1)}
	ws.out = outbox.New(c, wsOutbox, s.core.WriteTimeout, ws.fail)
	return ws
}

// wsOutbox is how many messages may wait to be sent: a sentence's audio
// and its timestamps while the next sentence is synthesized. A client
// that reads slower than that stalls synthesis.
const wsOutbox = 4

// wsPingInterval is how often the server pings the client; a client
// that does not answer within the write timeout is gone.
const wsPingInterval = 30 * time.Second

// fail ends the session with work cut short (a write failed, or the client
// left with requests pending): the access log reports it aborted.
func (ws *wsSession) fail(err error) {
	ws.mu.Lock()
	if ws.ri.Abort == nil {
		ws.ri.Abort = err
	}
	ws.mu.Unlock()
	ws.end(err)
}

// send queues a JSON message.
func (ws *wsSession) send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return ws.out.Queue(ctx, outbox.Message{Type: websocket.MessageText, Data: b})
}

func (ws *wsSession) sendError(ctx context.Context, id string, e *wire.Error) error {
	return ws.send(ctx, wsError(id, e))
}

// wsError is the error message of the request id ("": of none).
func wsError(id string, e *wire.Error) wire.WSErrorMsg {
	return wire.WSErrorMsg{Type: wire.WSErrorMessage, ID: id, Error: e.Object()}
}

// recheck admits the session's next request as the handshake was: by
// its credentials again (the host application may have ended the
// session it knows, the playground's session may have been signed out),
// or by the key again (it may have been revoked).
func (ws *wsSession) recheck(ctx context.Context) *wire.Error {
	return ws.s.core.Recheck(ctx, core.Creds{R: ws.r, Key: ws.token, Account: ws.ri.Account})
}

// watchKey checks the session's credentials again every recheck interval,
// as before each request: a key revoked meanwhile ends the session,
// whatever it is doing.
func (ws *wsSession) watchKey(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(ws.s.core.RecheckGap):
		}
		if werr := ws.recheck(ctx); werr != nil {
			ws.refuse(ctx, "", werr)
			return
		}
	}
}

// authFirst reads the auth message of a connection that had no
// Authorization header (browsers cannot set one).
func (ws *wsSession) authFirst(ctx context.Context) bool {
	actx, cancel := context.WithTimeout(ctx, ws.s.core.SocketAuth)
	defer cancel()
	typ, data, err := ws.c.Read(actx)
	if err != nil {
		ws.c.Close(websocket.StatusPolicyViolation, "no auth message")
		return false
	}
	refuse := func(e *wire.Error, reason string) bool {
		ws.sendError(ctx, "", e)
		ws.out.Drain()
		ws.c.Close(websocket.StatusPolicyViolation, reason)
		return false
	}
	var m wire.WSClientMessage
	if typ != websocket.MessageText || json.Unmarshal(data, &m) != nil || m.Type != wire.WSAuth {
		return refuse(wire.MissingKey(), "the first message must be {\"type\":\"auth\",\"api_key\":...}")
	}
	k, werr := ws.s.core.CheckKey(ctx, m.APIKey)
	if werr != nil {
		return refuse(werr, werr.Code)
	}
	ws.ri.Account = k.Account
	ws.token = m.APIKey
	return true
}

// wsContext is one speech.create: a request with its whole input, or an
// input stream whose text arrives in input.append messages.
type wsContext struct {
	id         string
	msg        wire.WSIncoming // the speech.create message, decoded
	stream     bool            // an input stream
	concurrent bool            // a concurrent input stream, its audio in speech.audio messages

	dropped atomic.Bool // cancelled: its audio still queued is not sent

	mu      sync.Mutex
	cancel  context.CancelFunc // set while it runs
	inputs  []wire.WSClientMessage
	pending int           // bytes of inputs' text and ids
	wake    chan struct{} // signalled when inputs grow
}

// wsMaxPending is the most input, in bytes of text and ids, that may wait
// in an input stream's messages for synthesis to take it; a vendor
// socket's context holds to it too (contextSet).
const wsMaxPending = 64 << 10

// wsMaxInputs is the most input messages that may wait in an input
// stream. Consecutive input.append messages wait as one, so only flushes
// count towards it in practice.
const wsMaxInputs = 256

// add queues an input message of the context, its text joined to the
// last waiting input.append's when it is one too. It fails when too much
// input waits; the stream is then cancelled (stop), which lets go of it.
func (wc *wsContext) add(m wire.WSClientMessage) bool {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	last := len(wc.inputs) - 1
	join := m.Type == wire.WSAppend && last >= 0 && wc.inputs[last].Type == wire.WSAppend
	size := len(m.Text) + len(m.FlushID)
	if wc.pending+size > wsMaxPending || !join && len(wc.inputs) >= wsMaxInputs {
		return false
	}
	if join {
		wc.inputs[last].Text += m.Text
	} else {
		wc.inputs = append(wc.inputs, wire.WSClientMessage{Type: m.Type, Text: m.Text, FlushID: m.FlushID})
	}
	wc.pending += size
	select {
	case wc.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns the input messages queued so far.
func (wc *wsContext) take() []wire.WSClientMessage {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	in := wc.inputs
	wc.inputs, wc.pending = nil, 0
	return in
}

// stop cancels the context: the work in progress stops within a sentence
// and the audio it has queued is dropped.
func (wc *wsContext) stop() {
	wc.dropped.Store(true)
	wc.mu.Lock()
	if wc.cancel != nil {
		wc.cancel()
	}
	wc.inputs, wc.pending = nil, 0
	wc.mu.Unlock()
}

// read queues speech.create messages as contexts, routes input messages
// to their contexts and acts on speech.cancel at once. It closes queue
// when the connection ends.
func (ws *wsSession) read(ctx context.Context, queue chan<- *wsContext) {
	defer close(queue)
	var buf bytes.Buffer // each message is read into it: one buffer, not one per message
	for {
		typ, data, err := ws.readMessage(ctx, &buf)
		if err != nil {
			// Work cut short is an aborted session; an idle one that
			// closes has ended normally.
			// A connection closed here (after a failed write) was
			// reported by the write.
			ws.mu.Lock()
			busy := ws.active != nil || ws.running > 0 || len(queue) > 0
			ws.mu.Unlock()
			cause := fmt.Errorf("client closed the connection: %w", err)
			if busy && !errors.Is(err, net.ErrClosed) {
				ws.fail(cause)
			} else {
				ws.end(cause)
			}
			return
		}
		if len(data) > wsMaxInputMessage && typ == websocket.MessageText && !isCreate(data) {
			ws.sendError(ctx, "", wire.BadRequest(wire.CodeInvalidValue, "",
				"A message other than speech.create may be at most %d KiB long; this one has %d bytes.", wsMaxInputMessage>>10, len(data)))
			continue
		}
		if typ != websocket.MessageText {
			ws.sendError(ctx, "", wire.BadRequest(wire.CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\"."))
			continue
		}
		m, werr := wire.ParseWSMessage(data)
		if werr != nil {
			ws.sendError(ctx, "", wire.ToError(werr, ""))
			continue
		}
		if werr := m.CheckEchoed(); werr != nil {
			ws.sendError(ctx, "", werr)
			continue
		}
		switch m.Type {
		case wire.WSCancel:
			ws.cancel(ctx, m.ID)
		case wire.WSAppend, wire.WSFlush, wire.WSInputDone:
			ws.input(ctx, m.WSClientMessage)
		default: // speech.create, or a type run reports
			ws.create(ctx, m, queue)
		}
	}
}

// wsMaxInputMessage is the longest message other than speech.create (and
// the longest message of a vendor socket): an input.append of as much
// text as may wait, and room for the rest.
const wsMaxInputMessage = wsMaxPending + 4<<10

// isCreate reports whether a JSON message is a speech.create, decoding
// only its type (the other fields are skipped, not copied).
func isCreate(data []byte) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &head) == nil && head.Type == wire.WSCreate
}

// readMessage reads the next message into buf, reused from message to
// message, so a client sending large messages costs one buffer. data is
// buf's: copy what outlives the next read.
func (ws *wsSession) readMessage(ctx context.Context, buf *bytes.Buffer) (websocket.MessageType, []byte, error) {
	typ, r, err := ws.c.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return 0, nil, err
	}
	return typ, buf.Bytes(), nil
}

// create queues a speech.create (or a message of an unknown type, which
// run answers in turn), or starts it at once when it is concurrent. A
// speech.create that failed its checks opens no input stream; its error
// is answered in turn, or at once when it asked to be concurrent.
func (ws *wsSession) create(ctx context.Context, m wire.WSIncoming, queue chan<- *wsContext) {
	stream := m.Type == wire.WSCreate && m.SpeechErr == nil && m.Speech.InputStream
	wc := &wsContext{id: m.ID, msg: m, stream: stream, concurrent: stream && m.Concurrent, wake: make(chan struct{}, 1)}
	var werr *wire.Error
	switch {
	case m.Concurrent && m.SpeechErr != nil:
		werr = wire.ToError(m.SpeechErr, "")
	case wc.concurrent:
		werr = ws.start(ctx, wc)
	default:
		werr = ws.enqueue(wc, queue)
	}
	if werr != nil {
		ws.sendError(ctx, m.ID, werr) // not under ws.mu: sending may wait
	}
}

// checkStream refuses an input stream without an id, or whose id names
// another open one. ws.mu is held.
func (ws *wsSession) checkStream(wc *wsContext) *wire.Error {
	if wc.id == "" {
		return wire.BadRequest(wire.CodeMissingParameter, "id", "An input stream needs an \"id\", which its input.append messages name.")
	}
	if ws.contexts[wc.id] != nil {
		return wire.BadRequest(wire.CodeInvalidValue, "id", "An input stream with id %q is already open on this connection.", wc.id)
	}
	return nil
}

// enqueue queues wc, and registers it by id when it is an input stream.
func (ws *wsSession) enqueue(wc *wsContext, queue chan<- *wsContext) *wire.Error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if wc.stream {
		if werr := ws.checkStream(wc); werr != nil {
			return werr
		}
	}
	select {
	case queue <- wc:
		if wc.stream {
			ws.contexts[wc.id] = wc
		}
		return nil
	default:
		return &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeInvalidRequest,
			Code: wire.CodeQueueFull, Message: "Too many speech requests are waiting on this connection."}
	}
}

// start registers the concurrent input stream wc and runs it on its own
// goroutine, as run runs a queued one; its slot and id are free again
// when its last message goes out. It refuses a stream beyond
// wsMaxConcurrent, and any once the session is ending.
func (ws *wsSession) start(ctx context.Context, wc *wsContext) *wire.Error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	switch {
	case ws.shut:
		return wire.Unavailable()
	case ws.running >= wsMaxConcurrent:
		return wire.TooManyContexts(wsMaxConcurrent)
	}
	if werr := ws.checkStream(wc); werr != nil {
		return werr
	}
	ws.contexts[wc.id] = wc
	ws.running++
	ws.workers.Go(func() {
		last := ws.answer(ctx, wc)
		ws.release(wc)
		if last != nil {
			ws.send(ctx, last)
		}
	})
	return nil
}

// release unregisters a concurrent context that has ended.
func (ws *wsSession) release(wc *wsContext) {
	ws.mu.Lock()
	if ws.contexts[wc.id] == wc {
		delete(ws.contexts, wc.id)
	}
	ws.running--
	ws.mu.Unlock()
	select {
	case ws.ended <- struct{}{}:
	default: // a signal waits already
	}
}

// quiet reports whether no concurrent context is open; if so, none
// starts any more (the session closes as idle).
func (ws *wsSession) quiet() bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.running > 0 {
		return false
	}
	ws.shut = true
	return true
}

// settle lets no concurrent context start any more and waits until the
// goroutines of the open ones have sent their last message (at shutdown
// each speaks what it has, then ends; when the session ends, each stops).
func (ws *wsSession) settle() {
	ws.mu.Lock()
	ws.shut = true // no workers.Go after this: Wait may begin
	ws.mu.Unlock()
	ws.workers.Wait()
}

// cancel stops the context named id (queued, in progress or concurrent),
// or with no id the queued request in progress.
func (ws *wsSession) cancel(ctx context.Context, id string) {
	ws.mu.Lock()
	wc := ws.active
	if id != "" {
		wc = ws.contexts[id]
		if ws.active != nil && ws.active.id == id {
			wc = ws.active
		}
	}
	ws.mu.Unlock()
	if wc != nil {
		wc.stop()
	}
}

// input routes an input.append, input.flush or input.done to its stream.
func (ws *wsSession) input(ctx context.Context, m wire.WSClientMessage) {
	ws.mu.Lock()
	wc := ws.contexts[m.ID]
	ws.mu.Unlock()
	switch {
	case wc == nil:
		ws.sendError(ctx, m.ID, wire.BadRequest(wire.CodeInvalidValue, "id",
			"No input stream with id %q is open on this connection: open one with speech.create and \"input_stream\": true.", m.ID))
	case !wc.add(m):
		ws.sendError(ctx, m.ID, wire.BadRequest(wire.CodeBufferFull, "text",
			"More than %d KiB of text or %d messages wait for synthesis in input stream %q: the stream is cancelled. Send text no faster than it is spoken.", wsMaxPending>>10, wsMaxInputs, m.ID))
		wc.stop()
	}
}

// run answers one queued context in turn. Its id is free again when its
// last message goes out.
func (ws *wsSession) run(ctx context.Context, wc *wsContext) {
	ws.mu.Lock()
	ws.active = wc
	ws.mu.Unlock()
	last := ws.answer(ctx, wc)
	ws.mu.Lock()
	ws.active = nil
	if ws.contexts[wc.id] == wc {
		delete(ws.contexts, wc.id)
	}
	ws.mu.Unlock()
	if last != nil {
		ws.send(ctx, last)
	}
}

// answer runs a context, queued or concurrent, once it has its turn:
// credentials checked again, then speech. It returns the context's last
// message, as speech does.
func (ws *wsSession) answer(ctx context.Context, wc *wsContext) (last any) {
	m := wc.msg
	switch {
	case m.Type != wire.WSCreate:
		return wsError(m.ID, wire.BadRequest(wire.CodeInvalidValue, "type",
			"Unknown message type %q: send speech.create, input.append, input.flush, input.done or speech.cancel.", m.Type))
	case wc.dropped.Load(): // cancelled while queued
		return wire.WSCancelledMessage{Type: wire.WSCancelled, ID: wc.id}
	}
	if werr := ws.recheck(ctx); werr != nil {
		ws.refuse(ctx, m.ID, werr)
		return nil
	}
	return ws.speech(ctx, wc)
}

// refuse ends the session whose credentials recheck refused: the error,
// then close status 1008.
func (ws *wsSession) refuse(ctx context.Context, id string, werr *wire.Error) {
	ws.sendError(ctx, id, werr)
	ws.out.Drain()
	ws.c.Close(websocket.StatusPolicyViolation, werr.Code)
	ws.end(fmt.Errorf("credentials refused: %s", werr.Code))
}

// wsWriter hands what tts writes to the outbox as one binary message per
// flush, that is per sentence, preceded by speech.started; a concurrent
// context's as one speech.audio message.
type wsWriter struct {
	ctx     context.Context
	ws      *wsSession
	of      *wsContext
	started func() error
	buf     []byte
	sent    bool
}

func (w *wsWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *wsWriter) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if !w.sent {
		w.sent = true
		if err := w.started(); err != nil {
			return err
		}
	}
	m := outbox.Message{Type: websocket.MessageBinary, Data: w.buf, Skip: &w.of.dropped}
	if w.of.concurrent { // its audio interleaves with others': tag it
		b, err := json.Marshal(wire.WSAudioMessage{Type: wire.WSAudio, ID: w.of.id, Audio: w.buf})
		if err != nil {
			return err
		}
		m.Type, m.Data = websocket.MessageText, b
	}
	err := w.ws.out.Queue(w.ctx, m)
	w.buf = nil // the outbox has it
	return err
}

// speech runs one speech.create: with its whole input, or as an input
// stream. It returns the context's last message (speech.done,
// speech.cancelled or an error), for the caller to send once it has let
// go of the context, or nil when the session ended.
func (ws *wsSession) speech(ctx context.Context, wc *wsContext) (last any) {
	start := time.Now()
	if wc.msg.SpeechErr != nil {
		return wsError(wc.id, wire.ToError(wc.msg.SpeechErr, ""))
	}
	sp := wc.msg.Speech
	req, werr := ws.s.core.SpeechRequest(sp, ws.ri.Account)
	if werr != nil {
		return wsError(wc.id, werr)
	}
	codec, err := ws.s.core.Synth.Codec(req.Format)
	if err != nil {
		return wsError(wc.id, wire.ToError(err, sp.Voice))
	}
	end, werr := ws.s.core.AdmitSpeech(ctx, ws.ri.Account)
	if werr != nil {
		return wsError(wc.id, werr)
	}
	defer end()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wc.mu.Lock()
	wc.cancel = cancel
	wc.mu.Unlock()
	if wc.dropped.Load() { // cancelled just now
		cancel()
	}
	w := &wsWriter{ctx: ctx, ws: ws, of: wc, started: func() error {
		return ws.send(ctx, wire.WSStartedMessage{Type: wire.WSStarted, ID: wc.id, Format: req.Format.Name,
			ContentType: codec.ContentType, SampleRate: req.Format.Rate()})
	}}
	if sp.Timestamps == wire.TimestampsWord {
		req.OnSentence = func(d tts.SentenceDone) {
			b, _ := json.Marshal(wire.NewTimestamps(wc.id, d))
			ws.out.Queue(ctx, outbox.Message{Type: websocket.MessageText, Data: b, Skip: &wc.dropped})
		}
	}
	var res tts.Result
	chars := utf8.RuneCountInString(sp.Input)
	if sp.InputStream {
		res, chars, err = ws.inputStream(ctx, rctx, wc, sp, req, w)
	} else {
		var p *tts.Prepared
		p, err = ws.s.core.Synth.Prepare(req)
		if err != nil {
			return wsError(wc.id, wire.ToError(err, sp.Voice))
		}
		res, err = p.Stream(rctx, w)
	}
	if err == nil {
		err = w.Flush()
	}
	log := ws.s.core.Log.With("request_id", ws.ri.ID, "id", wc.id, "voice", sp.Voice)
	var idle *idleError
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, outbox.ErrDrained)):
		log.Info("server: websocket speech stopped: the session ended", "err", err, "cause", context.Cause(ctx))
	case err != nil && rctx.Err() != nil:
		log.Info("server: websocket speech cancelled")
		return wire.WSCancelledMessage{Type: wire.WSCancelled, ID: wc.id}
	case errors.As(err, &idle):
		log.Info("server: websocket input stream idle", "after", idle.after)
		return wsError(wc.id, idle.wire())
	case err != nil:
		return wsError(wc.id, ws.s.core.SynthesisFailed(log, sp.Voice, err))
	default:
		if !w.sent { // no audio at all: still announce the format
			w.started()
		}
		res.SynthesisTime = ws.s.core.UpstreamTime(res)
		ws.s.core.CountSpeech(sp.Format, res, time.Since(start))
		log.Info("websocket speech", "sentences", res.Sentences, "upstream_ms", core.MS(res.SynthesisTime), "engine_ms", core.MS(res.EngineTime),
			"gateway_ms", core.MS(time.Since(start)))
		return doneMessage(wc.id, chars, res, start)
	}
	return nil
}

// doneMessage is speech.done for an input of chars characters.
func doneMessage(id string, chars int, res tts.Result, start time.Time) wire.WSDoneMessage {
	msf := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return wire.WSDoneMessage{
		Type: wire.WSDone, ID: id, Sentences: res.Sentences, AudioMS: msf(res.Audio),
		UpstreamMS: msf(res.SynthesisTime), EngineMS: msf(res.EngineTime), IgnoredTags: res.IgnoredTags, ClampedTags: res.ClampedTags,
		Usage: wire.UsageOf(chars, res.Audio), GatewayMS: msf(time.Since(start)),
	}
}
