package fault

import (
	"strings"
)

// The codes of recordings that cannot be cloned.
const (
	CodeAudioTooShort    = "audio_too_short"
	CodeAudioSilent      = "audio_silent"
	CodeUnsupportedAudio = "unsupported_audio"
)

// UnknownCloneModel is the 400 for a model that does not clone; models
// are those that do.
func UnknownCloneModel(model string, models []string) *Error {
	if model == "" {
		return BadRequest(CodeMissingParameter, "model", "Several models clone voices here; name one as 'model': %s.", strings.Join(models, ", "))
	}
	return BadRequest(CodeInvalidValue, "model", "The model %s does not clone voices; these do: %s.", Echo(model), strings.Join(models, ", "))
}

// NoCloning is the 400 for a recording sent to a server with no model
// that clones voices from audio.
func NoCloning() *Error {
	return BadRequest(CodeInvalidValue, "audio", "Cloning from audio is not supported by this server: no model here clones voices "+
		"(it has no PocketTTS model). A JSON body with a base_voice and no audio makes a derived voice.")
}

// BadRecording is the 400 for a recording that cannot be cloned.
func BadRecording(code, format string, args ...any) *Error {
	return BadRequest(code, "audio", format, args...)
}
