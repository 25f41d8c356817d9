package wire

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
		return WSIncoming{}, BadRequest(CodeInvalidJSON, "", "Messages must be JSON text objects with a \"type\".")
	}
	if m.Type == WSCreate {
		m.Speech, m.SpeechErr = speechOf(raw, "pcm")
	}
	return m, nil
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

// MaxClientID is the longest type, id or flush_id, in bytes, a client
// message may carry: the server echoes them in its messages.
const MaxClientID = 128

// CheckEchoed refuses a type, id or flush_id longer than MaxClientID. The
// error does not echo them.
func (m WSClientMessage) CheckEchoed() *Error {
	for _, f := range []struct{ param, v string }{{"type", m.Type}, {"id", m.ID}, {"flush_id", m.FlushID}} {
		if len(f.v) > MaxClientID {
			return BadRequest(CodeInvalidValue, f.param, "%q may be at most %d bytes long; this one has %d.", f.param, MaxClientID, len(f.v))
		}
	}
	return nil
}
