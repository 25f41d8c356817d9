// Package socket serves voxkit's own WebSocket, GET /v1/audio/speech/ws:
// speech requests as JSON text messages, audio back as one binary
// message per sentence (a concurrent input stream's as one speech.audio
// message per sentence). It translates messages and nothing else: the
// socket runtime (server/internal/sockets) runs the session — the
// handshake's checks, the accept, the auth deadline, the credentials
// checked again (before each request and input stream, each input.flush
// and input.done, and every recheck interval), the idle time, shutdown,
// the one writer with the write deadline and its pings, the timing and
// log of each speech — and the core speaks:
//
//   - a speech.create with its whole input: core.Speak, on the session's
//     Lane, one request at a time;
//   - an input stream ("input_stream": true) on the Lane: core.Open and
//     Input.Run, its input.append, input.flush and input.done messages
//     waiting in a core.Queue (bounded as every input stream's input is)
//     until it has its turn;
//   - a concurrent input stream ("concurrent": true): a context of the
//     session's core.ContextSet, beside the Lane, at most
//     core.MaxSocketContexts at once.
package socket

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/wire"
)

// Path is the socket's route.
const Path = "/v1/audio/speech/ws"

// queueSize is how many speech requests may wait behind the one in
// progress; concurrent contexts do not count towards it.
const queueSize = 8

// Mount serves the socket on mux.
func Mount(mux *http.ServeMux, c Rooms) {
	route.Route(mux, c.Log, Path, core.Methods{http.MethodGet: func(w http.ResponseWriter, r *http.Request) error {
		return serve(c, w, r)
	}})
}

// session is one connection.
type session struct {
	*sockets.Session
	c    Rooms
	lane *sockets.Lane // the queued requests

	mu      sync.Mutex         // guards streams, waiting and active, which the lane and the contexts release
	streams map[string]*stream // input streams open or queued, by id
	waiting map[*stream]bool   // queued requests with their whole input, until their turn: speech.cancel finds them by id
	active  *stream            // the queued request in progress
}

// serve answers the handshake and serves the connection. The session
// ends, stopping the request in progress and the concurrent contexts and
// dropping the queued requests, when the client closes or breaks the
// connection, when a write fails or passes the write timeout, when the
// credentials are refused on a check, after the idle time with no
// message and nothing at work (closed with 1000 "idle for …"), or at
// shutdown (which lets the request in progress and the concurrent
// contexts finish).
func serve(c Rooms, w http.ResponseWriter, r *http.Request) error {
	ri := core.Info(r.Context())
	if werr := sockets.CheckUpgrade(c.Sockets, w.Header(), r); werr != nil {
		return werr
	}
	creds := core.Creds{R: r, Key: credentials.Bearer(r)}
	if c.Auth.HasHost() || creds.Key != "" || c.Auth.SessionToken(r) != "" {
		caller, werr := c.Auth.Admit(r)
		switch {
		case werr != nil && werr.Code != fault.CodeMissingAPIKey: // without one, the first message may carry it
			return werr
		case werr == nil:
			creds.Account, ri.Account = caller.Account, caller.Account
		}
	}
	opts := sockets.Options{Creds: creds, Idle: c.Sockets.Idle(), Busy: true,
		IdleClose: sockets.CloseReason{Code: websocket.StatusNormalClosure, Text: "idle for " + c.Sockets.Idle().String()}}
	return sockets.Serve(c.Sockets, w, r, opts, func(ss *sockets.Session) sockets.Door[message] {
		s := &session{Session: ss, c: c, lane: ss.Lane(queueSize), streams: map[string]*stream{}, waiting: map[*stream]bool{}}
		if creds.Account != "" {
			s.ready()
		}
		return s
	})
}

// message is a client message: wire.ParseWSMessage's, or why it is not
// one (err), which before the auth message ends the session.
type message struct {
	wire.WSIncoming
	err *fault.Error
}

// Decode parses a client message. Only a speech.create may be longer
// than sockets.MaxMessage.
func (s *session) Decode(typ websocket.MessageType, data []byte) (message, *fault.Error) {
	var werr *fault.Error
	var m wire.WSIncoming
	switch {
	case typ != websocket.MessageText:
		werr = fault.BadRequest(fault.CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\".")
	case len(data) > sockets.MaxMessage && !isCreate(data):
		werr = fault.BadRequest(fault.CodeInvalidValue, "",
			"A message other than speech.create may be at most %d KiB long; this one has %d bytes.", sockets.MaxMessage>>10, len(data))
	default:
		var err error
		if m, err = wire.ParseWSMessage(data); err != nil {
			werr = fault.ToError(err, "")
		} else {
			werr = m.CheckEchoed()
		}
	}
	if werr != nil && s.Guard.Account() != "" {
		return message{}, werr // refused, the session goes on
	}
	return message{WSIncoming: m, err: werr}, nil
}

// isCreate reports whether a JSON message is a speech.create, decoding
// only its type (the other fields are skipped, not copied).
func isCreate(data []byte) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &head) == nil && head.Type == wire.WSCreate
}

// Handle acts on one message: the auth message of a connection opened
// without credentials, then speech.create (queued, or started at once
// when concurrent), input messages for their stream, and speech.cancel
// at once.
func (s *session) Handle(m message, _ int) (bool, sockets.CloseReason) {
	if s.Guard.Account() == "" {
		return s.auth(m)
	}
	switch {
	case m.err != nil:
		s.Refuse(m.err)
	case m.Type == wire.WSCancel:
		s.cancel(m.ID)
	case m.Type == wire.WSAppend, m.Type == wire.WSFlush, m.Type == wire.WSInputDone:
		s.input(m.WSClientMessage)
	default: // speech.create, or a type run reports
		s.create(m.WSIncoming)
	}
	return false, sockets.CloseReason{}
}

// auth admits the caller of a connection opened without credentials
// (browsers cannot set an Authorization header) by its first message.
func (s *session) auth(m message) (bool, sockets.CloseReason) {
	if m.err != nil || m.Type != wire.WSAuth {
		s.Refuse(fault.MissingKey())
		return true, sockets.CloseReason{Code: websocket.StatusPolicyViolation, Text: "the first message must be {\"type\":\"auth\",\"api_key\":...}"}
	}
	account, werr := s.Guard.AdmitKey(s.Ctx, m.APIKey)
	if werr != nil {
		s.Refuse(werr)
		return true, sockets.Refused(werr)
	}
	s.Info.Account = account
	s.ready()
	return false, sockets.CloseReason{}
}

// ready tells the client it is admitted.
func (s *session) ready() {
	s.Out.Send(wire.WSReadyMessage{Type: wire.WSReady, Account: s.Info.Account, RequestID: s.Info.ID})
}

// Refuse sends an error that names no request.
func (s *session) Refuse(werr *fault.Error) { s.sendError("", werr) }

func (s *session) sendError(id string, werr *fault.Error) { s.Out.Send(errorMessage(id, werr)) }

// errorMessage is the error message of the request id ("": of none).
func errorMessage(id string, werr *fault.Error) wire.WSErrorMsg {
	return wire.WSErrorMsg{Type: wire.WSErrorMessage, ID: id, Error: werr.Object()}
}

// refuse ends the session whose credentials a check refused, telling
// the request id (the runtime closes it with 1008).
func (s *session) refuse(id string, werr *fault.Error) {
	s.sendError(id, werr)
	s.End(sockets.Refused(werr))
}
