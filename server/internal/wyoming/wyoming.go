package wyoming

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"unicode/utf8"
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

// ErrMalformed is the error for an event that is not one: a header line
// that is not a JSON object with a type, or data that is not a JSON
// object. Its text names what is wrong in the protocol's terms, never in
// Go's, so that a server may send it to the peer.
var ErrMalformed = errors.New("wyoming: malformed event")

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

// Read reads the next event, its payload included.
func Read(r *bufio.Reader) (Event, error) {
	return read(r, true)
}

// ReadSkippingPayload reads the next event as Read does, but reads its
// payload past without keeping it (Event.Payload is nil): for a peer that
// uses no payload of what it receives (a TTS server), an announced
// payload then costs no memory, only the reading. The payload limit
// still applies.
func ReadSkippingPayload(r *bufio.Reader) (Event, error) {
	return read(r, false)
}

func read(r *bufio.Reader, keepPayload bool) (Event, error) {
	line, err := readLine(r)
	if err != nil {
		return Event{}, err
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return Event{}, malformed("the header line", err)
	}
	if h.Type == "" {
		return Event{}, fmt.Errorf("%w: a header without a type", ErrMalformed)
	}
	e := Event{Type: h.Type, Data: h.Data}
	if e.Data == nil {
		e.Data = map[string]json.RawMessage{}
	}
	if n := deref(h.DataLength); n > 0 {
		if n > MaxData {
			return Event{}, fmt.Errorf("%w: %d bytes of data", ErrTooLarge, n)
		}
		b, err := readN(r, n)
		if err != nil {
			return Event{}, fmt.Errorf("wyoming: data: %w", err)
		}
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b, &extra); err != nil {
			return Event{}, malformed("the data", err)
		}
		maps.Copy(e.Data, extra)
	}
	if n := deref(h.PayloadLength); n > 0 {
		if n > MaxPayload {
			return Event{}, fmt.Errorf("%w: %d bytes of payload", ErrTooLarge, n)
		}
		if keepPayload {
			e.Payload, err = readN(r, n)
		} else {
			_, err = r.Discard(n)
		}
		if err != nil {
			return Event{}, fmt.Errorf("wyoming: payload: %w", unexpected(err))
		}
	}
	return e, nil
}

// readN reads n bytes, its buffer growing as they arrive: a length
// announced and not sent costs nothing.
func readN(r io.Reader, n int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err == nil && len(b) < n {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// unexpected turns the end of the stream inside an event into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// malformed is ErrMalformed for what (a part of an event) whose JSON did
// not decode: a syntax error says where, a value of the wrong kind which
// field it was.
func malformed(what string, err error) error {
	var typ *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("%w: in %s, field %s may not be %s", ErrMalformed, what, Clip(typ.Field), article(typ.Value))
	case errors.As(err, &syntax):
		return fmt.Errorf("%w: %s is not JSON (at byte %d)", ErrMalformed, what, syntax.Offset)
	}
	return fmt.Errorf("%w: %s is not a JSON object", ErrMalformed, what)
}

// article puts "a" or "an" before a JSON kind ("string", "object",
// "array", "number", "bool"; json writes a number's value after it).
func article(kind string) string {
	kind, _, _ = strings.Cut(kind, " ")
	if strings.HasPrefix(kind, "a") || strings.HasPrefix(kind, "o") {
		return "an " + kind
	}
	return "a " + kind
}

// MaxEcho is the most bytes of a peer's own string that an error repeats.
const MaxEcho = 64

// Clip returns s cut to MaxEcho bytes (on a character boundary, with "…"
// after), for an error that repeats what a peer sent.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
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
