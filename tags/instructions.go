package tags

import (
	"slices"
	"strings"
	"unicode"
)

// MaxInstructionWords is how many words of an instructions text
// ReadInstructions reads; the rest are reported as one "...".
const MaxInstructionWords = 64

// maxUnknownInstructions is how many not understood words are named.
const maxUnknownInstructions = 8

// instructionWords maps the words of the instructions vocabulary onto the
// style tags that render them (docs/tags.md lists them).
var instructionWords = map[string]string{
	"slow": "slow", "slowly": "slow", "slower": "slow",
	"fast": "fast", "faster": "fast", "quick": "fast", "quickly": "fast", "quicker": "fast", "rapidly": "fast",
	"soft": "soft", "softly": "soft", "softer": "soft", "quiet": "soft", "quietly": "soft", "quieter": "soft",
	"loud": "loud", "loudly": "loud", "louder": "loud",
	"whisper": "whisper", "whispers": "whisper", "whispering": "whisper", "whispered": "whisper",
	"high": "high", "higher": "high",
	"low": "low", "lower": "low", "deep": "low", "deeper": "low",
	"excited": "excited", "excitedly": "excited", "cheerful": "excited", "cheerfully": "excited",
	"enthusiastic": "excited", "enthusiastically": "excited",
	"calm": "calm", "calmly": "calm", "soothing": "calm",
	"sad": "sad", "sadly": "sad",
	"angry": "angry", "angrily": "angry",
}

// instructionFillers are words that carry no style of their own; they
// are understood and not reported.
var instructionFillers = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but with in on at of to as for by please be is are
		it its this that you your speak speaking spoken say saying said talk talking read reading sound sounding
		voice tone manner way style pace speed rate volume pitch very more bit little slightly somewhat
		rather quite really much a-bit tad like use using neutral normal natural normally naturally
		then too so also just all do
		affect pacing emotion emotions delivery pauses phrasing personality pronunciation`) {
		instructionFillers[w] = true
	}
}

// negations make the style word after them not understood: "don't
// whisper" is not whispering, and voxkit has no "not whispering" to do.
var negations = map[string]bool{"not": true, "don't": true, "dont": true, "never": true, "no": true, "without": true}

// Instructions is a free-text style prompt read against the instructions
// vocabulary (OpenAI's "instructions").
type Instructions struct {
	// Tags are the style tags the text asks for, by name ("slow",
	// "whisper"), in the order they were asked for, each once: a later
	// one wins where two set the same thing, as with tags.
	Tags []string
	// Unknown are the words that were not understood, lower case, each
	// once, at most eight; "..." stands last when more were left out.
	Unknown []string
}

// ReadInstructions reads text, such as "Speak slowly, in a calm voice",
// for the words of its vocabulary: pace (slowly, quickly), volume (softly,
// quietly, loudly), whispering, pitch (higher, lower) and the styles of
// the tags (excited or cheerful, calm, sad, angry). Words that carry no
// style ("speak", "in", "a", "voice") are passed over; every other word,
// and a style word after "not" or "don't", is Unknown. Empty text and
// "None" (as some clients send) ask for nothing.
func ReadInstructions(text string) Instructions {
	var in Instructions
	if t := strings.TrimSpace(text); t == "" || strings.EqualFold(t, "none") {
		return in
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’' && r != '-'
	})
	negated := false
	for i, w := range words {
		w = strings.Trim(strings.ReplaceAll(w, "’", "'"), "'-")
		if i == MaxInstructionWords {
			in.unknown("...")
			break
		}
		tag, known := instructionWords[w]
		switch {
		case w == "":
		case negations[w]:
			negated = true
			continue
		case known && negated:
			in.unknown("not " + w)
		case known:
			if !slices.Contains(in.Tags, tag) {
				in.Tags = append(in.Tags, tag)
			}
		case !instructionFillers[w]:
			in.unknown(w)
		default:
			continue // a filler keeps a negation going: "not too slowly"
		}
		negated = false
	}
	return in
}

// unknown adds w to the words not understood.
func (in *Instructions) unknown(w string) {
	switch {
	case slices.Contains(in.Unknown, w) || slices.Contains(in.Unknown, "..."):
	case len(in.Unknown) == maxUnknownInstructions:
		in.Unknown = append(in.Unknown, "...")
	default:
		in.Unknown = append(in.Unknown, w)
	}
}

// Open returns the tags as they are written in front of a text to style
// all of it ("<|slow|><|whisper|>").
func (in Instructions) Open() []string {
	out := make([]string, len(in.Tags))
	for i, t := range in.Tags {
		out[i] = "<|" + t + "|>"
	}
	return out
}

// Ignored returns what was not understood as entries of
// Script.Ignored's list: "instructions:WORD" for each word, written as
// Script.Ignored writes names.
func (in Instructions) Ignored() []string {
	out := make([]string, len(in.Unknown))
	for i, w := range in.Unknown {
		out[i] = headerSafe("instructions:" + w)
	}
	return out
}
