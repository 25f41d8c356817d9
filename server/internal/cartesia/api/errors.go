package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// Transcript is the field of a request's text, which errors name.
const Transcript = "transcript"

// Error is an error as Cartesia shapes it, over HTTP and in error
// events.
type Error struct {
	Status     int           `json:"status_code"`
	Code       string        `json:"error_code"`
	Title      string        `json:"title"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"-"` // as fault.Error's
}

func (e *Error) Error() string { return e.Message }

// NewError is the error of status with Cartesia's code and title.
func NewError(status int, code, title, message string) *Error {
	return &Error{Status: status, Code: code, Title: title, Message: message}
}

// BadRequest is the 400 of Cartesia's "Invalid request".
func BadRequest(code, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, code, "Invalid request", fmt.Sprintf(format, args...))
}

// FromFault converts voxkit's error to Cartesia's shape; nil stays nil.
// Cartesia calls a transcript with nothing to say (tts.ErrEmptyInput,
// as fault reports it) a missing one.
func FromFault(werr *fault.Error) *Error {
	if werr == nil {
		return nil
	}
	if bad := (*tts.SpeedError)(nil); errors.As(werr, &bad) {
		return speedError(bad)
	}
	code := werr.Code
	if code == fault.CodeStringTooShort && werr.Param == Transcript {
		code = fault.CodeMissingParameter
	}
	return &Error{Status: werr.Status, Code: code, Title: http.StatusText(werr.Status), Message: werr.Message, RetryAfter: werr.RetryAfter}
}

// VoiceNotFound is the 404 of a voice id voxkit does not have.
func VoiceNotFound(id string) *Error {
	return NewError(http.StatusNotFound, fault.CodeVoiceNotFound, "Voice not found", fmt.Sprintf("No voice with id %q: list the voices with GET /voices.", id))
}

// Event is the error as an event of the SSE stream or the WebSocket.
func (e *Error) Event(contextID, requestID string) map[string]any {
	m := map[string]any{"type": "error", "done": true, "status_code": e.Status, "error_code": e.Code,
		"title": e.Title, "message": e.Message, "request_id": requestID}
	if contextID != "" {
		m["context_id"] = contextID
	}
	return m
}
