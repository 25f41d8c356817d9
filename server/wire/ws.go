package wire

import (
	"encoding/json"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
)

// WebSocket message types (see docs/server.md, "WebSocket").
const (
	WSAuth         = "auth"             // client: {"type":"auth","api_key":"sk_..."}
	WSReady        = "ready"            // server: authenticated
	WSCreate       = "speech.create"    // client: a speech request
	WSCancel       = "speech.cancel"    // client: stop a request (by id) or the current one
	WSAppend       = "input.append"     // client: more text for an input stream
	WSFlush        = "input.flush"      // client: speak an input stream's text now
	WSInputDone    = "input.done"       // client: an input stream's text is complete
	WSFlushDone    = "flush.done"       // server: the audio of the text before a flush is sent
	WSTimestamps   = EventTimestamps    // server: a sentence's word timings
	WSStarted      = "speech.started"   // server: audio follows as binary messages
	WSAudio        = "speech.audio"     // server: a sentence's audio of a concurrent context, in base64
	WSDone         = "speech.done"      // server: the request finished
	WSCancelled    = "speech.cancelled" // server: the request was cancelled
	WSErrorMessage = "error"            // server: a request or the session failed
)

// WSClientMessage is the envelope of every client message. A
// speech.create message carries the fields of a POST /v1/audio/speech
// body beside these.
type WSClientMessage struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	APIKey string `json:"api_key,omitempty"`
	// Text is the text of an input.append.
	Text string `json:"text,omitempty"`
	// FlushID names an input.flush, for its flush.done.
	FlushID string `json:"flush_id,omitempty"`
}

// WSIncoming is a client message as ParseWSMessage decodes it.
type WSIncoming struct {
	WSClientMessage
	// Speech is a speech.create's request, with pcm as its default
	// format; SpeechErr is why it is not one (ParseSpeech's error), to be
	// answered in the request's turn.
	Speech    Speech
	SpeechErr error
	// Concurrent is a speech.create's "concurrent": true, a voxkit
	// extension: the input stream runs beside the connection's other
	// contexts instead of waiting in its queue. Without "input_stream":
	// true it is a SpeechErr (invalid_value on concurrent), which is
	// answered at once as a concurrent context's errors are.
	Concurrent bool
}

// ParseWSMessage decodes one client message, once: its envelope and, for
// a speech.create, the request it carries. A message that is not a JSON
// object whose envelope fields are strings is an invalid_json error.
func ParseWSMessage(data []byte) (WSIncoming, error) {
	raw, err := decodeObject(data, `{"type":"speech.create",...}`)
	var m WSIncoming
	for _, f := range []struct {
		name string
		dst  *string
	}{{"type", &m.Type}, {"id", &m.ID}, {"api_key", &m.APIKey}, {"text", &m.Text}, {"flush_id", &m.FlushID}} {
		if err == nil {
			*f.dst, _, err = stringField(raw, f.name)
		}
	}
	if err != nil {
		return WSIncoming{}, fault.BadRequest(fault.CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\".")
	}
	if m.Type == WSCreate {
		m.Speech, m.SpeechErr = speechOf(raw, "pcm")
		m.Concurrent, err = concurrentField(raw, m.Speech.InputStream || m.SpeechErr != nil)
		if m.SpeechErr == nil {
			m.SpeechErr = err
		}
	}
	return m, nil
}

// concurrentField reads a speech.create's "concurrent", which only an
// input stream (stream) may set; a true beside an error is still true.
func concurrentField(raw map[string]json.RawMessage, stream bool) (bool, error) {
	v, ok := raw["concurrent"]
	if !ok || isNull(v) {
		return false, nil
	}
	var c bool
	if err := json.Unmarshal(v, &c); err != nil {
		return false, fault.BadRequest(fault.CodeInvalidType, "concurrent", "concurrent must be a boolean, got %s.", kind(v))
	}
	if c && !stream {
		return true, fault.BadRequest(fault.CodeInvalidValue, "concurrent",
			"Only an input stream may be concurrent: add \"input_stream\": true, or leave concurrent out to queue the request.")
	}
	return c, nil
}

// WSAudioMessage carries a sentence's audio of a concurrent context,
// whose audio may interleave with other contexts' and so cannot come as
// an untagged binary message. Audio is base64 in JSON.
type WSAudioMessage struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Audio []byte `json:"audio"`
}

// WSFlushDoneMessage follows the audio of the text before an input.flush.
type WSFlushDoneMessage struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	FlushID string `json:"flush_id,omitempty"`
}

// WSReadyMessage answers a successful authentication.
type WSReadyMessage struct {
	Type      string `json:"type"`
	Account   string `json:"account"`
	RequestID string `json:"request_id"`
}

// WSStartedMessage precedes the binary audio messages of a request.
type WSStartedMessage struct {
	Type        string `json:"type"`
	ID          string `json:"id,omitempty"`
	Format      string `json:"response_format"`
	ContentType string `json:"content_type"`
	SampleRate  int    `json:"sample_rate"`
}

// WSDoneMessage ends a request.
type WSDoneMessage struct {
	Type        string   `json:"type"`
	ID          string   `json:"id,omitempty"`
	Sentences   int      `json:"sentences"`
	AudioMS     float64  `json:"audio_ms"`
	UpstreamMS  float64  `json:"upstream_ms"`
	EngineMS    float64  `json:"engine_ms"`
	GatewayMS   float64  `json:"gateway_ms"`
	IgnoredTags []string `json:"ignored_tags,omitempty"`
	ClampedTags []string `json:"clamped_tags,omitempty"`
	Usage       Usage    `json:"usage"`
}

// WSCancelledMessage reports a cancelled request.
type WSCancelledMessage struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// WSErrorMsg carries an error object; ID names the failed request, if any.
type WSErrorMsg struct {
	Type  string `json:"type"`
	ID    string `json:"id,omitempty"`
	Error any    `json:"error"` // Error.Object()
}

// CheckEchoed refuses a type, id or flush_id longer than MaxClientID. The
// error does not echo them.
func (m WSClientMessage) CheckEchoed() *Error {
	for _, f := range []struct{ param, v string }{{"type", m.Type}, {"id", m.ID}, {"flush_id", m.FlushID}} {
		if len(f.v) > MaxClientID {
			return fault.BadRequest(fault.CodeInvalidValue, f.param, "%q may be at most %d bytes long; this one has %d.", f.param, MaxClientID, len(f.v))
		}
	}
	return nil
}

// MaxClientID is the longest type, id or flush_id, in bytes, a client
// may send (vocab.MaxClientID).
const MaxClientID = vocab.MaxClientID
