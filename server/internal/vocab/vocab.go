package vocab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// SamplePrefix starts the voice id of a sample a gateway sends.
const SamplePrefix = "sample:"

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

// MaxRecording is the largest recording a POST /v1/voices upload may
// carry, in bytes.
const MaxRecording = 10 << 20

// Clone is a voice to clone from a recording, as a door's multipart
// form gives it (server/wire's CloneForm parses one).
type Clone struct {
	// ID is the id asked for; empty means the server makes one.
	ID   string
	Name string
	// Model is the cloning model asked for; empty means the only one.
	Model string
	// Audio is the recording's file as uploaded.
	Audio []byte
	// Temperature is nil when the client gave none; Steps and Seed are 0.
	Temperature *float64
	Steps       int
	Seed        int64
}

// RecordingSeconds formats a duration for fault.BadRecording's messages.
func RecordingSeconds(samples, rate int) string {
	return fmt.Sprintf("%.2f s", float64(samples)/float64(rate))
}

// MaxClientID is the longest type, id or flush_id, in bytes, a client
// message may carry: the server echoes them in its messages.
const MaxClientID = 128

// HeaderProbe marks a request as a health check, such as a gateway's GET
// /v1/models of its workers: a server logs it at debug level, as it does
// GET /healthz and /readyz, so that checks every second do not fill its
// log. Its value names the checker.
const HeaderProbe = "X-Voxkit-Probe"
