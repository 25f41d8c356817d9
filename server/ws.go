package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// wsAuthTimeout is how long a connection without an Authorization header
// has to send its auth message.
const wsAuthTimeout = 10 * time.Second

// wsQueue is how many speech requests may wait behind the one in progress.
const wsQueue = 8

// DefaultWSIdleTimeout is how long an authenticated WebSocket session may
// stay without a message from the client and without work in progress
// when Options.WSIdleTimeout is 0.
const DefaultWSIdleTimeout = 5 * time.Minute

// websocket serves GET /v1/audio/speech/ws: speech requests as JSON text
// messages, audio back as one binary message per sentence.
//
// The session ends, cancelling the request in progress and dropping the
// queued ones, when the client closes or breaks the connection, when a
// write fails or passes the write timeout, when the key stops being valid
// (it is checked again before each request), after the idle timeout, or at
// shutdown (which lets the request in progress finish).
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) error {
	ri := info(r.Context())
	if werr := s.checkUpgrade(w.Header(), r); werr != nil {
		return werr
	}
	token := bearer(r)
	if s.auth != nil || token != "" {
		account, _, werr := s.admit(r)
		switch {
		case werr != nil && (token != "" || werr.Code == wire.CodeUnauthenticated):
			return werr
		case werr == nil:
			ri.account = account
		}
	}
	if s.closing.Err() != nil {
		return wire.Unavailable()
	}
	// The connection outlives any server read deadline.
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.origins})
	if err != nil {
		s.log.Info("server: websocket upgrade refused", "request_id", ri.id, "err", err)
		return nil // Accept has answered
	}
	s.sessions.Add(1)
	defer s.sessions.Done()
	c.SetReadLimit(s.maxBody)
	ctx, end := context.WithCancelCause(r.Context())
	sess := &wsSession{s: s, c: c, ri: ri, r: r, token: token, end: end}
	var reader sync.WaitGroup
	defer func() {
		end(errSessionOver)
		c.CloseNow()
		reader.Wait()
	}()
	if ri.account == "" && !sess.authFirst(ctx) {
		return nil
	}
	if sess.send(ctx, wire.WSReadyMessage{Type: wire.WSReady, Account: ri.account, RequestID: ri.id}) != nil {
		return nil
	}
	msgs := make(chan []byte, wsQueue)
	reader.Go(func() { sess.read(ctx, msgs) })
	idle := time.NewTimer(s.wsIdle)
	defer idle.Stop()
	for {
		select {
		case data, ok := <-msgs:
			if !ok || ctx.Err() != nil {
				return nil // the client closed or broke the connection
			}
			sess.speech(ctx, data)
			if ctx.Err() != nil {
				return nil // a write failed or the key was refused
			}
			idle.Reset(s.wsIdle)
		case <-ctx.Done():
			return nil
		case <-idle.C:
			c.Close(websocket.StatusNormalClosure, "idle for "+s.wsIdle.String())
			return nil
		case <-s.closing.Done():
			c.Close(websocket.StatusGoingAway, "server shutting down")
			return nil
		}
	}
}

// errSessionOver ends a session's context when its handler returns.
var errSessionOver = errors.New("server: websocket session over")

// checkUpgrade returns, to be answered as JSON, what websocket.Accept
// would refuse in plain text: no Upgrade (426), a WebSocket version other
// than 13 or no key (400), an origin other than the server's own and the
// allowed patterns (403). It sets the response headers RFC 7231 and RFC
// 6455 ask for with the first two.
func (s *Server) checkUpgrade(h http.Header, r *http.Request) *wire.Error {
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		return wire.UpgradeRequired()
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		h.Set("Sec-WebSocket-Version", "13")
		return wire.BadWebSocketVersion(v)
	}
	if r.Header.Get("Sec-WebSocket-Key") == "" {
		return wire.MissingWebSocketKey()
	}
	if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
		return wire.OriginNotAllowed(origin)
	}
	return nil
}

// originAllowed reports whether a page of origin may open the WebSocket:
// the server's own host, or one that Options.WebSocketOrigins matches (as
// websocket.Accept matches it).
func (s *Server) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, p := range s.origins {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return true
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header holds token,
// case-insensitively.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

type wsSession struct {
	s     *Server
	c     *websocket.Conn
	ri    *reqInfo
	r     *http.Request           // the handshake, for Options.Authenticate
	token string                  // the key, checked again before each request
	end   context.CancelCauseFunc // ends the session

	mu     sync.Mutex
	cancel context.CancelFunc // of the request in progress
}

// fail ends the session with work cut short (a write failed, or the client
// left with requests pending): the access log reports it aborted.
func (ws *wsSession) fail(err error) {
	ws.mu.Lock()
	if ws.ri.abort == nil {
		ws.ri.abort = err
	}
	ws.mu.Unlock()
	ws.end(err)
}

func (ws *wsSession) send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return ws.write(ctx, websocket.MessageText, b)
}

// write sends one message within the write timeout, so a client that
// stops reading cannot hold the session.
func (ws *wsSession) write(ctx context.Context, typ websocket.MessageType, b []byte) error {
	if ws.s.writeTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ws.s.writeTime)
		defer cancel()
	}
	err := ws.c.Write(ctx, typ, b)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("write timeout (%v): %w", ws.s.writeTime, err)
		}
		ws.fail(err)
	}
	return err
}

func (ws *wsSession) sendError(ctx context.Context, id string, e *wire.Error) error {
	return ws.send(ctx, wire.WSErrorMsg{Type: wire.WSErrorMessage, ID: id, Error: e.Object()})
}

// recheck admits the session's next request as the handshake was: by
// Options.Authenticate again (the host application may have ended the
// session it knows), or by the key again (it may have been revoked).
func (ws *wsSession) recheck(ctx context.Context) *wire.Error {
	if ws.token == "" && ws.s.auth != nil {
		account, err := ws.s.auth(ws.r)
		switch {
		case err != nil:
			return wire.Unauthenticated(err.Error())
		case account != ws.ri.account:
			return wire.Unauthenticated("The session's sign-in has changed; reconnect.")
		}
		return nil
	}
	_, werr := ws.s.authenticate(ctx, ws.token)
	return werr
}

// authFirst reads the auth message of a connection that had no
// Authorization header (browsers cannot set one).
func (ws *wsSession) authFirst(ctx context.Context) bool {
	actx, cancel := context.WithTimeout(ctx, wsAuthTimeout)
	defer cancel()
	typ, data, err := ws.c.Read(actx)
	if err != nil {
		ws.c.Close(websocket.StatusPolicyViolation, "no auth message")
		return false
	}
	var m wire.WSClientMessage
	if typ != websocket.MessageText || json.Unmarshal(data, &m) != nil || m.Type != wire.WSAuth {
		ws.sendError(ctx, "", wire.MissingKey())
		ws.c.Close(websocket.StatusPolicyViolation, "the first message must be {\"type\":\"auth\",\"api_key\":...}")
		return false
	}
	k, werr := ws.s.authenticate(ctx, m.APIKey)
	if werr != nil {
		ws.sendError(ctx, "", werr)
		ws.c.Close(websocket.StatusPolicyViolation, werr.Code)
		return false
	}
	ws.ri.account = k.Account
	ws.token = m.APIKey
	return true
}

// read passes text messages to msgs, except speech.cancel, which it acts
// on at once. It closes msgs when the connection ends.
func (ws *wsSession) read(ctx context.Context, msgs chan<- []byte) {
	defer close(msgs)
	for {
		typ, data, err := ws.c.Read(ctx)
		if err != nil {
			// Work cut short is an aborted session; an idle one that
			// closes has ended normally.
			// A connection closed here (after a failed write) was
			// reported by the write.
			ws.mu.Lock()
			busy := ws.cancel != nil || len(msgs) > 0
			ws.mu.Unlock()
			cause := fmt.Errorf("client closed the connection: %w", err)
			if busy && !errors.Is(err, net.ErrClosed) {
				ws.fail(cause)
			} else {
				ws.end(cause)
			}
			return
		}
		var m wire.WSClientMessage
		if typ != websocket.MessageText || json.Unmarshal(data, &m) != nil {
			ws.sendError(ctx, "", wire.BadRequest(wire.CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\"."))
			continue
		}
		if m.Type == wire.WSCancel {
			ws.mu.Lock()
			if ws.cancel != nil {
				ws.cancel()
			}
			ws.mu.Unlock()
			continue
		}
		select {
		case msgs <- data:
		default:
			ws.sendError(ctx, m.ID, &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeInvalidRequest,
				Code: wire.CodeQueueFull, Message: "Too many speech requests are waiting on this connection."})
		}
	}
}

// wsWriter sends what tts.Stream writes as one binary message per flush,
// that is per sentence, preceded by speech.started.
type wsWriter struct {
	ctx     context.Context
	ws      *wsSession
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
	err := w.ws.write(w.ctx, websocket.MessageBinary, w.buf)
	w.buf = w.buf[:0]
	return err
}

// speech runs one speech.create message.
func (ws *wsSession) speech(ctx context.Context, data []byte) {
	start := time.Now()
	var m wire.WSClientMessage
	json.Unmarshal(data, &m) // read has checked it
	if m.Type != wire.WSCreate {
		ws.sendError(ctx, m.ID, wire.BadRequest(wire.CodeInvalidValue, "type",
			"Unknown message type %q: send speech.create or speech.cancel.", m.Type))
		return
	}
	if werr := ws.recheck(ctx); werr != nil {
		ws.sendError(ctx, m.ID, werr)
		ws.c.Close(websocket.StatusPolicyViolation, werr.Code)
		ws.end(fmt.Errorf("key refused: %s", werr.Code))
		return
	}
	sp, p, werr := ws.s.speechRequest(data, ws.ri.account, "pcm")
	if werr != nil {
		ws.sendError(ctx, m.ID, werr)
		return
	}
	req := p.Request()
	codec, err := ws.s.formats.Lookup(req.Format.Name)
	if err != nil {
		ws.sendError(ctx, m.ID, wire.ToError(err, sp.Voice))
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	ws.mu.Lock()
	ws.cancel = cancel
	ws.mu.Unlock()
	defer func() {
		ws.mu.Lock()
		ws.cancel = nil
		ws.mu.Unlock()
		cancel()
	}()
	w := &wsWriter{ctx: ctx, ws: ws, started: func() error {
		return ws.send(ctx, wire.WSStartedMessage{Type: wire.WSStarted, ID: m.ID, Format: req.Format.Name,
			ContentType: codec.ContentType, SampleRate: req.Format.Rate()})
	}}
	res, err := p.Stream(rctx, w)
	if err == nil {
		err = w.Flush()
	}
	log := ws.s.log.With("request_id", ws.ri.id, "id", m.ID, "voice", sp.Voice)
	switch {
	case err != nil && ctx.Err() != nil:
		log.Info("server: websocket speech stopped: the session ended", "err", err, "cause", context.Cause(ctx))
	case err != nil && rctx.Err() != nil:
		log.Info("server: websocket speech cancelled")
		ws.send(ctx, wire.WSCancelledMessage{Type: wire.WSCancelled, ID: m.ID})
	case err != nil:
		log.Error("server: websocket synthesis failed", "err", err)
		ws.sendError(ctx, m.ID, wire.ToError(err, sp.Voice))
	default:
		if !w.sent { // no audio at all: still announce the format
			w.started()
		}
		ws.send(ctx, doneMessage(m.ID, sp, res, start))
		log.Info("websocket speech", "sentences", res.Sentences, "upstream_ms", ms(res.SynthesisTime), "engine_ms", ms(res.EngineTime),
			"gateway_ms", ms(time.Since(start)))
	}
}

func doneMessage(id string, sp wire.Speech, res tts.Result, start time.Time) wire.WSDoneMessage {
	msf := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return wire.WSDoneMessage{
		Type: wire.WSDone, ID: id, Sentences: res.Sentences, AudioMS: msf(res.Audio),
		UpstreamMS: msf(res.SynthesisTime), EngineMS: msf(res.EngineTime), IgnoredTags: res.IgnoredTags, ClampedTags: res.ClampedTags,
		Usage: wire.NewUsage(sp.Input, res.Audio), GatewayMS: msf(time.Since(start)),
	}
}
