package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/wire"
)

// CheckUpgrade returns, to be answered as JSON, what websocket.Accept
// would refuse in plain text: no Upgrade (426), a WebSocket version other
// than 13 or no key (400), an origin other than the server's own and the
// allowed patterns (403). It sets the response headers RFC 7231 and RFC
// 6455 ask for with the first two.
func (c *Core) CheckUpgrade(h http.Header, r *http.Request) *wire.Error {
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		return wire.UpgradeRequired()
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		h.Set("Sec-WebSocket-Version", "13")
		return wire.BadWebSocketVersion(v)
	}
	switch keys := r.Header.Values("Sec-WebSocket-Key"); {
	case len(keys) == 0 || keys[0] == "":
		return wire.MissingWebSocketKey()
	case len(keys) > 1 || !validWebSocketKey(keys[0]):
		return wire.BadWebSocketKey()
	}
	if origin := r.Header.Get("Origin"); origin != "" && !c.originAllowed(origin, r.Host) {
		return wire.OriginNotAllowed(origin)
	}
	return nil
}

// validWebSocketKey reports whether key is what RFC 6455 asks of a
// Sec-WebSocket-Key: 16 bytes in base64, around spaces.
func validWebSocketKey(key string) bool {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(key))
	return err == nil && len(b) == 16
}

// originAllowed reports whether a page of origin may open the WebSocket:
// the server's own host, or one that Options.WebSocketOrigins matches (as
// websocket.Accept matches it).
func (c *Core) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, p := range c.Origins {
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

// MaxMessage is the longest message a socket reads, other than
// voxkit's speech.create: an input of as much text as may wait for a
// context (MaxPending), and room for the rest.
const MaxMessage = MaxPending + 4<<10

// A Message is a client message of a socket that ServeSocket reads.
type Message interface {
	// ContextID names the message's context; the server echoes it.
	ContextID() string
}

// A SocketDoor is a door's socket session, as ServeSocket runs it.
type SocketDoor[M Message] interface {
	// Handle acts on one message, which came in size bytes (they count
	// against its context's budget while it waits); done says the
	// session is over, and how it closes.
	Handle(m M, size int) (done bool, reason CloseReason)
	// Refuse tells the client, in the door's shape and naming no
	// context, of a message it cannot take or of its credentials
	// refused.
	Refuse(*wire.Error)
	// Wait waits for the session's contexts to end.
	Wait()
}

// A Finisher is a SocketDoor whose session can end on its own, without a
// message (ElevenLabs' stream-input, once its one context has spoken):
// ServeSocket closes the socket normally when Finished is closed.
type Finisher interface {
	Finished() <-chan struct{}
}

// ServeSocket accepts r's WebSocket, whose caller creds admitted
// (Account "": none yet, its first message must carry a key), and runs
// its session: open makes the door's session for the connection, the
// session's context (cancelled when the client goes, at shutdown, or
// once the session ends) and its guard. It reads the client's JSON
// messages, each an M, and hands them to the door in order until the
// door says the session is done, the client closes, no message came for
// inactivity, or the server shuts down. A message longer than
// MaxMessage, not an M, or naming a context id longer than
// wire.MaxClientID is refused. It holds the caller to the guard's rules:
// no key within the auth timeout, or credentials refused by a check
// (every recheck interval, or one before a context), end the session
// with 1008. The contexts end before the connection closes.
func ServeSocket[M Message](c *Core, w http.ResponseWriter, r *http.Request, creds Creds, inactivity time.Duration,
	open func(context.Context, *websocket.Conn, *Guard) SocketDoor[M]) error {
	conn, werr := c.AcceptSocket(w, r)
	if werr != nil {
		return werr
	}
	if conn == nil {
		return nil // Accept has answered
	}
	defer c.Sessions.Done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(c.closing, cancel)
	defer stop()
	g := c.NewGuard(creds)
	door := open(ctx, conn, g)
	reason := serve(ctx, c, conn, g, inactivity, door)
	cancel()
	door.Wait()
	conn.Close(reason.Code, reason.Text)
	return nil
}

// AcceptSocket upgrades r to a WebSocket that outlives the server's read
// deadline, reads messages of at most the body limit, and counts among
// the sessions shutdown waits for (the caller calls c.Sessions.Done when
// it ends). With no connection it returns the error to answer, or nil
// when Accept has answered (a refused upgrade).
func (c *Core) AcceptSocket(w http.ResponseWriter, r *http.Request) (*websocket.Conn, *wire.Error) {
	if c.closing.Err() != nil {
		return nil, wire.Unavailable()
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: c.Origins})
	if err != nil {
		c.Log.Info("server: websocket upgrade refused", "request_id", RequestID(r.Context()), "err", err)
		return nil, nil
	}
	c.Sessions.Add(1)
	conn.SetReadLimit(c.MaxBody)
	return conn, nil
}

// CloseReason is how a socket's session ends.
type CloseReason struct {
	Code websocket.StatusCode
	Text string
}

// Refused is the close of a socket whose credentials werr refused.
func Refused(werr *wire.Error) CloseReason {
	return CloseReason{websocket.StatusPolicyViolation, werr.Code}
}

// serve is ServeSocket's loop; it says why the session ended.
func serve[M Message](ctx context.Context, c *Core, conn *websocket.Conn, g *Guard, inactivity time.Duration, door SocketDoor[M]) CloseReason {
	type message struct {
		m    M
		size int
	}
	msgs := make(chan message)
	readErr := make(chan error, 1)
	go func() {
		for {
			// Not cancelled with ctx, which would cut the connection
			// before ServeSocket closes it with its close code: the
			// read ends when the connection closes.
			_, data, err := conn.Read(context.WithoutCancel(ctx))
			if err != nil {
				readErr <- err
				return
			}
			if len(data) > MaxMessage {
				door.Refuse(wire.BadRequest(wire.CodeInvalidValue, "",
					"A message may be at most %d KiB long; this one has %d bytes.", MaxMessage>>10, len(data)))
				continue
			}
			var m M
			if err := json.Unmarshal(data, &m); err != nil {
				door.Refuse(wire.BadRequest(wire.CodeInvalidJSON, "", "The message is not a JSON object: %v.", err))
				continue
			}
			if id := m.ContextID(); len(id) > wire.MaxClientID {
				door.Refuse(wire.BadRequest(wire.CodeInvalidValue, "context_id",
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
		if g.Account() == "" {
			return min(inactivity, c.SocketAuth)
		}
		return inactivity
	}
	idle := time.NewTimer(wait())
	defer idle.Stop()
	recheck := time.NewTicker(c.RecheckGap)
	defer recheck.Stop()
	var finished <-chan struct{}
	if f, ok := door.(Finisher); ok {
		finished = f.Finished()
	}
	for {
		select {
		case <-finished:
			return CloseReason{websocket.StatusNormalClosure, ""}
		case m := <-msgs:
			done, reason := door.Handle(m.m, m.size)
			if werr := g.Refused(); werr != nil { // a context's check refused the caller
				return Refused(werr)
			}
			if done {
				return reason
			}
			idle.Reset(wait())
		case <-recheck.C:
			if werr := g.Check(ctx); werr != nil {
				door.Refuse(werr)
				return Refused(werr)
			}
		case <-readErr:
			return CloseReason{websocket.StatusNormalClosure, ""}
		case <-idle.C:
			if g.Account() == "" {
				return CloseReason{websocket.StatusPolicyViolation, fmt.Sprintf("No API key within %v; closing the connection.", c.SocketAuth)}
			}
			return CloseReason{websocket.StatusPolicyViolation, fmt.Sprintf("No message for %v; closing the connection (inactivity timeout).", inactivity)}
		case <-c.closing.Done():
			return CloseReason{websocket.StatusGoingAway, "server shutting down"}
		}
	}
}

// Sender writes a socket's JSON messages, each within the server's
// write timeout; the messages of the socket's contexts take turns. A
// write that fails or passes its deadline closes the connection.
type Sender struct {
	conn    *websocket.Conn
	ctx     context.Context
	timeout time.Duration
	mu      sync.Mutex // one message at a time
}

// NewSender returns the sender of conn for the session of ctx.
func (c *Core) NewSender(ctx context.Context, conn *websocket.Conn) *Sender {
	return &Sender{conn: conn, ctx: ctx, timeout: c.WriteTimeout}
}

// Send writes m as JSON.
func (s *Sender) Send(m any) {
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return // the session is over: a write would cut the connection before its close code
	}
	ctx, cancel := s.ctx, context.CancelFunc(func() {})
	if s.timeout > 0 {
		ctx, cancel = context.WithTimeout(s.ctx, s.timeout)
	}
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, data); err != nil && !errors.Is(err, context.Canceled) {
		s.conn.CloseNow()
	}
}
