package socket

import (
	"context"
	"net/http"

	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/wire"
)

// create queues a speech.create (or a message of an unknown type, which
// run answers in turn), or starts it at once when it is concurrent. A
// speech.create that failed its checks opens no input stream; its error
// is answered in turn, or at once when it asked to be concurrent.
func (s *session) create(m wire.WSIncoming) {
	input := m.Type == wire.WSCreate && m.SpeechErr == nil && m.Speech.InputStream
	st := &stream{id: m.ID, msg: m, input: input, concurrent: input && m.Concurrent}
	var werr *fault.Error
	switch {
	case m.Concurrent && m.SpeechErr != nil:
		werr = fault.ToError(m.SpeechErr, "")
	case st.concurrent:
		werr = s.start(st)
	default:
		werr = s.enqueue(st)
	}
	if werr != nil {
		s.sendError(m.ID, werr)
	}
}

// register enters the input stream st by its id, refusing one without
// an id or whose id names another open one.
func (s *session) register(st *stream) *fault.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case st.id == "":
		return fault.BadRequest(fault.CodeMissingParameter, "id", "An input stream needs an \"id\", which its input.append messages name.")
	case s.streams[st.id] != nil:
		return fault.BadRequest(fault.CodeInvalidValue, "id", "An input stream with id %q is already open on this connection.", st.id)
	}
	s.streams[st.id] = st
	return nil
}

// release lets go of a stream that has ended (or not started): its id
// may name another.
func (s *session) release(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams[st.id] == st {
		delete(s.streams, st.id)
	}
}

// enqueue queues st on the lane; an input stream is registered by its
// id, and its input waits in its core.Queue until it has its turn.
func (s *session) enqueue(st *stream) *fault.Error {
	if st.input {
		if werr := s.register(st); werr != nil {
			return werr
		}
		st.queue = core.NewQueue()
		if text := st.msg.Speech.Input; text != "" {
			st.queue.Put(core.Op{Text: text}, 0) // speech.create's, within the body limit
		}
	}
	st.ctx, st.cancel = context.WithCancel(s.Ctx) // speech.cancel's
	if !st.input {
		s.mu.Lock()
		s.waiting[st] = true // until its turn (run)
		s.mu.Unlock()
	}
	if s.lane.Put(func() { s.run(st) }) {
		return nil
	}
	st.cancel()
	s.mu.Lock()
	delete(s.waiting, st)
	s.mu.Unlock()
	if st.input {
		s.release(st)
	}
	return &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeInvalidRequest,
		Code: fault.CodeQueueFull, Message: "Too many speech requests are waiting on this connection."}
}

// cancel stops the stream named id (queued, in progress or concurrent),
// or with no id the queued request in progress.
func (s *session) cancel(id string) {
	s.mu.Lock()
	st := s.active
	var queued []*stream // whole requests waiting under that id
	if id != "" {
		st = s.streams[id]
		if s.active != nil && s.active.id == id {
			st = s.active
		}
		for w := range s.waiting {
			if w.id == id {
				queued = append(queued, w)
				delete(s.waiting, w)
			}
		}
	}
	s.mu.Unlock()
	if st != nil {
		s.stop(st)
	}
	for _, w := range queued {
		s.stop(w) // answered speech.cancelled in its turn
	}
}

// input hands an input.append, input.flush or input.done to its stream.
// A stream with too much input waiting is cancelled.
func (s *session) input(m wire.WSClientMessage) {
	s.mu.Lock()
	st := s.streams[m.ID]
	s.mu.Unlock()
	if st == nil {
		s.sendError(m.ID, fault.BadRequest(fault.CodeInvalidValue, "id",
			"No input stream with id %q is open on this connection: open one with speech.create and \"input_stream\": true.", m.ID))
		return
	}
	op := core.Op{Text: m.Text}
	switch m.Type {
	case wire.WSFlush:
		op = core.Op{Flush: true, Ref: m.FlushID}
	case wire.WSInputDone:
		op = core.Op{End: true}
	}
	if !s.put(st, op, len(m.Text)+len(m.FlushID)) {
		s.sendError(m.ID, fault.BadRequest(fault.CodeBufferFull, "text",
			"More than %d KiB of text or %d messages wait for synthesis in input stream %q: the stream is cancelled. Send text no faster than it is spoken.",
			core.MaxPending>>10, core.MaxOps, m.ID))
		s.stop(st)
	}
}
