package tags

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits of the tag values. Values outside them are clamped (and reported),
// or rejected in strict mode.
const (
	MinRate         = 0.25
	MaxRate         = 4.0
	MaxPitch        = 12.0 // semitones either way
	MaxVolume       = 2.0  // linear; 0 is silence
	MaxPause        = 5 * time.Second
	DefaultPause    = 500 * time.Millisecond
	maxValueDisplay = 40
)

// Amounts of the named style tags (the presets are described in
// docs/tags.md).
const (
	SlowRate  = 0.75
	FastRate  = 1.3
	HighPitch = 4.0  // semitones
	LowPitch  = -4.0 // semitones
	LoudGain  = 4.0  // dB, about ×1.6
	SoftGain  = -6.0 // dB, about ×0.5
)

type tagKind int

const (
	styleTag tagKind = iota
	eventTag
	resetTag
)

// valueMode says whether a tag takes a value after its colon.
type valueMode int

const (
	noValue valueMode = iota
	optionalValue
	requiredValue
)

// def describes one tag of the vocabulary.
type def struct {
	kind  tagKind
	value valueMode
	// set applies a style tag's value to a style. It returns clamped set
	// when the value was out of range and has been brought within it.
	set func(s *Style, value string) (clamped string, err error)
	// event builds an event tag's event.
	event func(value string) (e Event, clamped string, err error)
}

// preset returns a setter for a tag without a value.
func preset(f func(s *Style)) func(*Style, string) (string, error) {
	return func(s *Style, _ string) (string, error) { f(s); return "", nil }
}

// vocabulary is version 1 of the tag vocabulary.
var vocabulary = map[string]def{
	"pause":  {kind: eventTag, value: optionalValue, event: parsePause},
	"breath": {kind: eventTag, event: fixedEvent(Breath)},
	"sigh":   {kind: eventTag, event: fixedEvent(Sigh)},
	"laugh":  {kind: eventTag, event: fixedEvent(Laugh)},
	"cough":  {kind: eventTag, event: fixedEvent(Cough)},
	"reset":  {kind: resetTag},

	"slow": {set: preset(func(s *Style) { s.Rate = SlowRate })},
	"fast": {set: preset(func(s *Style) { s.Rate = FastRate })},
	"rate": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(v, MinRate, MaxRate, "a speed factor from 0.25 to 4")
		s.Rate = x
		return clamped, err
	}},
	"high": {set: preset(func(s *Style) { s.Pitch = HighPitch })},
	"low":  {set: preset(func(s *Style) { s.Pitch = LowPitch })},
	"pitch": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(strings.TrimSuffix(v, "st"), -MaxPitch, MaxPitch, "semitones from -12 to +12")
		s.Pitch = x
		return clamped, err
	}},
	"loud": {set: preset(func(s *Style) { s.Gain = LoudGain })},
	"soft": {set: preset(func(s *Style) { s.Gain = SoftGain })},
	"volume": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(v, 0, MaxVolume, "a volume factor from 0 to 2")
		s.Gain = 20 * math.Log10(x) // -Inf for 0
		return clamped, err
	}},
	"whisper":  {set: preset(func(s *Style) { s.Whisper = true })},
	"emphasis": {set: preset(func(s *Style) { s.Emphasis = true })},
	"spell":    {set: preset(func(s *Style) { s.Spell = true })},
	"voice": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		s.Voice = v
		return "", nil
	}},

	// Presets: a fixed mix of rate, pitch, pitch range and loudness.
	"excited": {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 1.15, 2, 1.5, 2 })},
	"sad":     {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 0.85, -2, 0.6, -3 })},
	"calm":    {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 0.9, -1, 0.7, -2 })},
	"angry":   {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 1.1, 1, 1.3, 4 })},
}

func fixedEvent(k EventKind) func(string) (Event, string, error) {
	return func(string) (Event, string, error) { return Event{Kind: k}, "", nil }
}

// parsePause reads "250ms", "1.5s" or a bare number of seconds.
func parsePause(v string) (Event, string, error) {
	if v == "" {
		return Event{Kind: Pause, Duration: DefaultPause}, "", nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Event{}, "", fmt.Errorf("want a duration such as 250ms or 1.5s")
		}
		d = time.Duration(math.Max(-1, math.Min(f, 1e6)) * float64(time.Second))
	}
	if d < 0 {
		return Event{}, "", fmt.Errorf("want a duration such as 250ms or 1.5s, not a negative one")
	}
	if d > MaxPause {
		return Event{Kind: Pause, Duration: MaxPause}, "clamped to " + MaxPause.String(), nil
	}
	return Event{Kind: Pause, Duration: d}, "", nil
}

// number parses a decimal and clamps it to [lo, hi].
func number(v string, lo, hi float64, want string) (float64, string, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(v, "xXpP_") || strings.HasPrefix(strings.ToLower(strings.TrimLeft(v, "+-")), "0x") {
		return 0, "", fmt.Errorf("want %s", want)
	}
	switch {
	case x < lo:
		return lo, fmt.Sprintf("clamped to %g", lo), nil
	case x > hi:
		return hi, fmt.Sprintf("clamped to %g", hi), nil
	}
	return x, "", nil
}
