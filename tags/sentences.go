package tags

import (
	"strings"
	"unicode"

	"github.com/voxkit/voxkit/engine/sentence"
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
// Punctuation standing apart from words in another style joins the words
// before it (or, at the start of a sentence, after it), so that no engine
// is asked to say "!" on its own.
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
	for _, piece := range sentence.SplitLang(text, maxLen, s.Lang) {
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
	for i := range out {
		out[i].Parts = attachPunctuation(out[i].Parts)
	}
	return out
}

// attachPunctuation joins text parts without a letter or digit (such as
// the "!" of "<|loud|>Yes<|/loud|>!") to the text before them in the
// sentence, or else to the text after them: an engine given "!" alone
// reads it out as "exclamation".
func attachPunctuation(parts []Part) []Part {
	out := parts[:0]
	pending := -1 // index in out of a leading punctuation part
	lastText := -1
	for _, p := range parts {
		switch {
		case p.IsEvent():
			out = append(out, p)
			continue
		case !hasWordChar(p.Text) && lastText >= 0:
			out[lastText].Text = joinText(out[lastText].Text, p.Text)
			continue
		case !hasWordChar(p.Text) && pending >= 0:
			out[pending].Text = joinText(out[pending].Text, p.Text)
			continue
		case !hasWordChar(p.Text):
			pending = len(out)
		case pending >= 0:
			// The first words take the punctuation that led them.
			p.Text = joinText(out[pending].Text, p.Text)
			out = append(out[:pending], out[pending+1:]...)
			pending = -1
		}
		out = append(out, p)
		if hasWordChar(p.Text) {
			lastText = len(out) - 1
		}
	}
	return out
}

func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// joinText concatenates two pieces of tag-free text without letting them
// form a tag or a tag delimiter.
func joinText(a, b string) string {
	if joinFormsTag(a, b) || joinFormsDelimiter(a, b) {
		return a + " " + b
	}
	return a + b
}

// joinFormsDelimiter reports whether a+b holds "<|" or "|>" across the
// join.
func joinFormsDelimiter(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	pair := a[len(a)-1:] + b[:1]
	return pair == "<|" || pair == "|>"
}
