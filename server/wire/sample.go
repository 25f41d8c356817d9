package wire

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
)

// A gateway (package server/upstream) speaks a voice cloned from a
// recording through its workers by sending the voice's stored form (what
// the cloning engine made of the recording, store.Voice.Sample) with the
// speech request, as a key of the gateway scope only may:
//
//   - "voice" is SamplePrefix and the sample's SHA-256 in lower-case hex,
//     and
//   - "voice_sample" is the sample in standard base64 (Speech.VoiceSample),
//     or is left out when the worker may hold it from an earlier request:
//     a worker that does not answers 409 voice_sample_needed
//     (SampleNeeded), and the gateway sends the request again with it.

// SamplePrefix starts the voice id of a sample a gateway sends.
const SamplePrefix = "sample:"

// The codes of samples.
const (
	// CodeSampleNeeded: the worker does not hold the sample the voice
	// names; send the request again with voice_sample.
	CodeSampleNeeded = "voice_sample_needed"
	// CodeBadSample: the sample is not one this worker's engine can
	// speak (not its format, not its model's shape, another model).
	CodeBadSample = "invalid_voice_sample"
)

// SampleVoice is the voice id of sample.
func SampleVoice(sample []byte) string { return SampleVoiceOf(sha256.Sum256(sample)) }

// SampleVoiceOf is the voice id of the sample whose SHA-256 is sum.
func SampleVoiceOf(sum [sha256.Size]byte) string { return SamplePrefix + hex.EncodeToString(sum[:]) }

// IsSampleVoice reports whether voice names a sample (SampleVoice's
// form).
func IsSampleVoice(voice string) bool {
	h, ok := strings.CutPrefix(voice, SamplePrefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// sampleField reads "voice_sample" of a request whose voice is voice: nil
// when absent; the sample must be base64 whose SHA-256 voice names.
func sampleField(raw map[string]json.RawMessage, voice string) ([]byte, error) {
	s, ok, err := stringField(raw, "voice_sample")
	switch {
	case err != nil || !ok:
		return nil, err
	case !IsSampleVoice(voice):
		return nil, BadRequest(CodeInvalidValue, "voice", "A request with voice_sample must name it as its voice: %q and its SHA-256 in lower-case hex.", SamplePrefix)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, BadRequest(CodeBadSample, "voice_sample", "voice_sample must be a voice's sample in standard base64.")
	}
	if SampleVoice(b) != voice {
		return nil, BadRequest(CodeBadSample, "voice_sample", "The SHA-256 of voice_sample is not the one its voice names.")
	}
	return b, nil
}

// SampleNeeded is the 409 of a worker that does not hold the sample voice
// names.
func SampleNeeded(voice string) *Error {
	return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: CodeSampleNeeded, Param: "voice_sample",
		Message: "This server does not hold the sample " + printableField(voice) + "; send the request again with voice_sample."}
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
