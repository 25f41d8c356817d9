package wyoming

import (
	"cmp"
	"maps"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// job is a synthesis of text in v as Wyoming clients get it, and the
// audio events it goes out as: 16-bit mono PCM at the voice's own rate
// (espeak-ng 22050 Hz, a Piper voice its config's rate, Kokoro 24000 Hz),
// or at encode.DefaultSampleRate when the voice's engine does not say (a
// gateway's voices). Errors about the text name Wyoming's field, text.
// v is the voice as session.voice looked it up, once: the request
// carries it (tts.Request.Resolved).
func (s *session) job(v voices.Voice, text string, format tts.InputFormat) (core.Job, *audioOut) {
	rate := cmp.Or(v.SampleRate, encode.DefaultSampleRate)
	out := &audioOut{s: s, format: map[string]any{"rate": rate, "width": 2, "channels": 1}}
	req := tts.Request{Voice: v.ID, Resolved: v, Input: text, InputFormat: format, Account: s.account,
		Format: encode.Format{Name: "pcm", SampleRate: rate, Streaming: true}}
	return core.Job{Request: req, Voice: v.ID, Field: "text", Out: out, Log: s.log}, out
}

// synthesize speaks a whole text, sentence by sentence (core.Speak).
func (s *session) synthesize(v voices.Voice, text string, format tts.InputFormat) error {
	job, out := s.job(v, text, format)
	_, err := s.d.Core.Speak(s.ctx, job, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		return p.Stream(s.ctx, out)
	})
	if err != nil {
		return s.answer(err)
	}
	return out.stop()
}

// stream is a streaming synthesis: text in chunks, spoken as sentences
// complete.
type stream struct {
	in  *core.Input
	out *audioOut
}

// start opens a streaming synthesis (core.Open). Its text waits for the
// end of its sentence, however long that takes (no buffer delay): the
// stop speaks the rest.
func (s *session) start(v voices.Voice, format tts.InputFormat) error {
	job, out := s.job(v, "", format)
	in, err := s.d.Core.Open(s.ctx, core.StreamJob{Job: job, Delay: -1}, out)
	if err != nil {
		return s.answer(err)
	}
	s.stream = &stream{in: in, out: out}
	return nil
}

// chunk feeds text to the stream; complete sentences are spoken now. A
// failure ends the stream, and the connection goes on.
func (s *session) chunk(text string) error {
	if _, err := s.stream.in.Take(core.Op{Text: text}); err != nil {
		in := s.stream.in
		s.stream = nil
		_, err = in.Finish(err)
		return s.answer(err)
	}
	return nil
}

// finish ends the stream: the rest is spoken, then the audio ends.
func (s *session) finish() error {
	st := s.stream
	s.stream = nil
	if _, err := st.in.Finish(nil); err != nil {
		return s.answer(err)
	}
	return st.out.stop()
}

// drop ends a stream left open: a new one starts, or the connection
// ended.
func (st *stream) drop() { st.in.Finish(core.ErrGone) }

// audioOut sends audio as events: audio-start before the first chunk,
// an audio-chunk at each flush (each sentence), audio-stop at the end.
// It is the core.Out of its job: started once audio-start went out.
type audioOut struct {
	s       *session
	format  map[string]any // rate, width and channels
	buf     []byte
	started bool
	sending time.Duration // writing the events
}

var _ core.Out = (*audioOut)(nil)

func (a *audioOut) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	if len(a.buf) >= 1<<20 { // a long sentence: do not hold it all
		return len(p), a.Flush()
	}
	return len(p), nil
}

// Flush sends the audio held as an audio-chunk.
func (a *audioOut) Flush() error {
	if len(a.buf) == 0 {
		return nil
	}
	if err := a.begin(); err != nil {
		return err
	}
	chunk := maps.Clone(a.format)
	chunk["timestamp"] = nil
	err := a.send("audio-chunk", chunk, a.buf)
	a.buf = a.buf[:0]
	return err
}

// Started reports whether audio-start has gone out.
func (a *audioOut) Started() bool { return a.started }

// Sending is the time writing the events took so far.
func (a *audioOut) Sending() time.Duration { return a.sending }

func (a *audioOut) begin() error {
	if a.started {
		return nil
	}
	err := a.send("audio-start", a.format, nil)
	a.started = err == nil
	return err
}

func (a *audioOut) stop() error {
	if err := a.Flush(); err != nil {
		return err
	}
	if err := a.begin(); err != nil {
		return err
	}
	return a.send("audio-stop", map[string]any{"timestamp": nil}, nil)
}

func (a *audioOut) send(typ string, data any, payload []byte) error {
	start := time.Now()
	defer func() { a.sending += time.Since(start) }()
	return a.s.send(typ, data, payload)
}
