package tags

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
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
	// example is the tag as one writes it; doc says what it does, in one
	// line.
	example, doc string
}

// preset returns a setter for a tag without a value.
func preset(f func(s *Style)) func(*Style, string) (string, error) {
	return func(s *Style, _ string) (string, error) { f(s); return "", nil }
}

// vocabulary is version 1 of the tag vocabulary.
var vocabulary = map[string]def{
	"pause":  {kind: eventTag, value: optionalValue, event: parsePause, example: "<|pause:300ms|>", doc: "silence here: 500ms alone, up to 5s"},
	"breath": {kind: eventTag, event: fixedEvent(Breath), example: "<|breath|>", doc: "an in-breath"},
	"sigh":   {kind: eventTag, event: fixedEvent(Sigh), example: "<|sigh|>", doc: "a sigh"},
	"laugh":  {kind: eventTag, event: fixedEvent(Laugh), example: "<|laugh|>", doc: "a short laugh"},
	"cough":  {kind: eventTag, event: fixedEvent(Cough), example: "<|cough|>", doc: "a cough"},
	"reset":  {kind: resetTag, example: "<|reset|>", doc: "end every open style"},

	"slow": {set: preset(func(s *Style) { s.Rate = SlowRate }), example: "<|slow|>…<|/slow|>", doc: "speak at 0.75× the rate"},
	"fast": {set: preset(func(s *Style) { s.Rate = FastRate }), example: "<|fast|>…<|/fast|>", doc: "speak at 1.3× the rate"},
	"rate": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(v, MinRate, MaxRate, "a speed factor from 0.25 to 4")
		s.Rate = x
		return clamped, err
	}, example: "<|rate:1.2|>…<|/rate|>", doc: "speak at this multiple of the rate (0.25 to 4)"},
	"high": {set: preset(func(s *Style) { s.Pitch = HighPitch }), example: "<|high|>…<|/high|>", doc: "4 semitones higher"},
	"low":  {set: preset(func(s *Style) { s.Pitch = LowPitch }), example: "<|low|>…<|/low|>", doc: "4 semitones lower"},
	"pitch": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(strings.TrimSuffix(v, "st"), -MaxPitch, MaxPitch, "semitones from -12 to +12")
		s.Pitch = x
		return clamped, err
	}, example: "<|pitch:+2|>…<|/pitch|>", doc: "shift the pitch by semitones (−12 to +12)"},
	"loud": {set: preset(func(s *Style) { s.Gain = LoudGain }), example: "<|loud|>…<|/loud|>", doc: "4 dB louder"},
	"soft": {set: preset(func(s *Style) { s.Gain = SoftGain }), example: "<|soft|>…<|/soft|>", doc: "6 dB softer"},
	"volume": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		x, clamped, err := number(v, 0, MaxVolume, "a volume factor from 0 to 2")
		s.Gain = 20 * math.Log10(x) // -Inf for 0
		return clamped, err
	}, example: "<|volume:0.5|>…<|/volume|>", doc: "multiply the loudness (0 to 2)"},
	"whisper":  {set: preset(func(s *Style) { s.Whisper = true }), example: "<|whisper|>…<|/whisper|>", doc: "whispered, unvoiced speech"},
	"emphasis": {set: preset(func(s *Style) { s.Emphasis = true }), example: "<|emphasis|>…<|/emphasis|>", doc: "stressed, more prominent"},
	"spell":    {set: preset(func(s *Style) { s.Spell = true }), example: "<|spell|>…<|/spell|>", doc: "read letters and digits one by one"},
	"voice": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		s.Voice = v
		return "", nil
	}, example: "<|voice:en-gb|>…<|/voice|>", doc: "another voice of the catalog"},
	"phoneme": {value: requiredValue, set: func(s *Style, v string) (string, error) {
		s.Phonemes = PhonemesOf(v)
		return "", nil
	}, example: "<|phoneme:təˈmɑːtoʊ|>…<|/phoneme|>", doc: "say the text as these IPA phonemes (_ parts words)"},

	// Presets: a fixed mix of rate, pitch, pitch range and loudness.
	"excited": {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 1.15, 2, 1.5, 2 }), example: "<|excited|>…<|/excited|>", doc: "faster, higher, livelier, louder"},
	"sad":     {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 0.85, -2, 0.6, -3 }), example: "<|sad|>…<|/sad|>", doc: "slower, lower, flatter, softer"},
	"calm":    {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 0.9, -1, 0.7, -2 }), example: "<|calm|>…<|/calm|>", doc: "a little slower, lower and flatter"},
	"angry":   {set: preset(func(s *Style) { s.Rate, s.Pitch, s.Range, s.Gain = 1.1, 1, 1.3, 4 }), example: "<|angry|>…<|/angry|>", doc: "faster, livelier, louder"},
}

// TagInfo describes a tag of the vocabulary, for a palette or help text.
type TagInfo struct {
	// Name is the tag's name ("pause").
	Name string
	// Kind is "style" (applies until closed), "event" (happens where it
	// stands) or "reset".
	Kind string
	// Example is the tag as written, with "…" for the text a style
	// applies to ("<|rate:1.2|>…<|/rate|>").
	Example string
	// Doc says what the tag does, in one line.
	Doc string
}

// Vocabulary lists the tags of the vocabulary, events first, then
// styles, each group by name.
func Vocabulary() []TagInfo {
	kinds := map[tagKind]string{styleTag: "style", eventTag: "event", resetTag: "reset"}
	var out []TagInfo
	for name, d := range vocabulary {
		out = append(out, TagInfo{Name: name, Kind: kinds[d.kind], Example: d.example, Doc: d.doc})
	}
	order := map[string]int{"event": 0, "style": 1, "reset": 2}
	slices.SortFunc(out, func(a, b TagInfo) int {
		if c := cmp.Compare(order[a.Kind], order[b.Kind]); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
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
		f, ok := decimal(v)
		if !ok {
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

// decimal parses v as a finite number written in decimal, refusing what
// strconv.ParseFloat takes beyond that (hexadecimal, "_" between digits,
// Inf, NaN).
func decimal(v string) (float64, bool) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(v, "xXpP_") {
		return 0, false
	}
	return x, true
}

// number parses a decimal and clamps it to [lo, hi].
func number(v string, lo, hi float64, want string) (float64, string, error) {
	x, ok := decimal(v)
	if !ok {
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

// PhonemeTag returns the <|phoneme|> tag that says text as ipa: its
// spaces written "_", and the characters a tag value cannot hold ('|',
// '<', '>') left out. It returns "" when nothing of ipa is left.
func PhonemeTag(ipa string) string {
	v := strings.Join(strings.FieldsFunc(ipa, func(r rune) bool {
		return unicode.IsSpace(r) || r == '_' || r == '|' || r == '<' || r == '>'
	}), "_")
	if v == "" {
		return ""
	}
	return "<|phoneme:" + v + "|>"
}

// PhonemesOf returns the IPA of a <|phoneme|> tag's value: "_" stands
// for a space.
func PhonemesOf(value string) string { return strings.ReplaceAll(value, "_", " ") }
