// Package wyoming reads and writes the events of the Wyoming protocol
// (Home Assistant's speech services): on a TCP stream, each event is a
// JSON header line ({"type", "data", "data_length", "payload_length",
// and a "version" clients add}), then data_length bytes of JSON merged
// over the header's data, then payload_length bytes of binary payload.
package wyoming

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version written in headers.
const Version = "1.9.0"

// Limits of what is read, so that a peer cannot make the reader hold
// much: a header line, its extra data, a payload.
const (
	MaxHeader  = 64 << 10
	MaxData    = 1 << 20
	MaxPayload = 4 << 20
)

// ErrTooLarge is the error for an event over one of the limits.
var ErrTooLarge = errors.New("wyoming: event too large")

// Event is one message. Data holds its fields, each as JSON.
type Event struct {
	Type    string
	Data    map[string]json.RawMessage
	Payload []byte
}

type header struct {
	Type          string                     `json:"type"`
	Data          map[string]json.RawMessage `json:"data,omitempty"`
	DataLength    *int                       `json:"data_length,omitempty"`
	PayloadLength *int                       `json:"payload_length,omitempty"`
	Version       string                     `json:"version,omitempty"`
}

// Read reads the next event.
func Read(r *bufio.Reader) (Event, error) {
	line, err := readLine(r)
	if err != nil {
		return Event{}, err
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return Event{}, fmt.Errorf("wyoming: header: %w", err)
	}
	if h.Type == "" {
		return Event{}, errors.New("wyoming: header without a type")
	}
	e := Event{Type: h.Type, Data: h.Data}
	if e.Data == nil {
		e.Data = map[string]json.RawMessage{}
	}
	if n := deref(h.DataLength); n > 0 {
		if n > MaxData {
			return Event{}, fmt.Errorf("%w: %d bytes of data", ErrTooLarge, n)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return Event{}, fmt.Errorf("wyoming: data: %w", err)
		}
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b, &extra); err != nil {
			return Event{}, fmt.Errorf("wyoming: data: %w", err)
		}
		for k, v := range extra {
			e.Data[k] = v
		}
	}
	if n := deref(h.PayloadLength); n > 0 {
		if n > MaxPayload {
			return Event{}, fmt.Errorf("%w: %d bytes of payload", ErrTooLarge, n)
		}
		e.Payload = make([]byte, n)
		if _, err := io.ReadFull(r, e.Payload); err != nil {
			return Event{}, fmt.Errorf("wyoming: payload: %w", err)
		}
	}
	return e, nil
}

func deref(p *int) int {
	if p == nil || *p < 0 {
		return 0
	}
	return *p
}

// readLine reads a header line of at most MaxHeader bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxHeader {
			return nil, fmt.Errorf("%w: a header line over %d bytes", ErrTooLarge, MaxHeader)
		}
		switch {
		case err == nil:
			return bytes.TrimSpace(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// Write writes an event: its data after the header line, then its
// payload.
func Write(w io.Writer, typ string, data any, payload []byte) error {
	h := header{Type: typ, Version: Version}
	var body []byte
	if data != nil {
		var err error
		if body, err = json.Marshal(data); err != nil {
			return err
		}
		n := len(body)
		h.DataLength = &n
	}
	if len(payload) > 0 {
		n := len(payload)
		h.PayloadLength = &n
	}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(line)+1+len(body)+len(payload))
	buf = append(append(append(append(buf, line...), '\n'), body...), payload...)
	_, err = w.Write(buf)
	return err
}

// String returns field name of e as a string, "" when it is absent, null
// or not a string.
func (e Event) String(name string) string {
	var s string
	json.Unmarshal(e.Data[name], &s)
	return s
}

// Object decodes field name of e into v; absent and null leave v as is.
func (e Event) Object(name string, v any) error {
	raw, ok := e.Data[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}
