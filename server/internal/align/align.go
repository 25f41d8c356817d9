// Package align times the characters of a text, as ElevenLabs gives it: a start and end time for
// every character of the text, made from voxkit's word timestamps by
// spreading each word's time evenly over its characters. Characters
// between words (spaces, punctuation) take no time, at the end of the
// word before them.
package align

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
)

// Alignment is the timing of a run of characters, in seconds.
type Alignment struct {
	Chars      []string
	Start, End []float64
}

func (a *Alignment) add(c string, start, end float64) {
	a.Chars = append(a.Chars, c)
	a.Start = append(a.Start, start)
	a.End = append(a.End, end)
}

func (a *Alignment) Append(b Alignment) {
	a.Chars = append(a.Chars, b.Chars...)
	a.Start = append(a.Start, b.Start...)
	a.End = append(a.End, b.End...)
}

// Seconds is the alignment of the HTTP API's with-timestamps answers.
func (a Alignment) Seconds() map[string]any {
	return map[string]any{"characters": nonNil(a.Chars), "character_start_times_seconds": RoundMS(a.Start),
		"character_end_times_seconds": RoundMS(a.End)}
}

// RoundMS rounds times in seconds to the millisecond.
func RoundMS(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

// MS is the alignment of the WebSocket's audio messages: start times
// and durations in milliseconds, relative to offset (the start of the
// message's audio within its stream, as ElevenLabs counts them).
func (a Alignment) MS() map[string]any {
	starts := make([]int, len(a.Start))
	durations := make([]int, len(a.Start))
	for i := range a.Start {
		starts[i] = int(math.Round(a.Start[i] * 1000))
		durations[i] = int(math.Round((a.End[i] - a.Start[i]) * 1000))
	}
	return map[string]any{"chars": nonNil(a.Chars), "charStartTimesMs": starts, "charDurationsMs": durations}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Aligner aligns an input sentence by sentence, as its audio comes.
// It holds the input from where the last sentence it aligned ends: an
// input stream's text is added as it arrives (write), and what is
// aligned is let go (Write adds text), so that each sentence costs what its own text does.
type Aligner struct {
	Input []rune // the input from character pos on
	// normalize, if set, says how the voice reads a piece of the input.
	Normalize func(string) (normalize.Text, bool)
	pos       int     // characters of the input aligned so far
	last      float64 // the end of the last word, in seconds
}

// write adds text to the end of the input.
func (ca *Aligner) Write(text string) {
	for _, r := range text {
		ca.Input = append(ca.Input, r)
	}
}

// sentence aligns the input from where the last sentence ended through
// the last of words and the white space after it, or (final) through the
// end of the input; it returns that Alignment and the normalized text's
// for the same source. Words index the whole input.
func (ca *Aligner) Sentence(words []tts.Word, final bool) (src, norm Alignment) {
	in := ca.Input // in[i-from] is character i of the input
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
	ca.pos, ca.Input = from+n, in[n:]
	if ca.Normalize == nil || n == 0 {
		return src, src
	}
	piece := string(in[:n])
	nt, ok := ca.Normalize(piece)
	if !ok {
		return src, src
	}
	return src, alignNormalized(piece, nt, times)
}

// alignNormalized aligns nt, the normalized text of piece, whose
// characters have times: a span copied from piece keeps its characters'
// times, a rewritten one ("$9.50" → "nine dollars fifty") spreads the
// time of its source over its characters.
func alignNormalized(piece string, nt normalize.Text, times [][2]float64) Alignment {
	var a Alignment
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
