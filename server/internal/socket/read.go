package socket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/wire"
)

// read queues speech.create messages, routes input messages to their
// streams and acts on speech.cancel at once, until the connection ends;
// then it closes queue. Its speech runs under work.
func (s *session) read(ctx, work context.Context, queue chan<- *stream) {
	defer close(queue)
	var buf bytes.Buffer // each message is read into it: one buffer, not one per message
	for {
		typ, data, err := s.readMessage(ctx, &buf)
		if err != nil {
			s.closed(err, len(queue) > 0)
			return
		}
		if len(data) > core.MaxMessage && typ == websocket.MessageText && !isCreate(data) {
			s.sendError(ctx, "", wire.BadRequest(wire.CodeInvalidValue, "",
				"A message other than speech.create may be at most %d KiB long; this one has %d bytes.", core.MaxMessage>>10, len(data)))
			continue
		}
		if typ != websocket.MessageText {
			s.sendError(ctx, "", wire.BadRequest(wire.CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\"."))
			continue
		}
		m, err := wire.ParseWSMessage(data)
		if err != nil {
			s.sendError(ctx, "", wire.ToError(err, ""))
			continue
		}
		if werr := m.CheckEchoed(); werr != nil {
			s.sendError(ctx, "", werr)
			continue
		}
		switch m.Type {
		case wire.WSCancel:
			s.cancel(m.ID)
		case wire.WSAppend, wire.WSFlush, wire.WSInputDone:
			s.input(ctx, m.WSClientMessage)
		default: // speech.create, or a type run reports
			s.create(work, m, queue)
		}
	}
}

// closed ends the session whose connection ended with err. Work cut
// short is an aborted session; an idle one that closes has ended
// normally, and a connection closed here after a failed write was
// reported by the write.
func (s *session) closed(err error, queued bool) {
	s.mu.Lock()
	busy := s.active != nil || s.running > 0 || queued
	s.mu.Unlock()
	cause := fmt.Errorf("client closed the connection: %w", err)
	if busy && !errors.Is(err, net.ErrClosed) {
		s.fail(cause)
	} else {
		s.end(cause)
	}
}

// isCreate reports whether a JSON message is a speech.create, decoding
// only its type (the other fields are skipped, not copied): only a
// speech.create may be longer than core.MaxMessage.
func isCreate(data []byte) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &head) == nil && head.Type == wire.WSCreate
}

// readMessage reads the next message into buf, reused from message to
// message, so a client sending large messages costs one buffer. data is
// buf's: copy what outlives the next read.
func (s *session) readMessage(ctx context.Context, buf *bytes.Buffer) (websocket.MessageType, []byte, error) {
	typ, r, err := s.conn.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return 0, nil, err
	}
	return typ, buf.Bytes(), nil
}

// create queues a speech.create (or a message of an unknown type, which
// run answers in turn), or starts it at once when it is concurrent. A
// speech.create that failed its checks opens no input stream; its error
// is answered in turn, or at once when it asked to be concurrent.
func (s *session) create(work context.Context, m wire.WSIncoming, queue chan<- *stream) {
	input := m.Type == wire.WSCreate && m.SpeechErr == nil && m.Speech.InputStream
	st := &stream{id: m.ID, msg: m, input: input, concurrent: input && m.Concurrent}
	var werr *wire.Error
	switch {
	case m.Concurrent && m.SpeechErr != nil:
		werr = wire.ToError(m.SpeechErr, "")
	case st.concurrent:
		werr = s.start(work, st)
	default:
		werr = s.enqueue(st, queue)
	}
	if werr != nil {
		s.sendError(s.ctx, m.ID, werr)
	}
}

// register enters the input stream st by its id, refusing one without
// an id or whose id names another open one; a concurrent one counts
// among those running.
func (s *session) register(st *stream) *wire.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case st.id == "":
		return wire.BadRequest(wire.CodeMissingParameter, "id", "An input stream needs an \"id\", which its input.append messages name.")
	case s.streams[st.id] != nil:
		return wire.BadRequest(wire.CodeInvalidValue, "id", "An input stream with id %q is already open on this connection.", st.id)
	}
	s.streams[st.id] = st
	if st.concurrent {
		s.running++
	}
	return nil
}

// release lets go of a stream that has ended (or not started): its id
// may name another.
func (s *session) release(st *stream) {
	s.mu.Lock()
	if s.streams[st.id] == st {
		delete(s.streams, st.id)
	}
	if st.concurrent {
		s.running--
	}
	s.mu.Unlock()
	if st.concurrent {
		select {
		case s.ended <- struct{}{}:
		default: // a signal waits already
		}
	}
}

// enqueue queues st; an input stream is registered by its id, and its
// input waits in its core.Queue until it has its turn.
func (s *session) enqueue(st *stream, queue chan<- *stream) *wire.Error {
	if st.input {
		if werr := s.register(st); werr != nil {
			return werr
		}
		st.queue = core.NewQueue()
		if text := st.msg.Speech.Input; text != "" {
			st.queue.Put(core.Op{Text: text}, 0) // speech.create's, within the body limit
		}
	}
	select {
	case queue <- st:
		return nil
	default:
		if st.input {
			s.release(st)
		}
		return &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeInvalidRequest,
			Code: wire.CodeQueueFull, Message: "Too many speech requests are waiting on this connection."}
	}
}

// cancel stops the stream named id (queued, in progress or concurrent),
// or with no id the queued request in progress.
func (s *session) cancel(id string) {
	s.mu.Lock()
	st := s.active
	if id != "" {
		st = s.streams[id]
		if s.active != nil && s.active.id == id {
			st = s.active
		}
	}
	s.mu.Unlock()
	if st != nil {
		s.stop(st)
	}
}

// input hands an input.append, input.flush or input.done to its stream.
// A stream with too much input waiting is cancelled.
func (s *session) input(ctx context.Context, m wire.WSClientMessage) {
	s.mu.Lock()
	st := s.streams[m.ID]
	s.mu.Unlock()
	if st == nil {
		s.sendError(ctx, m.ID, wire.BadRequest(wire.CodeInvalidValue, "id",
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
		s.sendError(ctx, m.ID, wire.BadRequest(wire.CodeBufferFull, "text",
			"More than %d KiB of text or %d messages wait for synthesis in input stream %q: the stream is cancelled. Send text no faster than it is spoken.",
			core.MaxPending>>10, core.MaxOps, m.ID))
		s.stop(st)
	}
}
