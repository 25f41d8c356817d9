package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Error types, the "type" field of an error object.
const (
	// TypeInvalidRequest is a problem with the request: its body, its
	// parameters, its credentials or its path. Status 4xx.
	TypeInvalidRequest = "invalid_request_error"
	// TypeProxy is a problem with the voice or the engine behind it: an
	// unknown voice (404), a failed synthesis (502) or, on a gateway, no
	// worker to speak (503). The interface specification documents it for
	// the unknown voice.
	TypeProxy = "proxy_error"
	// TypeServer is a bug in the server (500).
	TypeServer = "server_error"
	// TypePermission is a request the caller may not make (403).
	TypePermission = "permission_error"
	// TypeRateLimit is a request over the account's limits (429), as
	// OpenAI's API names it.
	TypeRateLimit = "rate_limit_error"
)

// Error codes, the "code" field of an error object.
const (
	CodeInvalidJSON        = "invalid_json"
	CodeMissingParameter   = "missing_required_parameter"
	CodeInvalidType        = "invalid_type"
	CodeInvalidValue       = "invalid_value"
	CodeInvalidTags        = "invalid_tags"
	CodeStringTooShort     = "string_below_min_length"
	CodeStringTooLong      = "string_above_max_length"
	CodeAudioTooLong       = "audio_too_long"
	CodeDecimalTooSmall    = "decimal_below_min_value"
	CodeDecimalTooLarge    = "decimal_above_max_value"
	CodeUnsupportedFormat  = "unsupported_format"
	CodeMissingAPIKey      = "missing_api_key"
	CodeInvalidAPIKey      = "invalid_api_key"
	CodeVoiceNotFound      = "voice_not_found"
	CodeModelNotFound      = "model_not_found"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeBodyTooLarge       = "request_too_large"
	CodeUnsupportedMedia   = "unsupported_media_type"
	CodeEngineError        = "engine_error"
	CodeEngineCrashed      = "engine_crashed"
	CodeInternalError      = "internal_error"
	CodeSignupDisabled     = "signup_disabled"
	CodeAccountExists      = "account_exists"
	CodeKeyNotFound        = "key_not_found"
	CodeServiceUnavailable = "service_unavailable"
	CodeQueueFull          = "queue_full"
	CodeRequestTimeout     = "request_timeout"
	CodeUpgradeRequired    = "upgrade_required"
	CodeInsufficientScope  = "insufficient_scope"
	CodeUnauthenticated    = "unauthenticated"
	CodeKeyLimit           = "key_limit_reached"
	CodeVoiceLimit         = "voice_limit_reached"
	CodeOriginNotAllowed   = "origin_not_allowed"
	CodeBufferFull         = "input_buffer_full"
	CodeIdleTimeout        = "idle_timeout"
	CodeInvalidCredentials = "invalid_credentials"
	CodeTooManyAttempts    = "too_many_attempts"
	CodeBadCSRFToken       = "csrf_token_invalid"
	CodeSessionExpired     = "session_expired"
	CodeRateLimit          = "rate_limit_exceeded"
	CodeServerBusy         = "server_busy"
)

// Error is an API error: an HTTP status and the OpenAI-shaped error
// object. It is also a Go error, so functions return it as one and
// callers find it with errors.As.
type Error struct {
	// Status is the HTTP status code; it is not part of the JSON.
	Status  int
	Message string
	Type    string
	// Param names the offending request field, empty for none (null).
	Param string
	// Code is a machine-readable code, empty for none (null).
	Code string
	// RetryAfter, when not 0, is sent as the Retry-After header (whole
	// seconds, rounded up); it is not part of the JSON.
	RetryAfter time.Duration
	// Err is the typed error it was made of where a door words it in its
	// own shape (a *tts.SpeedError: a vendor door names its speed field);
	// nil otherwise. It is not part of the JSON.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("wire: %d %s: %s", e.Status, e.Type, e.Message)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// errorObject is the JSON inside {"error": ...}; empty param and code are
// null, as OpenAI sends them.
type errorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type errorBody struct {
	Error errorObject `json:"error"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// maxMessage is the longest message sent, in characters: constructors
// clip the client's strings they quote (see echo), and this bounds what
// they could not foresee, such as a long tag named by a tags error.
const maxMessage = 1000

// Object returns the inner {"message","type","param","code"} object, for
// embedding in other messages.
func (e *Error) Object() any {
	return errorObject{Message: Clip(e.Message, maxMessage), Type: e.Type, Param: nullable(Clip(e.Param, MaxEcho)), Code: nullable(e.Code)}
}

// MaxEcho is the most characters of a client's string that a message
// quotes.
const MaxEcho = 64

// Echo returns a client's string s quoted for a message: control
// characters shown as '?', and cut to MaxEcho characters with its full
// length noted, so a 500 KB voice id is not sent back whole.
func Echo(s string) string {
	return strconv.Quote(Clip(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s), MaxEcho))
}

// Clip cuts s to at most n characters, noting how long it was.
func Clip(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", string([]rune(s)[:n]), utf8.RuneCountInString(s))
}

// MarshalJSON writes {"error":{"message","type","param","code"}}.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(errorBody{e.Object().(errorObject)})
}

// UnmarshalJSON reads what MarshalJSON writes; Status is left as is.
func (e *Error) UnmarshalJSON(b []byte) error {
	var body errorBody
	if err := json.Unmarshal(b, &body); err != nil {
		return err
	}
	e.Message, e.Type = body.Error.Message, body.Error.Type
	e.Param, e.Code = "", ""
	if body.Error.Param != nil {
		e.Param = *body.Error.Param
	}
	if body.Error.Code != nil {
		e.Code = *body.Error.Code
	}
	return nil
}

// BadRequest returns a 400 invalid_request_error about param.
func BadRequest(code, param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Code: code, Param: param,
		Message: fmt.Sprintf(format, args...)}
}

// UnknownVoice is the interface specification's documented error: 404, type proxy_error.
func UnknownVoice(voice string, suggestions ...string) *Error {
	hint := ""
	if len(suggestions) > 0 {
		quoted := make([]string, len(suggestions))
		for i, id := range suggestions {
			quoted[i] = Echo(id)
		}
		hint = " Did you mean " + strings.Join(quoted, ", ") + "?"
	}
	return &Error{Status: http.StatusNotFound, Type: TypeProxy, Code: CodeVoiceNotFound, Param: "voice",
		Message: fmt.Sprintf("The voice %s is unknown.%s GET /v1/models lists the voices this key may use.", Echo(voice), hint)}
}

// UnknownModel is the 404 of GET /v1/models/{id}.
func UnknownModel(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeModelNotFound, Param: "model",
		Message: fmt.Sprintf("The model %s does not exist or you do not have access to it.", Echo(id))}
}

// MissingKey is the 401 for a request without a bearer key.
func MissingKey() *Error {
	return &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: CodeMissingAPIKey,
		Message: "You didn't provide an API key. Send it in the Authorization header using Bearer auth " +
			"(Authorization: Bearer sk_...). Keys are created in the playground or with `server keys create`."}
}

// InvalidKey is the 401 for a key that does not exist or was revoked.
// display is the key's printable prefix, never the whole key.
func InvalidKey(display string, revoked bool) *Error {
	msg := fmt.Sprintf("Incorrect API key provided: %s…", display)
	if revoked {
		msg = fmt.Sprintf("The API key %s… has been revoked.", display)
	}
	return &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: CodeInvalidAPIKey, Message: msg}
}

// NotFound is the 404 for a path the API does not have.
func NotFound(method, path string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeNotFound,
		Message: fmt.Sprintf("Unknown request URL: %s %s.", method, Echo(path))}
}

// MethodNotAllowed is the 405; the caller sets the Allow header.
func MethodNotAllowed(method, path string, allow []string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Type: TypeInvalidRequest, Code: CodeMethodNotAllowed,
		Message: fmt.Sprintf("Method %s is not allowed on %s; allowed: %v.", Echo(method), Echo(path), allow)}
}

// BodyTooLarge is the 413 for a body over limit bytes.
func BodyTooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Code: CodeBodyTooLarge,
		Message: fmt.Sprintf("The request body is larger than the limit of %d bytes.", limit)}
}

// RequestTimeout is the 408 for a request body not received within
// after.
func RequestTimeout(after time.Duration) *Error {
	return &Error{Status: http.StatusRequestTimeout, Type: TypeInvalidRequest, Code: CodeRequestTimeout,
		Message: fmt.Sprintf("The request body was not received within %v.", after)}
}

// UnsupportedMediaType is the 415 for a body that is not JSON.
func UnsupportedMediaType(ct string) *Error { return UnsupportedMediaTypeOf(ct, "application/json") }

// UnsupportedMediaTypeOf is the 415 of a body of type ct where one of
// type want is taken.
func UnsupportedMediaTypeOf(ct, want string) *Error {
	return &Error{Status: http.StatusUnsupportedMediaType, Type: TypeInvalidRequest, Code: CodeUnsupportedMedia,
		Message: fmt.Sprintf("Content-Type %s is not supported; send %s.", Echo(ct), want)}
}

// Internal is the 500 for a panic or another server bug. The message
// carries the request id, not the cause.
func Internal(requestID string) *Error {
	return &Error{Status: http.StatusInternalServerError, Type: TypeServer, Code: CodeInternalError,
		Message: fmt.Sprintf("The server had an error while processing your request (request id %s).", requestID)}
}

// BadHostAccount is the 500 for an account name the host application's
// sign-in (server's Options.Authenticate) returned that the store cannot
// hold: the host's bug, which the message names.
func BadHostAccount(account string, err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Type: TypeServer, Code: CodeInternalError,
		Message: fmt.Sprintf("The application's sign-in (Options.Authenticate) named the account %s, which the store cannot hold: %s", Echo(account), err)}
}

// Unavailable is the 503 sent while the server shuts down.
func Unavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Type: TypeServer, Code: CodeServiceUnavailable,
		Message: "The server is shutting down; retry shortly."}
}

// NoWorker is a gateway's 503 for a voice none of its workers can speak
// now (none is healthy, or all that have the voice failed); retry names
// when they are checked again.
func NoWorker(voice string, retry time.Duration) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Type: TypeProxy, Code: CodeServiceUnavailable, RetryAfter: max(retry, time.Second),
		Message: fmt.Sprintf("No healthy worker can speak the voice %s now; retry shortly.", Echo(voice))}
}

// WorkerFailed is a gateway's 502 for a request its worker took and
// then failed (the connection broke, the answer stalled or was not one):
// it is not sent to another worker, as it may be what failed this one.
func WorkerFailed() *Error {
	return &Error{Status: http.StatusBadGateway, Type: TypeProxy, Code: CodeEngineError,
		Message: "The worker speaking this request failed before it finished; the request was not sent to another worker, as it may be what made the worker fail."}
}

// KeyCheckTimeout is the 503 of a request whose API key the store did
// not verify within the server's deadline: it is not served.
func KeyCheckTimeout(after time.Duration) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Type: TypeServer, Code: CodeServiceUnavailable,
		Message: fmt.Sprintf("The server could not check the API key within %v; retry shortly.", after)}
}

// ToError converts an error from tts.Synthesizer (or from this package)
// into the API error to send: the one place where the typed errors of
// the packages that decide (tts, engine, voices, tags) become OpenAI
// errors. A *Error passes through; a request tts refuses is a 400 naming
// its field, an unknown voice the 404 proxy_error; anything else is an
// engine failure, 502 proxy_error. voice is the voice as the caller named
// it.
func ToError(err error, voice string) *Error { return ToErrorOf(err, voice, "input") }

// ToErrorOf is ToError for a door whose client names its text field
// otherwise (ElevenLabs' "text", Cartesia's "transcript"): the errors
// about the text name that field, in param and message.
func ToErrorOf(err error, voice, input string) *Error {
	var (
		we          *Error
		strict      *tags.StrictError
		unsupported *engine.UnsupportedVoiceError
		unknown     *tts.UnknownVoiceError
		tooLong     *tts.InputTooLongError
		audio       *tts.AudioLimitError
		speed       *tts.SpeedError
		format      *tts.FormatError
		setting     *voices.SettingError
		badSSML     *ssml.SyntaxError
		phonemes    *tts.PhonemeError
	)
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &badSSML):
		return BadRequest(CodeInvalidValue, input, input+" is not well-formed SSML: line %d, column %d: %s",
			badSSML.Line, badSSML.Column, Clip(badSSML.Msg, 200))
	case errors.As(err, &strict): // before the unknown voice a voice tag may name
		return BadRequest(CodeInvalidTags, input, input+" has audio tags that cannot be applied as written "+
			"(send strict_tags false to drop them instead): %v", strict)
	case errors.As(err, &unsupported):
		return BadRequest(CodeInvalidValue, "voice", "The voice %s cannot be spoken by this server: %s", Echo(voice), Clip(unsupported.Reason, 300))
	case errors.As(err, &unknown):
		return UnknownVoice(voice, unknown.Suggestions...)
	case errors.Is(err, engine.ErrUnknownVoice):
		return UnknownVoice(voice)
	case errors.Is(err, tts.ErrEmptyInput):
		return BadRequest(CodeStringTooShort, input, "%s must contain text to speak.", input)
	case errors.As(err, &tooLong) && tooLong.Stream:
		return BadRequest(CodeStringTooLong, input, "The input stream was sent %d characters; one stream may carry at most %d characters, spoken or not. Open a new one to go on.", tooLong.Length, tooLong.Max)
	case errors.As(err, &tooLong) && tooLong.Waiting:
		return BadRequest(CodeStringTooLong, input, "%d characters of %s wait for a sentence end; the limit is %d characters.", tooLong.Length, input, tooLong.Max)
	case errors.As(err, &tooLong) && tooLong.Lexicons:
		return BadRequest(CodeStringTooLong, input, "%s is %d characters long with the lexicons' aliases read in; the limit is %d characters.", input, tooLong.Length, tooLong.Max)
	case errors.As(err, &tooLong):
		return BadRequest(CodeStringTooLong, input, "%s is %d characters long; the limit is %d characters.", input, tooLong.Length, tooLong.Max)
	case errors.Is(err, tts.ErrTooManyLexicons):
		return BadRequest(CodeInvalidValue, "lexicons", "A request may name at most %d lexicons.", tts.MaxLexicons)
	case errors.As(err, &phonemes):
		// Spaces as a phoneme tag writes them ("_").
		return BadRequest(CodeInvalidValue, input, "The phonemes %s of a phoneme tag (said for %s) make no audio in the voice %s: "+
			"it has none of them, or they are only marks. Write them in IPA the voice knows, or leave the tag out.",
			Echo(strings.ReplaceAll(phonemes.Phonemes, " ", "_")), Echo(phonemes.Text), Echo(phonemes.Voice))
	case errors.As(err, &audio):
		return BadRequest(CodeAudioTooLong, input, "%s makes too much audio: %s", input, audio.Reason())
	case errors.As(err, &speed):
		e := outOfRange("speed", speed.Speed, speed.Min, speed.Max)
		e.Err = speed
		return e
	case errors.As(err, &setting):
		return outOfRange(setting.Setting, setting.Value, setting.Min, setting.Max)
	case errors.As(err, &format) && !slices.Contains(format.Supported, format.Format.Name):
		return BadRequest(CodeInvalidValue, "response_format",
			"Invalid response_format %s: supported values are %s.", Echo(format.Format.Name), strings.Join(format.Supported, ", "))
	case errors.As(err, &format):
		return BadRequest(CodeUnsupportedFormat, "response_format", "response_format %s is not supported: %v", Echo(format.Format.Name), format.Err)
	case errors.Is(err, engine.ErrCrashed):
		// The engine contained it; the same input would crash any worker.
		return &Error{Status: http.StatusInternalServerError, Type: TypeServer, Code: CodeEngineCrashed,
			Message: "The speech engine crashed on this input. It was restarted and other requests are unaffected; " +
				"sending the same input again will fail again."}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Status: http.StatusServiceUnavailable, Type: TypeProxy, Code: CodeEngineError,
			Message: "Synthesis was cancelled."}
	default:
		return &Error{Status: http.StatusBadGateway, Type: TypeProxy, Code: CodeEngineError,
			Message: "The speech engine failed to synthesize this request."}
	}
}

// outOfRange is the 400 for a number outside [lo, hi] (NaN is below).
func outOfRange(name string, x, lo, hi float64) *Error {
	if x > hi {
		return BadRequest(CodeDecimalTooLarge, name, "%s %g is above the maximum of %g.", name, x, hi)
	}
	return BadRequest(CodeDecimalTooSmall, name, "%s %g is below the minimum of %g.", name, x, lo)
}

// UpgradeRequired is the WebSocket endpoint asked for without a WebSocket
// handshake.
func UpgradeRequired() *Error {
	return &Error{Status: http.StatusUpgradeRequired, Type: TypeInvalidRequest, Code: CodeUpgradeRequired,
		Message: "This endpoint speaks WebSocket: send Connection: Upgrade and Upgrade: websocket."}
}

// BadWebSocketVersion is a handshake of a WebSocket version other than 13.
func BadWebSocketVersion(version string) *Error {
	return BadRequest(CodeInvalidValue, "Sec-WebSocket-Version", "WebSocket version %s is not supported; use 13.", Echo(version))
}

// MissingWebSocketKey is a handshake without its Sec-WebSocket-Key.
func MissingWebSocketKey() *Error {
	return BadRequest(CodeMissingParameter, "Sec-WebSocket-Key", "The WebSocket handshake needs a Sec-WebSocket-Key header.")
}

// BadWebSocketKey is a handshake whose Sec-WebSocket-Key is not one
// base64-encoded 16-byte value (RFC 6455, 4.1). The key is not echoed.
func BadWebSocketKey() *Error {
	return BadRequest(CodeInvalidValue, "Sec-WebSocket-Key", "The WebSocket handshake needs one Sec-WebSocket-Key header holding 16 bytes in base64.")
}

// OriginNotAllowed is a WebSocket handshake from a page of another origin
// that the server does not allow.
func OriginNotAllowed(origin string) *Error {
	return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: CodeOriginNotAllowed,
		Message: fmt.Sprintf("Pages of origin %s may not open this WebSocket.", Echo(origin))}
}

// InsufficientScope is a request a key of scope have may not make.
func InsufficientScope(have, need store.Scope) *Error {
	return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: CodeInsufficientScope,
		Message: fmt.Sprintf("This API key has the %s scope; this request needs a key with the %s scope.", have, need)}
}

// KeyLimit is a key creation past the account's limit.
func KeyLimit(max int) *Error {
	return BadRequest(CodeKeyLimit, "", "This account holds %d API keys, the most it may; revoke one first.", max)
}

// Unauthenticated is the 401 of a request that an application's own
// authentication (server.Options.Authenticate) refused, with its reason.
func Unauthenticated(reason string) *Error {
	return &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: CodeUnauthenticated, Message: Clip(reason, 300)}
}

// IdleTimeout ends an input stream that received no input for after.
func IdleTimeout(after time.Duration) *Error {
	return BadRequest(CodeIdleTimeout, "",
		"The input stream received no input.append, input.flush or input.done for %v: it is closed, and the audio of its text so far was sent. Open a new one to go on.", after)
}

// JSONFault says what is wrong with a body json.Unmarshal refused, in the
// body's own field names rather than Go's type names, for a door's
// message.
func JSONFault(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return fmt.Sprintf("%s cannot be a JSON %s.", typ.Field, typ.Value)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("malformed JSON at byte %d.", syn.Offset)
	}
	return "it is not a JSON object."
}
