package tts

import (
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tags"
)

// DefaultQuickStart is Options.QuickStart when it is 0: a first sentence
// of more than 80 characters is cut at a clause boundary.
const DefaultQuickStart = 80

// quickStart cuts the first sentence of a stream when it is longer than
// min characters and plain text in one style: at the first clause mark (a
// comma, semicolon or colon, or a dash between spaces) followed by a space
// that leaves at least min/2 characters before it and some after it. The
// first clause is then rendered alone and heard while the rest of the
// sentence renders; the later sentences keep their whole-sentence
// prosody. The engine ends the clause at its mark with the pause the mark
// asks for, so no pause is added beyond the punctuation's own.
func quickStart(sens []tags.Sentence, min int) []tags.Sentence {
	if min <= 0 || len(sens) == 0 || len(sens[0].Parts) != 1 || sens[0].Parts[0].IsEvent() {
		return sens
	}
	p := sens[0].Parts[0]
	if utf8.RuneCountInString(p.Text) <= min {
		return sens
	}
	cut := clauseEnd(p.Text, min/2)
	if cut <= 0 {
		return sens
	}
	first, rest := p, p
	first.Text, rest.Text = strings.TrimSpace(p.Text[:cut]), strings.TrimSpace(p.Text[cut:])
	out := make([]tags.Sentence, 0, len(sens)+1)
	out = append(out, tags.Sentence{Parts: []tags.Part{first}}, tags.Sentence{Parts: []tags.Part{rest}})
	return append(out, sens[1:]...)
}

// clauseEnd returns the byte offset just after the first clause mark of s
// that has at least from characters before it and words after it, or -1.
func clauseEnd(s string, from int) int {
	chars := 0
	for i, r := range s {
		chars++
		if chars <= from {
			continue
		}
		rest := s[i+utf8.RuneLen(r):]
		switch {
		case strings.ContainsRune(",;:", r) && strings.HasPrefix(rest, " ") && strings.TrimSpace(rest) != "":
			return i + 1
		case (r == '—' || r == '–' || r == '-') && strings.HasPrefix(rest, " ") && strings.HasSuffix(s[:i], " ") && strings.TrimSpace(rest) != "":
			return i + utf8.RuneLen(r)
		}
	}
	return -1
}
