package wire

import (
	"encoding/base64"
	"encoding/json"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
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
//     (fault.SampleNeeded), and the gateway sends the request again with it.

// sampleField reads "voice_sample" of a request whose voice is voice: nil
// when absent; the sample must be base64 whose SHA-256 voice names.
func sampleField(raw map[string]json.RawMessage, voice string) ([]byte, error) {
	s, ok, err := stringField(raw, "voice_sample")
	switch {
	case err != nil || !ok:
		return nil, err
	case !IsSampleVoice(voice):
		return nil, fault.BadRequest(fault.CodeInvalidValue, "voice", "A request with voice_sample must name it as its voice: %q and its SHA-256 in lower-case hex.", SamplePrefix)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, fault.BadRequest(fault.CodeBadSample, "voice_sample", "voice_sample must be a voice's sample in standard base64.")
	}
	if SampleVoice(b) != voice {
		return nil, fault.BadRequest(fault.CodeBadSample, "voice_sample", "The SHA-256 of voice_sample is not the one its voice names.")
	}
	return b, nil
}

// SamplePrefix starts the voice id of a sample a gateway sends.
const SamplePrefix = vocab.SamplePrefix

// SampleVoice is the voice id of sample (vocab.SampleVoice).
func SampleVoice(sample []byte) string { return vocab.SampleVoice(sample) }

// IsSampleVoice reports whether voice names a sample (vocab.IsSampleVoice).
func IsSampleVoice(voice string) bool { return vocab.IsSampleVoice(voice) }
