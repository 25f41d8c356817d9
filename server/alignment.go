package server

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
)

// Character alignment, as ElevenLabs gives it: a start and end time for
// every character of the text, made from voxkit's word timestamps by
// spreading each word's time evenly over its characters. Characters
// between words (spaces, punctuation) take no time, at the end of the
// word before them.

// alignment is the timing of a run of characters, in seconds.
type alignment struct {
	chars      []string
	start, end []float64
}

func (a *alignment) add(c string, start, end float64) {
	a.chars = append(a.chars, c)
	a.start = append(a.start, start)
	a.end = append(a.end, end)
}

func (a *alignment) append(b alignment) {
	a.chars = append(a.chars, b.chars...)
	a.start = append(a.start, b.start...)
	a.end = append(a.end, b.end...)
}

// seconds is the alignment of the HTTP API's with-timestamps answers.
func (a alignment) seconds() map[string]any {
	return map[string]any{"characters": nonNil(a.chars), "character_start_times_seconds": roundMS(a.start),
		"character_end_times_seconds": roundMS(a.end)}
}

// roundMS rounds times in seconds to the millisecond.
func roundMS(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

// ms is the alignment of the WebSocket's audio messages: start times
// and durations in milliseconds, relative to offset (the start of the
// message's audio within its stream, as ElevenLabs counts them).
func (a alignment) ms() map[string]any {
	starts := make([]int, len(a.start))
	durations := make([]int, len(a.start))
	for i := range a.start {
		starts[i] = int(math.Round(a.start[i] * 1000))
		durations[i] = int(math.Round((a.end[i] - a.start[i]) * 1000))
	}
	return map[string]any{"chars": nonNil(a.chars), "charStartTimesMs": starts, "charDurationsMs": durations}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// charAligner aligns an input sentence by sentence, as its audio comes.
// It holds the input from where the last sentence it aligned ends: an
// input stream's text is added as it arrives (write), and what is
// aligned is let go, so that each sentence costs what its own text does.
type charAligner struct {
	input []rune // the input from character pos on
	// normalize, if set, says how the voice reads a piece of the input.
	normalize func(string) (normalize.Text, bool)
	pos       int     // characters of the input aligned so far
	last      float64 // the end of the last word, in seconds
}

// write adds text to the end of the input.
func (ca *charAligner) write(text string) {
	for _, r := range text {
		ca.input = append(ca.input, r)
	}
}

// sentence aligns the input from where the last sentence ended through
// the last of words and the white space after it, or (final) through the
// end of the input; it returns that alignment and the normalized text's
// for the same source. Words index the whole input.
func (ca *charAligner) sentence(words []tts.Word, final bool) (src, norm alignment) {
	in := ca.input // in[i-from] is character i of the input
	from := ca.pos
	n := 0 // characters aligned, from from
	if len(words) > 0 {
		n = max(0, min(words[len(words)-1].CharEnd-from, len(in)))
		for n < len(in) && !unicode.IsSpace(in[n]) { // closing punctuation
			n++
		}
		for n < len(in) && unicode.IsSpace(in[n]) {
			n++
		}
	}
	if final {
		n = len(in)
	}
	times := make([][2]float64, n)
	w := 0
	for k := range n {
		i := from + k
		for w < len(words) && words[w].CharEnd <= i {
			ca.last = words[w].End.Seconds()
			w++
		}
		if w < len(words) && words[w].CharStart <= i {
			word := words[w]
			d := (word.End - word.Start).Seconds() / float64(word.CharEnd-word.CharStart)
			start := word.Start.Seconds() + d*float64(i-word.CharStart)
			times[k] = [2]float64{start, start + d}
		} else {
			times[k] = [2]float64{ca.last, ca.last}
		}
		src.add(string(in[k]), times[k][0], times[k][1])
	}
	for ; w < len(words); w++ {
		ca.last = words[w].End.Seconds()
	}
	ca.pos, ca.input = from+n, in[n:]
	if ca.normalize == nil || n == 0 {
		return src, src
	}
	piece := string(in[:n])
	nt, ok := ca.normalize(piece)
	if !ok {
		return src, src
	}
	return src, alignNormalized(piece, nt, times)
}

// alignNormalized aligns nt, the normalized text of piece, whose
// characters have times: a span copied from piece keeps its characters'
// times, a rewritten one ("$9.50" → "nine dollars fifty") spreads the
// time of its source over its characters.
func alignNormalized(piece string, nt normalize.Text, times [][2]float64) alignment {
	var a alignment
	timeAt := func(b int) [2]float64 { // the time of the character at byte b of piece
		r := utf8.RuneCountInString(piece[:min(max(b, 0), len(piece))])
		return times[min(r, len(times)-1)]
	}
	for _, sp := range nt.Spans {
		out := nt.Text[sp.Out:sp.OutEnd]
		if sp.Copy {
			for i, c := range out {
				t := timeAt(sp.Src + i)
				a.add(string(c), t[0], t[1])
			}
			continue
		}
		start, end := timeAt(sp.Src)[0], timeAt(sp.Src)[1]
		if sp.SrcEnd > sp.Src {
			_, lastStart := utf8.DecodeLastRuneInString(piece[:sp.SrcEnd])
			end = max(end, timeAt(sp.SrcEnd - lastStart)[1])
		}
		n := float64(utf8.RuneCountInString(out))
		i := 0
		for _, c := range out {
			s := start + (end-start)*float64(i)/n
			a.add(string(c), s, s+(end-start)/n)
			i++
		}
	}
	return a
}
