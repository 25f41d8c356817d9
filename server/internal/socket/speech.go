package socket

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// stream is one speech.create: a request with its whole input, or an
// input stream whose text arrives in input.append messages, queued or
// concurrent.
type stream struct {
	id         string
	msg        wire.WSIncoming // the speech.create, decoded
	input      bool            // an input stream
	concurrent bool            // a concurrent input stream, its audio in speech.audio messages
	queue      *core.Queue     // a queued input stream's input
	sc         *core.Context   // a concurrent one's context, once started
	start      time.Time       // when its speech began
	chars      int             // the characters it has taken (its speaker's)

	// ctx is a queued request's, which cancel (speech.cancel) ends.
	ctx    context.Context
	cancel context.CancelFunc

	dropped atomic.Bool // cancelled: its audio still waiting to be sent is not sent
}

// put hands op, which came in size bytes, to st's input; false when too
// much waits for it.
func (s *session) put(st *stream, op core.Op, size int) bool {
	if st.concurrent {
		return s.Contexts.Send(st.sc, op, size)
	}
	return st.queue.Put(op, size)
}

// stop cancels st: the work in progress stops within a sentence and the
// audio it has queued is dropped.
func (s *session) stop(st *stream) {
	st.dropped.Store(true)
	if st.concurrent {
		s.Contexts.Cancel(st.id)
		return
	}
	st.cancel()
}

// start opens the concurrent input stream st as a context of the
// session's ContextSet, which speaks it beside the lane; its id is free
// again once its last message is out. It refuses a context beyond
// core.MaxSocketContexts.
func (s *session) start(st *stream) *fault.Error {
	if s.Contexts.Full() {
		return fault.TooManyContexts(core.MaxSocketContexts)
	}
	if werr := s.register(st); werr != nil {
		return werr
	}
	req, w := s.request(s.Ctx, st)
	var werr *fault.Error
	st.sc, werr = s.Contexts.Start(s.Ctx, st.id, s.streamJob(s.Ctx, st, req, w), w, func(res tts.Result, err error) {
		last := s.last(st, w, res, err)
		s.release(st)
		if last != nil {
			s.Out.Send(last)
		}
	})
	if werr != nil {
		s.release(st)
		return werr // credentials refused: the runtime closes the session after it
	}
	if text := st.msg.Speech.Input; text != "" {
		s.Contexts.Send(st.sc, core.Op{Text: text}, 0) // speech.create's, within the body limit
	}
	return nil
}

// run answers one queued request in turn, on the lane. Its id is free
// again once its last message is out.
func (s *session) run(st *stream) {
	s.mu.Lock()
	s.active = st
	delete(s.waiting, st)
	s.mu.Unlock()
	last := s.answer(st)
	s.mu.Lock()
	s.active = nil
	s.mu.Unlock()
	s.release(st)
	st.cancel()
	if last != nil {
		s.Out.Send(last)
	}
}

// answer runs a queued request once it has its turn: credentials
// checked again, then its speech. It returns its last message, as last
// does.
func (s *session) answer(st *stream) (last any) {
	m := st.msg
	switch {
	case m.Type != wire.WSCreate:
		return errorMessage(m.ID, fault.BadRequest(fault.CodeInvalidValue, "type",
			"Unknown message type %q: send speech.create, input.append, input.flush, input.done or speech.cancel.", m.Type))
	case st.dropped.Load(): // cancelled while queued
		return wire.WSCancelledMessage{Type: wire.WSCancelled, ID: st.id}
	case s.Guard.Refused() != nil: // the session is ending
		return nil
	}
	if werr := s.Guard.Check(s.Ctx); werr != nil {
		s.refuse(m.ID, werr)
		return nil
	}
	if m.SpeechErr != nil {
		return errorMessage(st.id, fault.ToError(m.SpeechErr, ""))
	}
	req, w := s.request(s.Ctx, st)
	ctx := st.ctx
	var res tts.Result
	var err error
	if st.input {
		var in *core.Input
		if in, err = s.c.Speech.Open(ctx, s.streamJob(ctx, st, req, w), w); err == nil {
			res, err = in.Run(st.queue)
		}
	} else {
		st.chars = utf8.RuneCountInString(req.Input)
		res, err = s.c.Speech.Speak(ctx, s.job(st, req), func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
			w.started.ContentType = codec.ContentType
			res, err := p.Stream(ctx, w)
			if err == nil {
				err = w.Flush()
			}
			return res, err
		})
	}
	return s.last(st, w, res, err)
}

// request is st's speech.create as the request to synthesize, and the
// writer of its audio, whose writes wait under ctx.
func (s *session) request(ctx context.Context, st *stream) (tts.Request, *writer) {
	st.start = time.Now()
	sp := st.msg.Speech
	req := sp.Request(s.Guard.Account(), s.c.Voices.Resolve(s.Guard.Account(), sp.Voice))
	// The content type comes from the core with the codec (StreamJob.Codec,
	// Speak's), before any audio.
	w := &writer{ctx: ctx, s: s, st: st, started: wire.WSStartedMessage{Type: wire.WSStarted, ID: st.id,
		Format: req.Format.Name, SampleRate: req.Format.Rate()}}
	if sp.Timestamps == wire.TimestampsWord {
		req.OnSentence = func(d tts.SentenceDone) {
			b, _ := json.Marshal(wire.NewTimestamps(st.id, d))
			s.Out.Queue(ctx, sockets.Frame{Type: websocket.MessageText, Data: b, Skip: &st.dropped})
		}
	}
	return req, w
}

// job is the core's job of st's request.
func (s *session) job(st *stream, req tts.Request) core.Job {
	return core.Job{Request: req, Voice: st.msg.Speech.Voice, Speed: &st.msg.Speech.Speed, Start: st.start, Lexicons: core.RefsOf(st.msg.Speech.Lexicons),
		Log: s.c.Log.With("request_id", s.Info.ID, "id", st.id)}
}

// streamJob is the core's job of the input stream st: its text so far
// comes as its first input, unfinished text waits max_buffer_delay_ms,
// the stream ends at the idle time of a stream or of the session,
// whichever is shorter, and each input.flush is answered with flush.done
// (sent under ctx); w's speech.started names the codec's content type.
func (s *session) streamJob(ctx context.Context, st *stream, req tts.Request, w *writer) core.StreamJob {
	delay := core.DefaultBufferDelay
	if ms := st.msg.Speech.MaxBufferDelayMS; ms != nil {
		delay = time.Duration(*ms) * time.Millisecond
	}
	req.Input = "" // put or sent as the first input
	return core.StreamJob{
		Job:     s.job(st, req),
		Delay:   delay,
		Idle:    min(core.DefaultStreamIdle, s.c.Sockets.Idle()),
		Recheck: s.Guard.Check,
		Codec:   func(c encode.Codec) { w.started.ContentType = c.ContentType },
		Text:    func(text string) { st.chars += utf8.RuneCountInString(text) },
		Flushed: func(op core.Op) error {
			id, _ := op.Ref.(string)
			b, err := json.Marshal(wire.WSFlushDoneMessage{Type: wire.WSFlushDone, ID: st.id, FlushID: id})
			if err != nil {
				return err
			}
			return s.Out.Queue(ctx, sockets.Frame{Type: websocket.MessageText, Data: b})
		},
	}
}

// last is st's last message once its speech ended with res and err:
// speech.done, speech.cancelled or its error; nil when the session is
// over, or when the error is the credentials refused, which ends it.
// err is the core's: core.ErrGone or a *fault.Error.
func (s *session) last(st *stream, w *writer, res tts.Result, err error) any {
	var werr *fault.Error
	switch {
	case errors.Is(err, core.ErrGone) && s.Ctx.Err() != nil:
		return nil
	case errors.Is(err, core.ErrGone):
		st.dropped.Store(true)
		return wire.WSCancelledMessage{Type: wire.WSCancelled, ID: st.id}
	case errors.As(err, &werr) && s.Guard.Refused() != nil:
		s.refuse(st.id, werr)
		return nil
	case werr != nil:
		return errorMessage(st.id, werr)
	}
	w.start() // no audio at all: still announce the format
	res, gateway := s.Spoke([]any{"id", st.id, "voice", st.msg.Speech.Voice}, res, st.start)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return wire.WSDoneMessage{
		Type: wire.WSDone, ID: st.id, Sentences: res.Sentences, AudioMS: ms(res.Audio),
		UpstreamMS: ms(res.SynthesisTime), EngineMS: ms(res.EngineTime), IgnoredTags: res.IgnoredTags, ClampedTags: res.ClampedTags,
		Usage: wire.UsageOf(st.chars, res.Audio), GatewayMS: ms(gateway),
	}
}

// writer hands what tts writes to the session's writer as one message
// per flush, that is per sentence, preceded by speech.started: a binary
// message, or a concurrent stream's speech.audio (its audio interleaves
// with others', so it is tagged).
type writer struct {
	ctx     context.Context
	s       *session
	st      *stream
	started wire.WSStartedMessage
	buf     []byte
	sent    bool // speech.started is queued
}

func (w *writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if err := w.start(); err != nil {
		return err
	}
	m := sockets.Frame{Type: websocket.MessageBinary, Data: w.buf, Skip: &w.st.dropped}
	if w.st.concurrent {
		b, err := json.Marshal(wire.WSAudioMessage{Type: wire.WSAudio, ID: w.st.id, Audio: w.buf})
		if err != nil {
			return err
		}
		m.Type, m.Data = websocket.MessageText, b
	}
	err := w.s.Out.Queue(w.ctx, m)
	w.buf = nil // the writer has it
	return err
}

// start queues speech.started, once.
func (w *writer) start() error {
	if w.sent {
		return nil
	}
	w.sent = true
	return w.s.Out.Send(w.started)
}
