package engine

import "context"

// Feature names a speaking-style control of Prosody.
type Feature string

// The Prosody controls. Every engine renders FeatureRate; the others only
// engines that declare them through Renderer.
const (
	FeatureRate     Feature = "rate"
	FeaturePitch    Feature = "pitch"
	FeatureGain     Feature = "gain"
	FeatureRange    Feature = "range"
	FeatureWhisper  Feature = "whisper"
	FeatureEmphasis Feature = "emphasis"
	FeatureSpell    Feature = "spell"
	// FeatureBreaks: the engine puts Request.Breaks in the speech it
	// renders whole, without splitting the text around them.
	FeatureBreaks Feature = "breaks"
	// FeaturePhonemes: the engine speaks Request.Phonemes (IPA) instead
	// of phonemizing Request.Text.
	FeaturePhonemes Feature = "phonemes"
)

// Renderer is implemented by engines that render Prosody controls beyond
// the rate themselves. A caller (package tts) sets only the Prosody fields
// of features the engine renders, and applies the others on the PCM
// (pitch shift, gain, whisper) or the text (spelling) itself.
type Renderer interface {
	// Renders reports whether the engine renders f natively.
	Renders(f Feature) bool
}

// Renders reports whether e renders f natively: FeatureRate always,
// other features when e implements Renderer and says so.
func Renders(e Engine, f Feature) bool {
	if f == FeatureRate {
		return true
	}
	r, ok := e.(Renderer)
	return ok && r.Renders(f)
}

// ChunkStreamer is implemented by engines whose chunks of one request
// come over time, as they are made (PocketTTS decodes 1.2 s of audio at a
// time), rather than at once at the end of a sentence. A caller (package
// tts) sends such an engine's chunks on to its listener as they come;
// another engine's chunks of a sentence go out together, in one write.
type ChunkStreamer interface {
	// StreamsChunks reports whether the engine's chunks come over time.
	StreamsChunks() bool
}

// StreamsChunks reports whether e is a ChunkStreamer that says so.
func StreamsChunks(e Engine) bool {
	c, ok := e.(ChunkStreamer)
	return ok && c.StreamsChunks()
}

// PhonemeChecker is implemented by engines that render FeaturePhonemes
// and can say before speaking which symbols of an IPA string a voice has
// no phoneme for, so a caller can report them.
type PhonemeChecker interface {
	// UnknownPhonemes returns the symbols of ipa that voice cannot speak
	// and Synthesize leaves out, each once, in order; none when it can
	// speak them all.
	UnknownPhonemes(ctx context.Context, voice, ipa string) ([]string, error)
}
