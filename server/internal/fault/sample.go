package fault

import (
	"net/http"
)

// The codes of samples.
const (
	// CodeSampleNeeded: the worker does not hold the sample the voice
	// names; send the request again with voice_sample.
	CodeSampleNeeded = "voice_sample_needed"
	// CodeBadSample: the sample is not one this worker's engine can
	// speak (not its format, not its model's shape, another model).
	CodeBadSample = "invalid_voice_sample"
)

// SampleNeeded is the 409 of a worker that does not hold the sample voice
// names.
func SampleNeeded(voice string) *Error {
	return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: CodeSampleNeeded, Param: "voice_sample",
		Message: "This server does not hold the sample " + PrintableField(voice) + "; send the request again with voice_sample."}
}

// BadSample is the 400 of a sample the worker's engine cannot speak; why
// says what is wrong with it.
func BadSample(why error) *Error {
	return BadRequest(CodeBadSample, "voice_sample", "voice_sample cannot be spoken here: %s.", why)
}

// GatewayScopeNeeded is a gateway's 502 when its workers refused its key
// for a voice cloned from a recording: the key needs the gateway scope.
func GatewayScopeNeeded() *Error {
	return &Error{Status: http.StatusBadGateway, Type: TypeProxy, Code: CodeEngineError,
		Message: "The workers refused this gateway's key for a voice cloned from a recording: the gateway's upstream key " +
			"needs the gateway scope (keys create --account ACCOUNT --scope gateway)."}
}
