package openai

import (
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/wire"
)

// maxEvent is the most audio an SSE event holds.
const maxEvent = 256 << 10

// sse turns each flushed block of encoded audio into a speech.audio.delta
// event, and any block of maxEvent bytes or more, so that it holds no
// more than that. Its Lazy writes other events as they are.
type sse struct {
	*respond.Lazy
	buf   []byte
	event []byte // the last event sent, its buffer reused
}

// newSSE returns an SSE writer through l.
func newSSE(l *respond.Lazy) *sse { return &sse{Lazy: l} }

// Write holds p for the next event.
func (s *sse) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	if len(s.buf) >= maxEvent {
		if err := s.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush sends the audio held as one event.
func (s *sse) Flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	s.event = wire.AppendSSEDelta(s.event[:0], s.buf)
	_, err := s.Lazy.Write(s.event)
	s.buf = s.buf[:0]
	if err != nil {
		return err
	}
	return s.Lazy.Flush()
}
