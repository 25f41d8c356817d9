package fault

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// CodeUnknownParameter is the code of a request field the endpoint does
// not know, where a typo would otherwise be ignored silently.
const CodeUnknownParameter = "unknown_parameter"

// PrintableField shortens and cleans a client's field name for a message.
func PrintableField(f string) string {
	f = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, f)
	if utf8.RuneCountInString(f) > 40 {
		f = string([]rune(f)[:40]) + "…"
	}
	return f
}

// CloningFromAudio is the 400 for a voice-creation request carrying audio.
func CloningFromAudio(param string) *Error {
	return BadRequest(CodeInvalidValue, param, "Cloning from audio is not supported in a JSON body: upload the recording as "+
		"multipart/form-data (fields name and audio, optionally model, temperature, steps and seed). A JSON body makes a derived voice, "+
		"a base_voice with stored speed, pitch, range, volume and whisper settings.")
}

// VoiceNotFound is the 404 of GET and DELETE /v1/voices/{id}, for a clone
// that does not exist or belongs to another account.
func VoiceNotFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeVoiceNotFound, Param: "id",
		Message: fmt.Sprintf("You have no voice clone %q. GET /v1/voices lists yours.", PrintableField(id))}
}

// UnknownBaseVoice is the 400 for a base_voice the caller may not use.
func UnknownBaseVoice(id string) *Error {
	return BadRequest(CodeInvalidValue, "base_voice", "The base_voice %q is unknown. GET /v1/models lists the voices this key may use.",
		PrintableField(id))
}

// VoiceIDTaken is the 409 for an id the caller's own clone has.
func VoiceIDTaken(id string) *Error {
	return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: CodeVoiceExists, Param: "id",
		Message: fmt.Sprintf("You have a voice clone %q already; choose another id or leave id out.", id)}
}

// VoiceIDReserved is the 400 for a clone id that names a global voice or
// an alias (listed by /v1/models), which no clone may take.
func VoiceIDReserved(id string) *Error {
	return BadRequest(CodeInvalidValue, "id", "The voice id %q names a built-in voice; choose another or leave id out.", id)
}

// VoiceLimit is a clone creation past the account's limit.
func VoiceLimit(max int) *Error {
	return BadRequest(CodeVoiceLimit, "", "This account holds %d voice clones, the most it may; delete one first.", max)
}

// CodeVoiceExists is the code of VoiceIDTaken.
const CodeVoiceExists = "voice_exists"

// VoiceLoadLimit is a speech request refused because it would load a
// voice (one not in the server's memory) while its account has caused
// perMinute loads in the last minute: retry after retry.
func VoiceLoadLimit(perMinute int, retry time.Duration) *Error {
	secs := max(1, int(retry.Seconds()+0.999))
	return &Error{Status: http.StatusTooManyRequests, Type: TypeRateLimit, Code: CodeRateLimit, RetryAfter: time.Duration(secs) * time.Second,
		Message: fmt.Sprintf("Voice load limit reached: this account may cause at most %d voice loads a minute on this server "+
			"(a voice not in memory is loaded for the request that uses it); retry in %d s, or keep to fewer voices at a time.", perMinute, secs)}
}
