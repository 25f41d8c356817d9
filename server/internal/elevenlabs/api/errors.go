package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// Error is an error as ElevenLabs shapes it:
// {"detail": {"status": "...", "message": "..."}}.
type Error struct {
	HTTPStatus int           `json:"-"`
	RetryAfter time.Duration `json:"-"` // as fault.Error's
	Status     string        `json:"status"`
	Message    string        `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// NewError is the error of status with ElevenLabs' status word code.
func NewError(status int, code, message string) *Error {
	return &Error{HTTPStatus: status, Status: code, Message: message}
}

// FromFault converts voxkit's error to ElevenLabs' shape; maxContexts
// is the most contexts a socket may hold open.
func FromFault(werr *fault.Error, maxContexts int) *Error {
	status, message := werr.Code, werr.Message
	var speed *tts.SpeedError
	switch {
	case errors.As(werr, &speed): // the core's check of voice_settings.speed
		return NewError(http.StatusBadRequest, "invalid_voice_settings", "voice_settings.speed: "+speed.Error())
	case werr.Code == fault.CodeStringTooShort && werr.Param == "text": // tts.ErrEmptyInput
		return NewError(http.StatusUnprocessableEntity, "invalid_request", "text is required and may not be empty.")
	}
	switch werr.Code {
	case fault.CodeMissingAPIKey:
		status, message = "needs_authorization", MissingKey
	case fault.CodeVoiceNotFound:
		status = "voice_not_found"
	case fault.CodeLexiconNotFound:
		status = "pronunciation_dictionary_not_found"
	case fault.CodeTooManyContexts:
		status, message = "max_active_conversations", fmt.Sprintf("At most %d contexts may be open on one socket; close one first.", maxContexts)
	}
	return &Error{HTTPStatus: werr.Status, RetryAfter: werr.RetryAfter, Status: status, Message: message}
}

// MissingKey is the message of ElevenLabs' 401 for a request without a
// key: it names the header ElevenLabs' clients send it in.
const MissingKey = "You didn't provide an API key. Send a voxkit API key in the xi-api-key header " +
	"(xi-api-key: sk_...), as ElevenLabs' clients do; Authorization: Bearer is accepted too. " +
	"Keys are created in the playground or with `server keys create`."

// VoiceSettings is voice_settings: speed maps onto voxkit's speed; the
// others have no voxkit control.
type VoiceSettings struct {
	Speed           *float64 `json:"speed"`
	Stability       *float64 `json:"stability"`
	SimilarityBoost *float64 `json:"similarity_boost"`
	Style           *float64 `json:"style"`
	UseSpeakerBoost *bool    `json:"use_speaker_boost"`
}

// Ignored names the settings voxkit accepts and does not apply.
func (vs *VoiceSettings) Ignored() []string {
	if vs == nil {
		return nil
	}
	var out []string
	for name, set := range map[string]bool{"stability": vs.Stability != nil, "similarity_boost": vs.SimilarityBoost != nil,
		"style": vs.Style != nil, "use_speaker_boost": vs.UseSpeakerBoost != nil} {
		if set {
			out = append(out, "voice_settings."+name)
		}
	}
	slices.Sort(out)
	return out
}
