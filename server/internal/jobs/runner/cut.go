package runner

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tags"
)

// DefaultMaxSegment is the most characters of a segment when
// Config.MaxSegment is 0: about five minutes of speech.
const DefaultMaxSegment = 4500

// Cut cuts text into segments of at most max characters (0:
// DefaultMaxSegment), each ending where a paragraph ends when it can,
// else where a sentence ends, else at a space; empty pieces are dropped.
// The segments' texts, joined, are text less white space at the cuts.
func Cut(text string, max int) []string {
	if max <= 0 {
		max = DefaultMaxSegment
	}
	var out []string
	rest := strings.TrimSpace(text)
	for rest != "" {
		if utf8.RuneCountInString(rest) <= max {
			out = append(out, rest)
			break
		}
		head := rest[:byteOffset(rest, max)]
		at := cutPoint(head)
		out = append(out, strings.TrimSpace(rest[:at]))
		rest = strings.TrimSpace(rest[at:])
	}
	return out
}

// cutPoint is where to cut head, text that runs on past it: after its
// last paragraph break, else its last sentence end, else its last space,
// each if it leaves at least a third of head; else all of head.
func cutPoint(head string) int {
	least := len(head) / 3
	if i := strings.LastIndex(head, "\n\n"); i >= least {
		return i + 2
	}
	end := -1
	for i, r := range head {
		if (r == '.' || r == '!' || r == '?' || r == '…') && i+utf8.RuneLen(r) < len(head) {
			next, _ := utf8.DecodeRuneInString(head[i+utf8.RuneLen(r):])
			if unicode.IsSpace(next) {
				end = i + utf8.RuneLen(r)
			}
		}
	}
	if end >= least {
		return end
	}
	if i := strings.LastIndexFunc(head, unicode.IsSpace); i >= least {
		return i + 1
	}
	return len(head)
}

// byteOffset is the byte offset of s's character n.
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// Slowest is the slowest rate script is spoken at, speed times its
// tags' rates, within the tags' limits and at most 1: a chapter's
// segments are that much shorter (so that each makes about as much
// audio as at normal speed), its sentences cut that much shorter.
func Slowest(script tags.Script, speed float64) float64 {
	rate := min(1, speed)
	for _, p := range script.Parts {
		if !p.IsEvent() {
			rate = min(rate, speed*p.Style.RateOrDefault())
		}
	}
	return max(tags.MinRate, rate)
}

// Carry is what the next segment opens in front of its text to go on
// in the styles open at this one's end (open, tags.Script.Open): those
// tags, after a reset when the instructions' styles (which every
// segment opens) are not exactly what is open.
func Carry(open, instructions []string) string {
	s := strings.Join(open, "")
	switch {
	case len(instructions) == 0:
		return s
	case s == strings.Join(instructions, ""):
		return ""
	}
	return "<|reset|>" + s
}
