package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// Cartesia's WebSocket, /tts/websocket: generation requests, each naming
// its context; a context takes transcript pieces (continue: true) until
// one says continue: false, and speaks sentences as they complete, or
// what it holds on flush or after max_buffer_delay_ms. Several contexts
// run at once (maxSocketContexts), each cancellable alone.

// cartesiaBufferDelay is Cartesia's default max_buffer_delay_ms, and
// cartesiaMaxBufferDelay the longest it allows.
const (
	cartesiaBufferDelay    = 3000 * time.Millisecond
	cartesiaMaxBufferDelay = 5000 * time.Millisecond
)

func (m cartesiaRequest) contextID() string { return m.ContextID }

// cartesiaSession is one socket.
type cartesiaSession struct {
	jsonSender
	s         *Server
	ctx       context.Context
	account   string
	requestID string
	open      *contextSet[cartesiaRequest]
}

// cartesiaSocket serves GET /tts/websocket. The key comes in X-API-Key,
// Authorization: Bearer, or (for browsers, which cannot set headers) the
// api_key or access_token query parameter.
func (s *Server) cartesiaSocket(w http.ResponseWriter, r *http.Request) error {
	ri := info(r.Context())
	if werr := s.checkUpgrade(w.Header(), r); werr != nil {
		return werr
	}
	q := r.URL.Query()
	key := r.Header.Get("X-API-Key")
	if key == "" && bearer(r) == "" {
		key = q.Get("api_key")
		if key == "" {
			key = q.Get("access_token")
		}
	}
	account, werr := s.admitVendor(r, key, store.ScopeSpeech)
	if werr != nil {
		writeJSON(w, werr.Status, toCartesia(werr).event("", ri.id))
		return nil
	}
	creds := socketCreds{r: r, key: key, account: account}
	return vendorSocket(s, w, r, creds, s.wsIdle, func(ctx context.Context, c *websocket.Conn, g *socketGuard) socketDoor[cartesiaRequest] {
		return &cartesiaSession{jsonSender: jsonSender{c: c, ctx: ctx, timeout: s.writeTime}, s: s, ctx: ctx, account: account,
			requestID: ri.id, open: newContextSet[cartesiaRequest](g)}
	})
}

// refuse sends an error event that names no context.
func (cs *cartesiaSession) refuse(werr *wire.Error) {
	cs.send(toCartesia(werr).event("", cs.requestID))
}

func (cs *cartesiaSession) wait() { cs.open.wait() }

// handle acts on one message, which came in size bytes.
func (cs *cartesiaSession) handle(m cartesiaRequest, size int) (done bool, reason closeReason) {
	id := m.ContextID
	if m.Cancel {
		cs.open.cancel(id)
		return false, reason
	}
	sc := cs.open.get(id)
	if sc == nil {
		var cerr *cartesiaError
		if sc, cerr = cs.start(m); cerr != nil {
			cs.send(cerr.event(id, cs.requestID))
			return false, reason
		}
	}
	sent := false
	if m.Continue {
		sent = cs.open.send(sc, m, size)
	} else {
		sent = cs.open.end(sc, m, size)
	}
	if !sent {
		cs.send(toCartesia(contextFull(id)).event(id, cs.requestID))
	}
	return false, reason
}

// start opens a context with the settings of its first message.
func (cs *cartesiaSession) start(first cartesiaRequest) (*socketContext[cartesiaRequest], *cartesiaError) {
	if cs.open.full() {
		return nil, &cartesiaError{http.StatusTooManyRequests, "too_many_contexts", "Too many contexts",
			fmt.Sprintf("At most %d contexts may be open on one connection; end or cancel one first.", maxSocketContexts)}
	}
	f, cerr := first.OutputFormat.vendorFormat("raw")
	if cerr != nil {
		return nil, cerr
	}
	delay := cartesiaBufferDelay
	if first.MaxBufferDelayMS != nil {
		delay = time.Duration(*first.MaxBufferDelayMS) * time.Millisecond
		if delay < 0 || delay > cartesiaMaxBufferDelay {
			return nil, cartesiaBadRequest(wire.CodeInvalidValue, "max_buffer_delay_ms must be 0 to 5000.")
		}
	}
	first.Transcript = nil // the context's text comes through its messages
	req, _, cerr := cs.s.cartesiaTTS(cs.account, first, f)
	if cerr != nil {
		return nil, cerr
	}
	sc, werr := cs.open.start(cs.ctx, first.ContextID, func(ctx context.Context, sc *socketContext[cartesiaRequest]) {
		cs.run(ctx, sc, req, f, first, delay)
	})
	return sc, cartesiaErr(werr)
}

// run synthesizes one context: chunk (and timestamps) events per
// sentence, flush_done after each flush's audio, done at its end.
// Cancelled, it stops and sends nothing more.
func (cs *cartesiaSession) run(ctx context.Context, sc *socketContext[cartesiaRequest], req tts.Request, f vendorFormat, first cartesiaRequest, delay time.Duration) {
	start := time.Now()
	id := sc.id
	var audio byteBuffer
	var ts *tts.TextStream
	flushID := 1
	words := &cartesiaWords{normalized: first.UseNormalizedTimestamps, aligner: &charAligner{normalize: cs.s.normalizerFor(req)}}
	last := time.Now()
	req.OnSentence = func(d tts.SentenceDone) {
		cs.send(map[string]any{"type": "chunk", "context_id": id, "data": base64.StdEncoding.EncodeToString(audio.take()),
			"done": false, "status_code": 206, "flush_id": flushID, "step_time": float64(time.Since(last).Microseconds()) / 1000})
		last = time.Now()
		if first.AddTimestamps {
			cs.send(map[string]any{"type": "timestamps", "context_id": id, "done": false, "status_code": 206,
				"flush_id": flushID, "word_timestamps": words.sentence(d)})
		}
	}
	fail := func(err error) {
		if ctx.Err() != nil {
			return // cancelled, or the socket ended
		}
		werr := cs.s.synthesisFailed(cs.s.log, req.Voice, err)
		cs.send(toCartesia(werr).event(id, cs.requestID))
	}
	var err error
	ts, err = cs.s.synth.StreamText(ctx, f.writer(&audio), req)
	if err != nil {
		fail(err)
		return
	}
	wait := time.NewTimer(delay) // armed while text waits for its sentence's end
	wait.Stop()
	defer wait.Stop()
	armed := false
	for {
		var m cartesiaRequest
		select {
		case m = <-sc.ops:
		case <-wait.C:
			armed = false
			if err := ts.Flush(); err != nil {
				fail(err)
				return
			}
			continue
		case <-ctx.Done():
			ts.Close()
			return
		}
		if m.Transcript != nil {
			if first.AddTimestamps {
				words.write(*m.Transcript)
			}
			if _, err := ts.WriteString(*m.Transcript); err != nil {
				fail(err)
				return
			}
		}
		if !m.Continue {
			res, err := ts.Close()
			if err != nil {
				fail(err)
				return
			}
			if rest := audio.take(); len(rest) > 0 {
				cs.send(map[string]any{"type": "chunk", "context_id": id, "data": base64.StdEncoding.EncodeToString(rest),
					"done": false, "status_code": 206, "flush_id": flushID, "step_time": 0})
			}
			cs.send(map[string]any{"type": "done", "context_id": id, "done": true, "status_code": 200})
			cs.s.metrics.speech(f.format.Name, res, time.Since(start))
			return
		}
		if m.Flush || delay == 0 {
			if err := ts.Flush(); err != nil {
				fail(err)
				return
			}
		}
		if m.Flush {
			cs.send(map[string]any{"type": "flush_done", "context_id": id, "done": false, "flush_done": true,
				"flush_id": flushID, "status_code": 206})
			flushID++
		}
		switch waiting := ts.Buffered() > 0; {
		case waiting && !armed:
			wait.Reset(delay)
			armed = true
		case !waiting && armed:
			wait.Stop()
			armed = false
		}
	}
}
