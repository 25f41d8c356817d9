package captions

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts"
)

// Cue is one subtitle: its lines, shown from Start to End.
type Cue struct {
	Start, End time.Duration
	// Lines are the cue's lines of text, each a run of words.
	Lines []string
}

// Shift returns the cue moved later by d.
func (c Cue) Shift(d time.Duration) Cue {
	c.Start += d
	c.End += d
	return c
}

// Text is the cue's lines joined by "\n".
func (c Cue) Text() string { return strings.Join(c.Lines, "\n") }

// Defaults of Options' zero fields; they follow common subtitle guidance
// (the BBC's and Netflix's: 42 characters, two lines, up to 7 seconds).
const (
	DefaultLineChars   = 42
	DefaultLines       = 2
	DefaultMaxDuration = 7 * time.Second
	DefaultPause       = 500 * time.Millisecond
)

// Options shape cues; the zero value uses the defaults.
type Options struct {
	// LineChars is the most characters on a line (a single longer word
	// has a line of its own).
	LineChars int
	// Lines is the most lines of a cue.
	Lines int
	// MaxDuration is the longest a cue lasts (a single longer word has a
	// cue of its own).
	MaxDuration time.Duration
	// Pause is the silence between two words that ends a cue.
	Pause time.Duration
}

func (o Options) withDefaults() Options {
	if o.LineChars <= 0 {
		o.LineChars = DefaultLineChars
	}
	if o.Lines <= 0 {
		o.Lines = DefaultLines
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = DefaultMaxDuration
	}
	if o.Pause <= 0 {
		o.Pause = DefaultPause
	}
	return o
}

// Cues makes cues with the default options: see Options.Cues.
func Cues(text string, words []tts.Word) []Cue {
	return Options{}.Cues(text, words)
}

// token is a word as shown: with the punctuation around it in the text.
type token struct {
	text       string
	start, end time.Duration
}

// Cues groups words, in order, into cues. text is the input the words
// were timed in (their CharStart and CharEnd index it in characters): the
// punctuation that touches a word there is shown with it, and sentence
// and clause ends are found by it. text may be empty: the words are then
// shown as tts.Word names them.
func (o Options) Cues(text string, words []tts.Word) []Cue {
	o = o.withDefaults()
	toks := tokens([]rune(text), words)
	var (
		cues []Cue
		cur  []token
	)
	flush := func(n int) {
		if n > 0 {
			cues = append(cues, o.cue(cur[:n]))
			cur = append(cur[:0:0], cur[n:]...)
		}
	}
	for i, t := range toks {
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case t.start-prev.end >= o.Pause || sentenceEnd(prev.text) && !startsLower(t.text):
				flush(len(cur))
			case !o.fits(append(cur, t)):
				flush(o.cut(cur, toks[i:]))
				if len(cur) > 0 && !o.fits(append(cur, t)) {
					flush(len(cur))
				}
			}
		}
		cur = append(cur, t)
	}
	flush(len(cur))
	return cues
}

// fits reports whether toks make one cue: short enough to show, on few
// enough lines.
func (o Options) fits(toks []token) bool {
	if len(toks) == 1 {
		return true
	}
	if toks[len(toks)-1].end-toks[0].start > o.MaxDuration {
		return false
	}
	_, ok := o.lines(toks)
	return ok
}

// cut chooses how many of a full cue's tokens make the cue: up to its last
// clause end past its first third; else all of them, unless the sentence
// has fewer than minWords words left after them (next are the tokens
// after the cue's), which then take some of the cue's with them.
func (o Options) cut(toks, next []token) int {
	for k := len(toks) - 1; k >= max(1, len(toks)/3); k-- {
		if clauseEnd(toks[k-1].text) {
			return k
		}
	}
	left := 0
	for _, t := range next {
		left++
		if left >= minWords || sentenceEnd(t.text) {
			break
		}
	}
	return max(1, len(toks)-(minWords-left))
}

// minWords is the fewest words a cut leaves for a sentence's last cue.
const minWords = 3

func (o Options) cue(toks []token) Cue {
	lines, _ := o.lines(toks)
	return Cue{Start: toks[0].start, End: toks[len(toks)-1].end, Lines: lines}
}

// lines lays tokens out on lines: one line when they fit on one, else
// lines as even as can be (two: the cut that makes the longer line
// shortest, after a clause end where that costs little), else filled
// line by line. ok is false when they take more than o.Lines lines.
func (o Options) lines(toks []token) (lines []string, ok bool) {
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.text
	}
	one := strings.Join(words, " ")
	if utf8.RuneCountInString(one) <= o.LineChars || len(toks) == 1 {
		return []string{one}, true
	}
	if o.Lines == 2 {
		best, bestCost := -1, 0
		for k := 1; k < len(words); k++ {
			a, b := strings.Join(words[:k], " "), strings.Join(words[k:], " ")
			la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
			if (la > o.LineChars && k > 1) || (lb > o.LineChars && k < len(words)-1) {
				continue
			}
			cost := max(la, lb)
			if clauseEnd(words[k-1]) {
				cost -= o.LineChars / 6
			}
			if best < 0 || cost < bestCost {
				best, bestCost = k, cost
			}
		}
		if best < 0 {
			return nil, false
		}
		return []string{strings.Join(words[:best], " "), strings.Join(words[best:], " ")}, true
	}
	var line string
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= o.LineChars:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	lines = append(lines, line)
	return lines, len(lines) <= o.Lines
}

// tokens shows each word with the punctuation that touches it in text:
// what comes before it after the last space (an opening quote), and what
// follows it up to the next space (a comma, a closing quote).
func tokens(text []rune, words []tts.Word) []token {
	toks := make([]token, 0, len(words))
	for i, w := range words {
		t := token{text: w.Word, start: w.Start, end: w.End}
		if 0 <= w.CharStart && w.CharStart < w.CharEnd && w.CharEnd <= len(text) {
			from, to := w.CharStart, w.CharEnd
			lo, hi := 0, len(text)
			if i > 0 && words[i-1].CharEnd <= from {
				lo = max(words[i-1].CharEnd, 0)
			}
			if i+1 < len(words) && words[i+1].CharStart >= to && words[i+1].CharStart < words[i+1].CharEnd {
				hi = min(words[i+1].CharStart, len(text))
			}
			for from > lo && touching(text[from-1]) && text[from-1] != '>' {
				from--
			}
			for to < hi && touching(text[to]) && text[to] != '<' {
				to++
			}
			t.text = string(text[from:w.CharStart]) + w.Word + string(text[w.CharEnd:to])
		}
		t.text = strings.Join(strings.Fields(t.text), " ")
		if t.text != "" {
			toks = append(toks, t)
		}
	}
	return toks
}

func touching(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

// sentenceEnd reports whether a token ends a sentence: a period,
// question or exclamation mark or ellipsis, perhaps inside quotes or
// brackets.
func sentenceEnd(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool { return strings.ContainsRune(`"'”’»)]*_`, r) })
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?…。！？", r)
}

// startsLower reports whether a token's first letter is lower case: the
// sentence goes on (`"Ready?" she asked.`).
func startsLower(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

// clauseEnd reports whether a token ends a clause or sentence.
func clauseEnd(s string) bool {
	if sentenceEnd(s) {
		return true
	}
	s = strings.TrimRightFunc(s, func(r rune) bool { return strings.ContainsRune(`"'”’»)]`, r) })
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(",;:—–、，；：", r)
}
