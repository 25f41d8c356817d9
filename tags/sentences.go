package tags

import (
	"strings"

	"github.com/voxkit/voxkit/internal/sentence"
)

// Sentence is one sentence of a script, in order: its text parts (trimmed,
// never blank) and the events within or just after it.
type Sentence struct {
	Parts []Part
}

// Text returns the sentence's text parts joined by spaces.
func (s Sentence) Text() string {
	var b []string
	for _, p := range s.Parts {
		if !p.IsEvent() {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, " ")
}

// Sentences splits the script into sentences of at most maxLen characters
// of text (sentence.DefaultMaxLen when maxLen <= 0), as the plain-text
// splitter would split the script's text, so that each can be rendered
// and streamed in turn. Styles carry across sentence boundaries: every
// part keeps the style it had in the script. An event belongs to the
// sentence in which it stands, or to the one before it when it stands
// between two; events before all text belong to the first sentence. A
// script of events only gives one sentence; an empty one gives none.
func (s Script) Sentences(maxLen int) []Sentence {
	// Lay the text parts end to end, remembering where each starts.
	var all strings.Builder
	offs := make([]int, len(s.Parts))
	for i, p := range s.Parts {
		offs[i] = all.Len()
		all.WriteString(p.Text)
	}
	text := all.String()
	type span struct{ start, end int }
	var spans []span
	cur := 0
	for _, piece := range sentence.Split(text, maxLen) {
		i := strings.Index(text[cur:], piece)
		if i < 0 { // cannot happen: pieces are substrings, in order
			continue
		}
		spans = append(spans, span{cur + i, cur + i + len(piece)})
		cur += i + len(piece)
	}
	hasEvent := false
	for _, p := range s.Parts {
		hasEvent = hasEvent || p.IsEvent()
	}
	if len(spans) == 0 {
		if !hasEvent {
			return nil
		}
		spans = []span{{0, 0}}
	}
	out := make([]Sentence, len(spans))
	k := 0 // the sentence being filled; parts come in offset order
	for i, p := range s.Parts {
		start := offs[i]
		if p.IsEvent() {
			for k+1 < len(spans) && spans[k+1].start <= start {
				k++
			}
			out[k].Parts = append(out[k].Parts, p)
			continue
		}
		end := start + len(p.Text)
		for j := k; j < len(spans) && spans[j].start < end; j++ {
			a, b := max(start, spans[j].start), min(end, spans[j].end)
			if a >= b {
				continue
			}
			if t := strings.TrimSpace(text[a:b]); t != "" {
				out[j].Parts = append(out[j].Parts, Part{Text: t, Style: p.Style})
			}
			k = j
		}
	}
	return out
}
