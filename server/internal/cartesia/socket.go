package cartesia

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/internal/vendordoor"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// Cartesia's WebSocket, /tts/websocket: api.Generation requests, each naming
// its context; a context takes transcript pieces (continue: true) until
// one says continue: false, and speaks sentences as they complete, or
// what it holds on flush or after max_buffer_delay_ms. Several contexts
// run at once (core.MaxSocketContexts), each cancellable alone.

// maxBufferDelay is the longest max_buffer_delay_ms Cartesia allows; its
// default is the core's (core.DefaultBufferDelay).
const maxBufferDelay = 5000 * time.Millisecond

// session is one socket.
type session struct {
	*sockets.Writer
	rt        *sockets.Session
	d         door
	ctx       context.Context
	account   string
	requestID string
	open      *core.ContextSet
	breaks    map[string]*vendordoor.BreakStream // of each open context, by id
}

// socket serves GET /tts/websocket. The key comes in X-API-Key,
// Authorization: Bearer, or (for browsers, which cannot set headers) the
// api_key or access_token query parameter.
func (d door) socket(w http.ResponseWriter, r *http.Request) error {
	if werr := sockets.CheckUpgrade(d.c.Sockets, w.Header(), r); werr != nil {
		write(w, r, api.FromFault(werr))
		return nil
	}
	q := r.URL.Query()
	key := r.Header.Get("X-API-Key")
	if key == "" && credentials.Bearer(r) == "" {
		key = q.Get("api_key")
		if key == "" {
			key = q.Get("access_token")
		}
	}
	account, werr := d.c.Auth.AdmitVendor(r, key, store.ScopeSpeech)
	if werr != nil {
		write(w, r, api.FromFault(werr))
		return nil
	}
	creds := core.Creds{R: r, Key: key, Account: account}
	err := sockets.Serve(d.c.Sockets, w, r, sockets.Options{Creds: creds, Idle: d.c.Sockets.Idle()}, func(ss *sockets.Session) sockets.Door[api.Generation] {
		return &session{Writer: ss.Out, rt: ss, d: d, ctx: ss.Ctx, account: account,
			requestID: route.RequestID(r.Context()), open: ss.Contexts, breaks: map[string]*vendordoor.BreakStream{}}
	})
	if errors.As(err, &werr) { // refused before the upgrade
		write(w, r, api.FromFault(werr))
	}
	return nil
}

// Refuse sends an error event that names no context.
func (s *session) Refuse(werr *fault.Error) { s.Send(api.FromFault(werr).Event("", s.requestID)) }

// Handle acts on one message, which came in size bytes.
func (s *session) Handle(m api.Generation, size int) (done bool, reason sockets.CloseReason) {
	id := m.Context
	if m.Cancel {
		s.open.Cancel(id)
		delete(s.breaks, id)
		return false, reason
	}
	sc := s.open.Get(id)
	if sc == nil {
		var e *api.Error
		if sc, e = s.start(m); e != nil {
			s.Send(e.Event(id, s.requestID))
			return false, reason
		}
		s.breaks[id] = new(vendordoor.BreakStream)
	}
	op := core.Op{Flush: m.Flush}
	if m.Transcript != nil {
		op.Text = *m.Transcript
	}
	op.Text = s.breaks[id].Text(op.Text, op.Flush || !m.Continue) // break tags, which may come in pieces
	if !m.Continue {
		delete(s.breaks, id)
	}
	sent := false
	if m.Continue {
		sent = s.open.Send(sc, op, size)
	} else {
		sent = s.open.End(sc, op, size)
	}
	if !sent {
		s.Send(api.FromFault(core.ContextFull(id)).Event(id, s.requestID))
		delete(s.breaks, id)
	}
	return false, reason
}

// start opens a context with the settings of its first message.
func (s *session) start(first api.Generation) (*core.Context, *api.Error) {
	if s.open.Full() {
		return nil, api.NewError(http.StatusTooManyRequests, fault.CodeTooManyContexts, "Too many contexts",
			fmt.Sprintf("At most %d contexts may be open on one connection; end or cancel one first.", core.MaxSocketContexts))
	}
	f, e := output(first.OutputFormat, "raw")
	if e != nil {
		return nil, e
	}
	delay := core.DefaultBufferDelay
	if first.MaxBufferDelayMS != nil {
		delay = time.Duration(*first.MaxBufferDelayMS) * time.Millisecond
		if delay < 0 || delay > maxBufferDelay {
			return nil, api.BadRequest(fault.CodeInvalidValue, "max_buffer_delay_ms must be 0 to %d.", maxBufferDelay.Milliseconds())
		}
	}
	first.Transcript = nil // the context's text comes through its messages
	j, _, e := s.d.toJob(s.account, first, f)
	if e != nil {
		return nil, e
	}
	c := &stream{s: s, id: first.Context, words: newWords(first.UseNormalizedTimestamps, s.d.c.Speech.Normalizer(j.Request)), flushID: 1, last: time.Now(), start: time.Now()}
	j.Request.OnSentence = func(d tts.SentenceDone) { c.sentence(d, first.AddTimestamps) }
	sj := core.StreamJob{Job: j, Delay: delay, Flushed: c.flushed}
	sj.Log = s.d.c.Log.With("request_id", s.requestID, "context_id", first.Context)
	if first.AddTimestamps {
		sj.Text = c.words.write
	}
	sc, werr := s.open.Start(s.ctx, first.Context, sj, f.Writer(&c.audio), c.done)
	return sc, api.FromFault(werr)
}

// stream is one context under way: chunk (and timestamps) events per
// sentence, flush_done after each flush's audio, done at its end. Its
// methods run on the context's goroutine.
type stream struct {
	s       *session
	id      string
	audio   core.Buffer
	words   *words
	flushID int // of the chunks sent until the next flush_done
	last    time.Time
	start   time.Time // when the context opened
}

func (c *stream) chunk(audio []byte, stepTime float64) {
	c.s.Send(map[string]any{"type": "chunk", "context_id": c.id, "data": base64.StdEncoding.EncodeToString(audio),
		"done": false, "status_code": 206, "flush_id": c.flushID, "step_time": stepTime})
}

// sentence sends the audio of the sentence d, and its word timestamps.
func (c *stream) sentence(d tts.SentenceDone, timestamps bool) {
	c.chunk(c.audio.Take(), float64(time.Since(c.last).Microseconds())/1000)
	c.last = time.Now()
	if timestamps {
		c.s.Send(map[string]any{"type": "timestamps", "context_id": c.id, "done": false, "status_code": 206,
			"flush_id": c.flushID, "word_timestamps": c.words.sentence(d)})
	}
}

// flushed sends flush_done once the audio before a flush is out.
func (c *stream) flushed(core.Op) error {
	c.s.Send(map[string]any{"type": "flush_done", "context_id": c.id, "done": false, "flush_done": true,
		"flush_id": c.flushID, "status_code": 206})
	c.flushID++
	return nil
}

// done ends the context: the rest of its audio and done, or its error;
// nothing once it was cancelled or the socket ended (core.ErrGone).
func (c *stream) done(res tts.Result, err error) {
	var werr *fault.Error
	if errors.As(err, &werr) {
		c.s.Send(api.FromFault(werr).Event(c.id, c.s.requestID))
	}
	if err != nil {
		return
	}
	if rest := c.audio.Take(); len(rest) > 0 {
		c.chunk(rest, 0)
	}
	c.s.rt.Spoke([]any{"context_id", c.id}, res, c.start)
	c.s.Send(map[string]any{"type": "done", "context_id": c.id, "done": true, "status_code": 200})
}
