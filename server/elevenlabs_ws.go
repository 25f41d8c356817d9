package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// ElevenLabs' input-streaming WebSockets: stream-input (one context per
// socket) and multi-stream-input (several, each named by context_id).

// elevenInactivity is ElevenLabs' default inactivity timeout, and
// elevenMaxInactivity the longest it allows.
const (
	elevenInactivity    = 20 * time.Second
	elevenMaxInactivity = 180 * time.Second
)

// elevenDefaultSchedule is ElevenLabs' default chunk_length_schedule:
// buffered text is spoken once it has this many characters, the first
// threshold for the first part, the next for the next, even without a
// sentence end.
var elevenDefaultSchedule = []int{120, 160, 250, 290}

// elevenMessage is a client message of either socket.
type elevenMessage struct {
	Text             *string             `json:"text"`
	ContextID        string              `json:"context_id"`
	VoiceSettings    *elevenVoiceSetting `json:"voice_settings"`
	GenerationConfig *struct {
		ChunkLengthSchedule []int `json:"chunk_length_schedule"`
	} `json:"generation_config"`
	Flush                bool   `json:"flush"`
	TryTriggerGeneration bool   `json:"try_trigger_generation"`
	CloseContext         bool   `json:"close_context"`
	CloseSocket          bool   `json:"close_socket"`
	XIAPIKey             string `json:"xi_api_key"`
}

func (m elevenMessage) contextID() string { return m.ContextID }

// elevenSession is one socket.
type elevenSession struct {
	jsonSender
	s       *Server
	ctx     context.Context
	guard   *socketGuard
	multi   bool
	account string
	voice   string
	format  vendorFormat
	norm    string // apply_text_normalization
	open    *contextSet[elevenMessage]
}

func (s *Server) elevenSocket(multi bool) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ri := info(r.Context())
		if werr := s.checkUpgrade(w.Header(), r); werr != nil {
			return werr
		}
		q := r.URL.Query()
		f, eerr := parseElevenFormat(q.Get("output_format"))
		inactivity := elevenInactivity
		if v := q.Get("inactivity_timeout"); v != "" && eerr == nil {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || time.Duration(n)*time.Second > elevenMaxInactivity {
				eerr = &elevenError{http.StatusBadRequest, "invalid_request", "inactivity_timeout must be 1 to 180 seconds."}
			}
			inactivity = time.Duration(n) * time.Second
		}
		account := ""
		if eerr == nil && (r.Header.Get("xi-api-key") != "" || bearer(r) != "" || s.host != nil) {
			account, eerr = s.elevenAdmit(r, store.ScopeSpeech)
		} // else the first message carries the key
		if eerr == nil && account != "" {
			if _, err := s.voices.Lookup(account, s.resolveVoice(account, r.PathValue("voice"))); err != nil {
				eerr = elevenVoiceNotFound(r.PathValue("voice"))
			}
		}
		if eerr != nil {
			writeJSON(w, eerr.HTTPStatus, map[string]any{"detail": eerr})
			return nil
		}
		ri.format = f.format.Name
		creds := socketCreds{r: r, key: r.Header.Get("xi-api-key"), account: account}
		return vendorSocket(s, w, r, creds, inactivity, func(ctx context.Context, c *websocket.Conn, g *socketGuard) socketDoor[elevenMessage] {
			return &elevenSession{jsonSender: jsonSender{c: c, ctx: ctx, timeout: s.writeTime}, s: s, ctx: ctx, guard: g, multi: multi, account: account,
				voice: r.PathValue("voice"), format: f, norm: q.Get("apply_text_normalization"), open: newContextSet[elevenMessage](g)}
		})
	}
}

// refuse sends an error that names no context.
func (es *elevenSession) refuse(werr *wire.Error) {
	es.send(map[string]any{"error": werr.Message, "code": toEleven(werr).Status})
}

func (es *elevenSession) wait() { es.open.wait() }

// handle acts on one message, which came in size bytes; done says the
// session is over.
func (es *elevenSession) handle(m elevenMessage, size int) (done bool, reason closeReason) {
	if es.account == "" { // the first message carries the key
		if m.XIAPIKey == "" {
			return true, closeReason{websocket.StatusPolicyViolation, "Send the API key in the xi-api-key header or as xi_api_key in the first message."}
		}
		account, werr := es.guard.admitKey(es.ctx, m.XIAPIKey)
		if werr != nil {
			return true, closeReason{websocket.StatusPolicyViolation, werr.Message}
		}
		es.account = account
		if _, err := es.s.voices.Lookup(es.account, es.s.resolveVoice(es.account, es.voice)); err != nil {
			return true, closeReason{websocket.StatusPolicyViolation, elevenVoiceNotFound(es.voice).Message}
		}
	}
	if m.CloseSocket {
		es.open.endAll(elevenMessage{CloseContext: true})
		es.open.wait()
		return true, closeReason{websocket.StatusNormalClosure, ""}
	}
	id := m.ContextID
	if !es.multi {
		id = ""
	}
	ec := es.open.get(id)
	switch {
	case ec == nil && m.CloseContext:
		return false, reason
	case ec == nil:
		var eerr *elevenError
		if ec, eerr = es.start(id, m); eerr != nil {
			es.send(es.tag(id, map[string]any{"error": eerr.Message, "code": eerr.Status}))
			return false, reason
		}
		if m.Text != nil && *m.Text == " " {
			return false, reason // the opening message
		}
	}
	end := m.CloseContext || !es.multi && m.Text != nil && *m.Text == ""
	if m.Text != nil && *m.Text == "" && es.multi {
		m.Flush = true // an empty text flushes a context of the multi socket
	}
	sent := false
	if end {
		m.CloseContext = true
		sent = es.open.end(ec, m, size)
	} else {
		sent = es.open.send(ec, m, size)
	}
	if !sent {
		es.send(es.tag(id, map[string]any{"error": contextFull(id).Message, "code": wire.CodeBufferFull}))
	}
	if end && !es.multi {
		es.open.wait()
		return true, closeReason{websocket.StatusNormalClosure, ""}
	}
	return false, reason
}

// tag adds the context id of a multi-stream socket to a message.
func (es *elevenSession) tag(id string, m map[string]any) map[string]any {
	if es.multi {
		m["contextId"] = id
	}
	return m
}

// start opens a context with the settings of its first message.
func (es *elevenSession) start(id string, first elevenMessage) (*socketContext[elevenMessage], *elevenError) {
	if es.open.full() {
		return nil, &elevenError{http.StatusTooManyRequests, "max_active_conversations", fmt.Sprintf("At most %d contexts may be open on one socket; close one first.", maxSocketContexts)}
	}
	req, eerr := es.s.elevenRequest(es.account, es.voice, "", first.VoiceSettings, es.norm, es.format)
	if eerr != nil {
		return nil, eerr
	}
	schedule := elevenDefaultSchedule
	if first.GenerationConfig != nil && len(first.GenerationConfig.ChunkLengthSchedule) > 0 {
		schedule = first.GenerationConfig.ChunkLengthSchedule
	}
	ec, werr := es.open.start(es.ctx, id, func(ctx context.Context, ec *socketContext[elevenMessage]) {
		es.run(ctx, ec, req, schedule)
	})
	if werr != nil {
		return nil, toEleven(werr)
	}
	return ec, nil
}

// run synthesizes one context: its text as sentences complete (or as the
// chunk schedule says), an audio message per sentence with its alignment,
// and isFinal at its end.
func (es *elevenSession) run(ctx context.Context, ec *socketContext[elevenMessage], req tts.Request, schedule []int) {
	start := time.Now()
	var audio byteBuffer
	var ts *tts.TextStream
	aligner := &charAligner{normalize: es.s.normalizerFor(req)}
	req.OnSentence = func(d tts.SentenceDone) {
		a, na := aligner.sentence(d.Words, false)
		es.send(es.tag(ec.id, map[string]any{"audio": base64.StdEncoding.EncodeToString(audio.take()),
			"isFinal": nil, "alignment": a.ms(), "normalizedAlignment": na.ms()}))
	}
	fail := func(err error) {
		if ctx.Err() != nil {
			return // cancelled, or the socket ended
		}
		werr := es.s.synthesisFailed(es.s.log, req.Voice, err)
		es.send(es.tag(ec.id, map[string]any{"error": werr.Message, "code": werr.Code}))
	}
	var err error
	ts, err = es.s.synth.StreamText(ctx, es.format.writer(&audio), req)
	if err != nil {
		fail(err)
		return
	}
	part := 0
	for {
		var m elevenMessage
		select {
		case m = <-ec.ops:
		case <-ctx.Done():
			ts.Close()
			return
		}
		if m.Text != nil {
			aligner.write(*m.Text)
			if _, err := ts.WriteString(*m.Text); err != nil {
				fail(err)
				return
			}
			if threshold := schedule[min(part, len(schedule)-1)]; ts.Buffered() >= threshold || m.TryTriggerGeneration && ts.Buffered() >= schedule[0] {
				m.Flush = true
				part++
			}
		}
		if m.Flush && !m.CloseContext {
			if err := ts.Flush(); err != nil {
				fail(err)
				return
			}
		}
		if m.CloseContext {
			res, err := ts.Close()
			if err != nil {
				fail(err)
				return
			}
			if rest := audio.take(); len(rest) > 0 {
				a, na := aligner.sentence(nil, true)
				es.send(es.tag(ec.id, map[string]any{"audio": base64.StdEncoding.EncodeToString(rest),
					"isFinal": nil, "alignment": a.ms(), "normalizedAlignment": na.ms()}))
			}
			es.send(es.tag(ec.id, map[string]any{"isFinal": true}))
			es.s.metrics.speech(es.format.format.Name, res, time.Since(start))
			return
		}
	}
}

// byteBuffer collects audio between messages.
type byteBuffer struct{ b []byte }

func (b *byteBuffer) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}

// take returns what was written since the last take.
func (b *byteBuffer) take() []byte {
	out := b.b
	b.b = nil
	return out
}
