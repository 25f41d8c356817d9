package tags

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Style is the speaking style in force for a piece of text. Its zero value
// is neutral speech in the request's voice.
type Style struct {
	// Rate multiplies the speaking rate (and so the request's speed):
	// 2 is twice as fast. 0 means 1.
	Rate float64
	// Pitch shifts the voice in semitones; 0 means no shift.
	Pitch float64
	// Range multiplies the pitch range (how much the intonation moves):
	// 0.5 is flatter, 1.5 livelier. 0 means 1.
	Range float64
	// Gain changes the loudness in decibels; 0 means unchanged and
	// math.Inf(-1) means silence.
	Gain float64
	// Whisper asks for unvoiced, breathy speech.
	Whisper bool
	// Emphasis asks for stressed, more prominent speech.
	Emphasis bool
	// Spell asks for letters and digits to be read one by one.
	Spell bool
	// Voice is a catalog voice id to speak in; empty means the request's
	// voice.
	Voice string
	// Phonemes is IPA to say the text as (<|phoneme|>), for engines that
	// take phonemes; empty means the text is read as written. The text
	// is then what the phonemes say.
	Phonemes string
}

// RateOrDefault returns the rate multiplier, 1 when Rate is unset.
func (s Style) RateOrDefault() float64 {
	if s.Rate <= 0 {
		return 1
	}
	return s.Rate
}

// RangeOrDefault returns the pitch-range multiplier, 1 when Range is unset.
func (s Style) RangeOrDefault() float64 {
	if s.Range <= 0 {
		return 1
	}
	return s.Range
}

// Neutral reports whether s is the zero style.
func (s Style) Neutral() bool { return s == Style{} }

// String describes s compactly, such as "rate=0.75 pitch=+4 whisper", or
// "neutral".
func (s Style) String() string {
	if s.Neutral() {
		return "neutral"
	}
	var b []string
	if s.Rate != 0 {
		b = append(b, fmt.Sprintf("rate=%g", s.Rate))
	}
	if s.Pitch != 0 {
		b = append(b, fmt.Sprintf("pitch=%+g", s.Pitch))
	}
	if s.Range != 0 {
		b = append(b, fmt.Sprintf("range=%g", s.Range))
	}
	if s.Gain != 0 {
		if math.IsInf(s.Gain, -1) {
			b = append(b, "gain=-inf")
		} else {
			b = append(b, fmt.Sprintf("gain=%+.1fdB", s.Gain))
		}
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{s.Whisper, "whisper"}, {s.Emphasis, "emphasis"}, {s.Spell, "spell"}} {
		if f.on {
			b = append(b, f.name)
		}
	}
	if s.Voice != "" {
		b = append(b, "voice="+s.Voice)
	}
	if s.Phonemes != "" {
		b = append(b, "phonemes="+strconv.Quote(s.Phonemes))
	}
	return strings.Join(b, " ")
}

// EventKind names a non-verbal event.
type EventKind string

// The events of the vocabulary.
const (
	Pause  EventKind = "pause"
	Breath EventKind = "breath"
	Sigh   EventKind = "sigh"
	Laugh  EventKind = "laugh"
	Cough  EventKind = "cough"
)

// Event is something that happens between words rather than a way of
// saying them.
type Event struct {
	Kind EventKind
	// Duration is the length of a pause; other events have their own
	// length and leave it 0.
	Duration time.Duration
}

// String returns the event as "pause 500ms" or "breath".
func (e Event) String() string {
	if e.Kind == Pause {
		return fmt.Sprintf("%s %v", e.Kind, e.Duration)
	}
	return string(e.Kind)
}

// Part is one piece of a Script: text to speak in a style, or an event.
type Part struct {
	// Text is the text to speak, free of tags; empty for an event.
	Text string
	// Event is the event; its Kind is empty for text.
	Event Event
	// Style is the style of Text, or the style in force where the event
	// stands (a renderer may apply its Gain to the event).
	Style Style
}

// IsEvent reports whether p is an event rather than text.
func (p Part) IsEvent() bool { return p.Event.Kind != "" }

// String describes p for logs and golden files.
func (p Part) String() string {
	if p.IsEvent() {
		return fmt.Sprintf("event %v {%v}", p.Event, p.Style)
	}
	return fmt.Sprintf("text %q {%v}", p.Text, p.Style)
}
