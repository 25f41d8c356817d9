package wyoming

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Codes of the door's own error events; the core's errors carry wire's.
const (
	codeTooLarge     = "too_large"
	codeInvalidEvent = "invalid_event"
	codeTimeout      = "timeout"
	codeNoStream     = "no_stream"
	codeInputTooLong = "input_too_long"
)

// session is one connection.
type session struct {
	d       *Door
	c       net.Conn
	account string
	// ctx ends with the connection (a read or write that failed), or at
	// shutdown; its end closes c.
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	stream *stream     // streaming synthesis in progress
	ssml   *ssmlStream // or an SSML document arriving in chunks
	// active is when the connection opened or last had work (a
	// synthesis event): the idle time counts from it.
	active time.Time
}

// serveConn serves c's events, one at a time, until the connection ends.
func (d *Door) serveConn(c net.Conn, account string) {
	ctx, cancel := context.WithCancel(d.Core.Closing())
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	s := &session{d: d, c: c, account: account, ctx: ctx, cancel: cancel,
		log: d.Log.With("wyoming", c.RemoteAddr().String()), active: time.Now()}
	defer func() {
		cancel() // nobody is listening: a stream left open says nothing more
		s.endStreams()
	}()
	r := bufio.NewReader(c)
	for {
		e, err := s.next(r)
		if err != nil {
			return
		}
		if err := s.handle(e); err != nil {
			return // the client is gone
		}
		if works(e.Type) {
			s.active = time.Now()
		}
	}
}

// works reports whether an event of type typ is work, which keeps a
// connection from being idle: a synthesis event. A describe (or an event
// of another service) is answered and is not: a client that only
// describes is closed after the idle time, as one that sends nothing.
// Home Assistant opens a connection per describe and per synthesis, so
// it never waits that long on one.
func works(typ string) bool { return strings.HasPrefix(typ, "synthesize") }

// next reads the next event: it must begin within the server's socket
// idle time of the connection's last work (s.active), and end within the
// event timeout of its beginning. Its payload is skipped (no event the
// door reads carries one). An event too large, malformed or too slow is
// answered with an error event; the connection then ends.
func (s *session) next(r *bufio.Reader) (Event, error) {
	s.c.SetReadDeadline(afterFrom(s.active, s.d.Idle))
	if _, err := r.Peek(1); err != nil {
		return Event{}, err
	}
	s.c.SetReadDeadline(after(s.d.eventTimeout))
	e, err := ReadSkippingPayload(r)
	switch {
	case errors.Is(err, ErrTooLarge):
		s.fail(codeTooLarge, err.Error())
	case errors.Is(err, ErrMalformed):
		s.fail(codeInvalidEvent, err.Error())
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.fail(codeTimeout, fmt.Sprintf("wyoming: an event must arrive whole within %v of its first byte", s.d.eventTimeout))
	}
	return e, err
}

// after is the deadline d from now; none (the zero time) when d is not
// positive.
func after(d time.Duration) time.Time { return afterFrom(time.Now(), d) }

// afterFrom is the deadline d from t; none when d is not positive.
func afterFrom(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return t.Add(d)
}

// send writes one event within the server's write timeout. A write that
// fails ends the connection (its context first, so that a synthesis
// writing to it ends as the client's going, not as a failure).
func (s *session) send(typ string, data any, payload []byte) error {
	s.c.SetWriteDeadline(after(s.d.WriteTimeout))
	err := Write(s.c, typ, data, payload)
	if err != nil {
		s.cancel()
	}
	return err
}

// fail sends an error event; the connection stays usable.
func (s *session) fail(code, text string) error {
	return s.send("error", map[string]string{"text": text, "code": code}, nil)
}

// answer tells the client err when it is a *fault.Error (the core's, or
// the door's about an event) as an error event, and the connection goes
// on. Any other error (core.ErrGone: the connection ended) is returned.
func (s *session) answer(err error) error {
	var werr *fault.Error
	if errors.As(err, &werr) {
		return s.fail(werr.Code, werr.Message)
	}
	return err
}

func (s *session) handle(e Event) error {
	switch e.Type {
	case "describe":
		return s.send("info", s.info(), nil)
	case "synthesize":
		if s.stream != nil || s.ssml != nil {
			return nil // the copy of the whole text a streaming client also sends
		}
		v, format, werr := s.voiceAndFormat(e)
		if werr != nil {
			return s.answer(werr)
		}
		return s.synthesize(v, e.String("text"), format)
	case "synthesize-start":
		v, format, werr := s.voiceAndFormat(e)
		if werr != nil {
			return s.answer(werr)
		}
		s.endStreams()
		if format == tts.InputSSML {
			s.ssml = &ssmlStream{voice: v}
			return nil
		}
		return s.start(v, format)
	case "synthesize-chunk":
		switch {
		case s.ssml != nil:
			return s.ssml.write(s, e.String("text"))
		case s.stream == nil:
			return s.fail(codeNoStream, "synthesize-chunk without synthesize-start")
		}
		return s.chunk(e.String("text"))
	case "synthesize-stop":
		return s.stop()
	}
	return nil // events of other services are not ours
}

// stop ends a streaming synthesis: the rest is spoken, then
// synthesize-stopped.
func (s *session) stop() error {
	switch {
	case s.ssml != nil:
		doc := s.ssml
		s.ssml = nil
		if err := s.synthesize(doc.voice, doc.text.String(), tts.InputSSML); err != nil {
			return err
		}
	case s.stream != nil:
		if err := s.finish(); err != nil {
			return err
		}
	}
	return s.send("synthesize-stopped", nil, nil)
}

// endStreams drops a streaming synthesis in progress.
func (s *session) endStreams() {
	if s.stream != nil {
		s.stream.drop()
		s.stream = nil
	}
	s.ssml = nil
}

// ssmlStream collects an SSML document sent in chunks: SSML is spoken
// whole, when the stream stops.
type ssmlStream struct {
	voice voices.Voice
	text  strings.Builder
}

// maxSSMLStream bounds a streamed SSML document; the synthesizer's input
// limit, in characters, applies when it is spoken.
const maxSSMLStream = 1 << 20

func (st *ssmlStream) write(s *session, text string) error {
	if st.text.Len()+len(text) > maxSSMLStream {
		s.ssml = nil
		return s.fail(codeInputTooLong, fmt.Sprintf("a streamed SSML document may have at most %d bytes", maxSSMLStream))
	}
	st.text.WriteString(text)
	return nil
}
