package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/internal/fault"
)

// Stream formats of a speech request.
const (
	StreamAudio = "audio"
	StreamSSE   = "sse"
)

// DefaultResponseFormat is the response_format of a request that names
// none, as the interface specification documents.
const DefaultResponseFormat = "wav"

// Speech is a parsed POST /v1/audio/speech body.
type Speech struct {
	// Voice is the voice id, from "voice": "id" or "voice": {"id": "id"}.
	Voice string
	// Input is the text to speak.
	Input string
	// Format is response_format, DefaultResponseFormat when absent.
	Format string
	// Speed is 1 when absent.
	Speed float64
	// Model is accepted for SDK compatibility and ignored.
	Model string
	// Instructions is a free-text style prompt: the words of a small
	// vocabulary style the speech (tags.ReadInstructions), the others are
	// reported as ignored tags "instructions:WORD".
	Instructions string
	// StreamFormat is StreamAudio (the default) or StreamSSE.
	StreamFormat string
	// StrictTags, a voxkit extension ("strict_tags": true), rejects input
	// whose audio tags cannot all be applied instead of dropping them.
	StrictTags bool
	// Timestamps, a voxkit extension, is TimestampsWord to have the
	// words' timings sent after each sentence's audio (SSE and WebSocket
	// only), or empty.
	Timestamps string
	// InputStream, a voxkit extension of the WebSocket, opens a context
	// whose text arrives in input.append messages; Input may then be
	// empty.
	InputStream bool
	// InputFormat, a voxkit extension ("input_format"), is InputText,
	// InputSSML, or empty: input whose first non-space characters are
	// "<speak" is SSML.
	InputFormat string
	// Normalize, a voxkit extension ("normalize", default true), reads
	// written forms ($9.50, dates, units) as words; false hands the text
	// to the engine as written.
	Normalize bool
	// MaxBufferDelayMS is max_buffer_delay_ms of an input stream: how
	// long text that does not end a sentence waits for more before it is
	// spoken; nil when absent.
	MaxBufferDelayMS *int
	// Lexicons, a voxkit extension ("lexicons": [id, …]), are the ids of
	// the account's pronunciation lexicons to apply, in order; nil when
	// absent (the account's default lexicons apply), empty for none.
	Lexicons []string
	// VoiceSample, a voxkit extension for gateways ("voice_sample", base64),
	// is the stored form of the voice cloned from a recording that Voice
	// names (SampleVoice); nil when absent. Only a key of the gateway
	// scope may send one (see SamplePrefix).
	VoiceSample []byte
	// Seed, a voxkit extension ("seed", a whole number other than 0), is
	// where a voice that samples (PocketTTS) draws its noise from for
	// this request in place of its own seed; 0 when absent.
	Seed int64
}

// Input formats of a speech request.
const (
	InputText = "text"
	InputSSML = "ssml"
)

// TimestampsWord asks for word timestamps.
const TimestampsWord = "word"

// MaxBufferDelayLimit is the largest max_buffer_delay_ms accepted.
const MaxBufferDelayLimit = 10000

// MarshalJSON writes s as the body of a POST /v1/audio/speech, the form
// ParseSpeech reads (a client of the API, such as the gateway, sends it);
// empty optional fields are left out.
func (s Speech) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Model            string  `json:"model,omitempty"`
		Voice            string  `json:"voice"`
		Input            string  `json:"input"`
		Format           string  `json:"response_format,omitempty"`
		Speed            float64 `json:"speed,omitempty"`
		Instructions     string  `json:"instructions,omitempty"`
		StreamFormat     string  `json:"stream_format,omitempty"`
		StrictTags       bool    `json:"strict_tags,omitempty"`
		Timestamps       string  `json:"timestamps,omitempty"`
		InputStream      bool    `json:"input_stream,omitempty"`
		InputFormat      string  `json:"input_format,omitempty"`
		Normalize        *bool   `json:"normalize,omitempty"`
		MaxBufferDelayMS *int    `json:"max_buffer_delay_ms,omitempty"`
		VoiceSample      []byte  `json:"voice_sample,omitempty"`
		Seed             int64   `json:"seed,omitempty"`
	}{s.Model, s.Voice, s.Input, s.Format, s.Speed, s.Instructions, s.StreamFormat, s.StrictTags, s.Timestamps, s.InputStream, s.InputFormat,
		verbatim(s.Normalize), s.MaxBufferDelayMS, s.VoiceSample, s.Seed})
}

// verbatim is the "normalize" field of a request that reads text as
// written: false; absent (the default, true) otherwise.
func verbatim(normalize bool) *bool {
	if normalize {
		return nil
	}
	return &normalize
}

// ParseSpeech decodes a speech request body and checks its shape: the
// fields' JSON types, the values of its enumerations (stream_format,
// timestamps) and that input is there. Whether it holds text, ranges and
// limits (speed, input length, formats, voices) are tts's to check. defaultFormat is the
// response_format of a request naming none; empty means
// DefaultResponseFormat. Every failure is a *Error with status 400 whose
// Param names the field at fault (empty for a body that is not a JSON
// object at all). Unknown fields are ignored, so newer SDKs keep working;
// null counts as absent.
func ParseSpeech(body []byte, defaultFormat string) (Speech, error) {
	raw, err := decodeObject(body, `{"voice":"...","input":"..."}`)
	if err != nil {
		return Speech{}, err
	}
	return speechOf(raw, defaultFormat)
}

// speechOf checks a decoded speech request, as ParseSpeech does.
func speechOf(raw map[string]json.RawMessage, defaultFormat string) (Speech, error) {
	var err error
	s := Speech{Format: cmp.Or(defaultFormat, DefaultResponseFormat), Speed: 1, StreamFormat: StreamAudio, Normalize: true}
	if s.Voice, err = voiceField(raw["voice"]); err != nil {
		return Speech{}, err
	}
	if v, ok := raw["input_stream"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &s.InputStream); err != nil {
			return Speech{}, fault.BadRequest(fault.CodeInvalidType, "input_stream", "input_stream must be a boolean, got %s.", kind(v))
		}
	}
	if v, ok := raw["max_buffer_delay_ms"]; ok && !isNull(v) {
		d, err := numberValue(v, "max_buffer_delay_ms")
		if err != nil {
			return Speech{}, err
		}
		if d < 0 || d > MaxBufferDelayLimit || d != math.Trunc(d) {
			return Speech{}, fault.BadRequest(fault.CodeInvalidValue, "max_buffer_delay_ms",
				"max_buffer_delay_ms must be a whole number from 0 to %d, got %g.", MaxBufferDelayLimit, d)
		}
		ms := int(d)
		s.MaxBufferDelayMS = &ms
	}
	if t, ok, err := stringField(raw, "timestamps"); err != nil {
		return Speech{}, err
	} else if ok && t != "none" {
		if t != TimestampsWord {
			return Speech{}, fault.BadRequest(fault.CodeInvalidValue, "timestamps", "Invalid timestamps %s: supported values are word, none.", fault.Echo(t))
		}
		s.Timestamps = t
	}
	in, ok, err := stringField(raw, "input")
	if err != nil {
		return Speech{}, err
	}
	if !ok && !s.InputStream {
		return Speech{}, fault.BadRequest(fault.CodeMissingParameter, "input", "Missing required parameter: 'input'.")
	}
	s.Input = in
	if f, ok, err := stringField(raw, "response_format"); err != nil {
		return Speech{}, err
	} else if ok {
		s.Format = f
	}
	if f, ok, err := stringField(raw, "stream_format"); err != nil {
		return Speech{}, err
	} else if ok {
		if f != StreamAudio && f != StreamSSE {
			return Speech{}, fault.BadRequest(fault.CodeInvalidValue, "stream_format",
				"Invalid stream_format %s: supported values are audio, sse.", fault.Echo(f))
		}
		s.StreamFormat = f
	}
	if v, ok := raw["speed"]; ok && !isNull(v) {
		sp, err := numberValue(v, "speed")
		if err != nil {
			return Speech{}, err
		}
		s.Speed = sp
	}
	if v, ok := raw["strict_tags"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &s.StrictTags); err != nil {
			return Speech{}, fault.BadRequest(fault.CodeInvalidType, "strict_tags", "strict_tags must be a boolean, got %s.", kind(v))
		}
	}
	if f, ok, err := stringField(raw, "input_format"); err != nil {
		return Speech{}, err
	} else if ok {
		if f != InputText && f != InputSSML {
			return Speech{}, fault.BadRequest(fault.CodeInvalidValue, "input_format", "Invalid input_format %s: supported values are text, ssml.", fault.Echo(f))
		}
		s.InputFormat = f
	}
	if v, ok := raw["normalize"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &s.Normalize); err != nil {
			return Speech{}, fault.BadRequest(fault.CodeInvalidType, "normalize", "normalize must be a boolean, got %s.", kind(v))
		}
	}
	if s.Lexicons, err = lexiconsField(raw); err != nil {
		return Speech{}, err
	}
	if v, ok := raw["seed"]; ok && !isNull(v) {
		if kind(v) != "a number" {
			return Speech{}, fault.BadRequest(fault.CodeInvalidType, "seed", "seed must be a whole number, got %s.", kind(v))
		}
		var n int64
		if err := json.Unmarshal(v, &n); err != nil || n == 0 {
			return Speech{}, fault.BadRequest(fault.CodeInvalidValue, "seed", "seed must be a whole number other than 0, from -2^63 to 2^63-1, not %s.", fault.Echo(fault.Clip(string(v), 40)))
		}
		s.Seed = n
	}
	if s.Model, _, err = stringField(raw, "model"); err != nil {
		return Speech{}, err
	}
	if s.Instructions, _, err = stringField(raw, "instructions"); err != nil {
		return Speech{}, err
	}
	if s.VoiceSample, err = sampleField(raw, s.Voice); err != nil {
		return Speech{}, err
	}
	return s, nil
}

// decodeObject decodes a request body that must be one JSON object;
// example shows one in the message of the 400. A UTF-8 byte order mark
// before it, which some editors and PowerShell write, is passed over
// (RFC 8259 lets a parser ignore one).
func decodeObject(body []byte, example string) (map[string]json.RawMessage, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) {
		return nil, fault.BadRequest(fault.CodeInvalidJSON, "", "The request body is not valid UTF-8.")
	}
	var raw map[string]json.RawMessage
	if err := decodeStrict(body, &raw); err != nil {
		return nil, fault.BadRequest(fault.CodeInvalidJSON, "", "We could not parse the JSON body of your request: %s. "+
			"Send a JSON object such as %s.", describeJSONError(err), example)
	}
	if raw == nil {
		return nil, fault.BadRequest(fault.CodeInvalidJSON, "", "The request body must be a JSON object, not null.")
	}
	return raw, nil
}

// decodeStrict unmarshals one JSON value and rejects anything but white
// space after it (json.Decoder alone would let "}" or "]" through).
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) != 0 {
		return fmt.Errorf("unexpected data after the JSON value at byte %d", dec.InputOffset())
	}
	return nil
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("expected an object, got %s", typ.Value)
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends in the middle of the JSON"
	}
	return err.Error()
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// kind names the JSON type of v for messages.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// numberValue reads v, the value of the field name, as a float64. A
// number too large for one (1e309) is out of range, not of the wrong
// type.
func numberValue(v json.RawMessage, name string) (float64, error) {
	var x float64
	err := json.Unmarshal(v, &x)
	switch {
	case err == nil:
		return x, nil
	case kind(v) != "a number":
		return 0, fault.BadRequest(fault.CodeInvalidType, name, "%s must be a number, got %s.", name, kind(v))
	case bytes.HasPrefix(bytes.TrimSpace(v), []byte("-")):
		return 0, fault.BadRequest(fault.CodeDecimalTooSmall, name, "%s %s is out of range.", name, fault.Clip(string(bytes.TrimSpace(v)), fault.MaxEcho))
	default:
		return 0, fault.BadRequest(fault.CodeDecimalTooLarge, name, "%s %s is out of range.", name, fault.Clip(string(bytes.TrimSpace(v)), fault.MaxEcho))
	}
}

// stringField reads raw[name] as a string; ok is false when it is absent
// or null.
func stringField(raw map[string]json.RawMessage, name string) (s string, ok bool, err error) {
	v, present := raw[name]
	if !present || isNull(v) {
		return "", false, nil
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, fault.BadRequest(fault.CodeInvalidType, name, "%s must be a string, got %s.", name, kind(v))
	}
	return s, true, nil
}

// voiceField reads "voice": a string, or an object {"id": string}.
func voiceField(v json.RawMessage) (string, error) {
	if v == nil || isNull(v) {
		return "", fault.BadRequest(fault.CodeMissingParameter, "voice", "Missing required parameter: 'voice'.")
	}
	var id string
	switch kind(v) {
	case "a string":
		if err := json.Unmarshal(v, &id); err != nil {
			return "", fault.BadRequest(fault.CodeInvalidType, "voice", "voice must be a string or {\"id\": string}.")
		}
	case "an object":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			return "", fault.BadRequest(fault.CodeInvalidType, "voice", "voice must be a string or {\"id\": string}.")
		}
		idv, ok := obj["id"]
		if !ok || isNull(idv) {
			return "", fault.BadRequest(fault.CodeMissingParameter, "voice.id", "Missing required parameter: 'voice.id'.")
		}
		if err := json.Unmarshal(idv, &id); err != nil {
			return "", fault.BadRequest(fault.CodeInvalidType, "voice.id", "voice.id must be a string, got %s.", kind(idv))
		}
	default:
		return "", fault.BadRequest(fault.CodeInvalidType, "voice", "voice must be a string or {\"id\": string}, got %s.", kind(v))
	}
	if id == "" {
		return "", fault.BadRequest(fault.CodeStringTooShort, "voice", "voice must not be empty.")
	}
	return id, nil
}
