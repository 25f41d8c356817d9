package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Engine synthesizes speech.
//
// Synthesize renders req and delivers the audio through emit as one or more
// chunks, in order. Text holding several sentences is rendered sentence by
// sentence (split as package engine/sentence splits, which engines use), so
// the first chunk arrives after the first sentence rather than after the
// whole text. tts gives engines one sentence, or one styled part of one,
// at a time. Synthesize checks ctx between chunks and after the last one,
// and returns ctx.Err() whenever ctx is done by then, so a cancelled
// synthesis never returns nil; if emit returns an error, Synthesize stops
// and returns that error. Text that is empty or only white space yields no
// chunks or only silence, and no error. enginetest.Run checks all of this.
// After Close, Synthesize fails with an error wrapping ErrClosed, and Close
// may be called again (enginetest.RunClosed).
//
// Implementations must be safe for concurrent use by several goroutines.
type Engine interface {
	Synthesize(ctx context.Context, req Request, emit ChunkFunc) error
	Close() error
}

// ChunkFunc receives one block of synthesized audio. The chunk's Samples
// are only valid during the call: copy them to keep them. Returning an
// error stops synthesis, and Synthesize returns that error.
type ChunkFunc func(Chunk) error

// Chunk is a block of mono PCM audio.
type Chunk struct {
	// Samples are in [-1, 1].
	Samples []float32
	// SampleRate is in hertz. An engine keeps it constant for a voice.
	SampleRate int
	// Words are the words of Request.Text whose audio begins in this
	// chunk, in order, for engines that report word timings; nil
	// otherwise.
	Words []Word
}

// Word says where a word of Request.Text is heard in the audio of one
// Synthesize call.
type Word struct {
	// Start and End are the word's byte offsets in Request.Text:
	// Text[Start:End] is the word as written.
	Start, End int
	// From and To are sample offsets counted from the first sample of
	// the call's first chunk: the word is heard in samples [From, To).
	// Words do not overlap: To is at most the next word's From, and the
	// silence after a word (a comma's pause, a Break) is not in it.
	From, To int
	// Estimated is set when the timing is an estimate (from the phonemes'
	// count, say) rather than the engine's own alignment.
	Estimated bool
}

// Request is what an engine is asked to say.
type Request struct {
	// Voice is the engine's own name for the voice (not a catalog id).
	Voice string
	// Text is plain text with no markup.
	Text string
	// Prosody asks for a speaking style; its zero value means neutral.
	Prosody Prosody
	// Breaks are silences to put in the speech, for engines that render
	// FeatureBreaks (others never get any): each is inserted before the
	// word that starts at or after its byte offset in Text (at the end
	// when none does), and adds exactly its duration.
	Breaks []Break
	// Words asks for Chunk.Words. An engine may leave them out when it
	// is false, where finding them costs time.
	Words bool
	// Phonemes, for engines that render FeaturePhonemes (others never
	// get any), is IPA to speak instead of Text ("təˈmɑːtoʊ"; spaces part
	// words): the engine speaks these phonemes, leaving out the symbols
	// the voice has none for, and Text is what they say, for the word
	// timings — one word over all of Text.
	Phonemes string
	// Seed, when not 0, is where an engine that samples (engine/pocket)
	// draws its noise from in place of the voice's own seed, so the same
	// request gives the same audio. Engines that do not sample ignore it.
	Seed int64
}

// Break is a silence of Duration before the word at Offset, a byte offset
// into Request.Text.
type Break struct {
	Offset   int
	Duration time.Duration
}

// Prosody holds the speaking-style controls of a request. The zero value
// means the voice's defaults. Every engine honours Rate; the other
// controls are set only for engines that declare them (see Renderer), and
// an engine that does not render a control ignores it.
type Prosody struct {
	// Rate multiplies the speaking rate: 2 is twice as fast. 0 means 1.
	Rate float64
	// Pitch shifts the voice in semitones; 0 means no shift.
	Pitch float64
	// Gain changes the loudness in decibels; 0 means unchanged and
	// math.Inf(-1) means silence.
	Gain float64
	// Range multiplies the pitch range (how much the intonation moves):
	// 0.5 is flatter, 1.5 livelier; 0 means 1.
	Range float64
	// Whisper asks for whispered (unvoiced) speech.
	Whisper bool
	// Emphasis asks for stressed, more prominent speech.
	Emphasis bool
	// Spell asks for letters and digits to be read one by one.
	Spell bool
}

// RateOrDefault returns the rate multiplier, 1 when Rate is unset.
func (p Prosody) RateOrDefault() float64 {
	if p.Rate <= 0 {
		return 1
	}
	return p.Rate
}

// ErrUnknownVoice is returned (wrapped) by engines asked for a voice they
// do not have. It is voxkit's one sentinel for an unknown voice: voices,
// tags and tts name this same value, so errors.Is matches it whichever
// layer found the voice missing.
var ErrUnknownVoice = errors.New("unknown voice")

// ErrClosed is returned (wrapped) by an engine used after its Close, so
// that a caller tells a closed engine from a voice it lacks whichever engine
// it holds (espeak.ErrClosed is one).
var ErrClosed = errors.New("engine closed")

// ErrCrashed is returned (wrapped) by an engine whose native code crashed
// or hung on a request. The engine contained the crash and is usable at
// once; the request is not: retrying the same input elsewhere would crash
// there too.
var ErrCrashed = errors.New("engine: crashed on this input")

// ErrUnsupportedVoice is returned (wrapped, with ErrUnknownVoice) for a
// voice an engine has but cannot speak, such as a Kokoro Japanese pack
// without a Japanese front end. The error says why.
var ErrUnsupportedVoice = errors.New("engine: voice not supported")

// UnsupportedVoiceError is the error for a voice an engine has but cannot
// speak, with the reason in words a caller can act on. errors.Is(err,
// ErrUnsupportedVoice) and errors.Is(err, ErrUnknownVoice) hold for it,
// and for Err, which may name the engine's own cause.
type UnsupportedVoiceError struct {
	Voice  string
	Reason string
	Err    error
}

func (e *UnsupportedVoiceError) Error() string {
	return fmt.Sprintf("engine: voice %q cannot be spoken: %s", e.Voice, e.Reason)
}

func (e *UnsupportedVoiceError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnsupportedVoice, ErrUnknownVoice, e.Err}
	}
	return []error{ErrUnsupportedVoice, ErrUnknownVoice}
}

// Voice describes one voice an engine offers.
type Voice struct {
	// Name is the engine's own name, used as Request.Voice.
	Name string
	// Language is a BCP 47 tag such as "en-US", when known.
	Language string
	// Description is a short human-readable label.
	Description string
	// SampleRate is the rate of the voice's audio in hertz; 0 when the
	// engine cannot say before speaking.
	SampleRate int
	// Speaker is set for a voice that is one speaker of a multi-speaker
	// model: the speaker's name, with Name the model's name, ":" and
	// Speaker (engine/onnx's NAME:SPEAKER).
	Speaker string
}

// VoiceLister is implemented by engines that can list their voices.
type VoiceLister interface {
	Voices(ctx context.Context) ([]Voice, error)
}

// Phonemizer is implemented by engines that can turn text into phonemes.
type Phonemizer interface {
	// Phonemize returns the IPA phonemes of text as spoken by voice, one
	// string per clause, with the clause's closing punctuation kept at its
	// end (for example "həlˈoʊ wˈɜːld!").
	Phonemize(ctx context.Context, voice, text string) ([]string, error)
}

// VoiceResolver is implemented by engines that accept voice names beyond
// those they list, such as the onnx engine's Kokoro blends
// ("af_bella(2)+af_sky(1)"). A catalog asks it about ids it does not hold.
type VoiceResolver interface {
	// ResolveVoice describes the voice name, or returns an error wrapping
	// ErrUnknownVoice that says why the engine cannot speak with it.
	ResolveVoice(name string) (Voice, error)
}

// VoiceHolder is implemented by engines that load a voice's model on
// first use rather than at start, and may unload it when it is not used
// (engine/onnx does, within a memory budget). A caller that will speak
// with a voice over several Synthesize calls (the sentences of one
// request) holds it for their time, so it is neither unloaded between
// them nor dropped by a rescan of the engine's voices meanwhile; it also
// learns what a cold voice cost.
type VoiceHolder interface {
	// HoldVoice loads voice unless it is loaded, and keeps it loaded and
	// speaking until release is called, which the caller must do once.
	// load is the time the call spent loading the voice (or waiting for
	// another caller's load of it): 0 when it was loaded already.
	HoldVoice(ctx context.Context, voice string) (release func(), load time.Duration, err error)
}

// Cloner is implemented by engines that make a voice from a recording of
// someone speaking (engine/pocket). What CloneVoice makes is bytes for the
// caller to store; LoadClone makes such bytes speakable under a name the
// caller chooses, which the engine does not list among its voices.
type Cloner interface {
	// CloneModels lists the models that clone, sorted.
	CloneModels() []string
	// CloneVoice makes a voice from req's recording and returns it
	// encoded for storage. Errors wrap ErrRecording for a recording it
	// cannot use and ErrCloneSettings for settings out of range.
	CloneVoice(ctx context.Context, req CloneRequest) ([]byte, error)
	// LoadClone makes data, made by CloneVoice, speakable as
	// Request.Voice name, replacing a clone loaded under that name.
	LoadClone(name string, data []byte) error
	// UnloadClone forgets the clone loaded as name, if any.
	UnloadClone(name string)
}

// CloneRequest is a recording to make a voice of, and how the voice
// samples its speech.
type CloneRequest struct {
	// Model is the model that clones; empty means the only one.
	Model string
	// Samples are mono audio in [-1, 1] at SampleRate hertz.
	Samples    []float32
	SampleRate int
	// Temperature, Steps and Seed are the voice's sampling settings,
	// for engines that sample; nil and 0 mean the engine's defaults (a
	// Seed of 0, a new seed for every call).
	Temperature *float64
	Steps       int
	Seed        int64
}

// ErrRecording is returned (wrapped) for a recording an engine cannot
// make a voice of; the error says why.
var ErrRecording = errors.New("engine: unusable recording")

// ErrCloneSettings is returned (wrapped) for sampling settings of a
// clone that are out of range.
var ErrCloneSettings = errors.New("engine: clone settings out of range")
