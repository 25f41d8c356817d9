package pocket

import (
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/sherpatext"
)

// span is one piece of text to speak, with the byte range of the request's
// text it came from (cutting and joining pieces drops and adds only white
// space, so the piece's other characters are the range's, in order).
type span struct {
	text       string
	start, end int
}

// locate finds each piece in text, in order.
func locate(text string, ps []string) []span {
	out := make([]span, 0, len(ps))
	at := 0
	for _, p := range ps {
		s := span{text: p, start: -1, end: at}
		for _, r := range p {
			if sherpatext.Space(r) {
				continue
			}
			i := at
			for i < len(text) {
				c, n := utf8.DecodeRuneInString(text[i:])
				if c == r {
					break
				}
				i += n
			}
			if i >= len(text) {
				break // not found: cannot happen for pieces of text
			}
			if s.start < 0 {
				s.start = i
			}
			_, n := utf8.DecodeRuneInString(text[i:])
			at = i + n
			s.end = at
		}
		if s.start < 0 {
			s.start = s.end
		}
		out = append(out, s)
	}
	return out
}

// words returns the byte ranges of the words (runs of non-space) of
// text[start:end].
func words(text string, start, end int) [][2]int {
	var out [][2]int
	w := -1
	for i, r := range text[start:end] {
		switch {
		case sherpatext.Space(r) && w >= 0:
			out = append(out, [2]int{w, start + i})
			w = -1
		case !sherpatext.Space(r) && w < 0:
			w = start + i
		}
	}
	if w >= 0 {
		out = append(out, [2]int{w, end})
	}
	return out
}

// emitWithWords passes the chunks of one piece to emit with the piece's
// words, spread over its audio in proportion to their length in
// characters (estimates: the model gives no alignment), each in the chunk
// where it begins. *sent counts the samples emitted before, and is
// advanced.
func emitWithWords(text string, p span, chunks [][]float32, sent *int, emit engine.ChunkFunc) error {
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	ws := words(text, p.start, p.end)
	weight := 0
	for _, w := range ws {
		weight += utf8.RuneCountInString(text[w[0]:w[1]]) + 1
	}
	timed := make([]engine.Word, len(ws))
	at := 0
	for i, w := range ws {
		n := utf8.RuneCountInString(text[w[0]:w[1]])
		from := *sent + at*total/weight
		at += n + 1
		to := *sent + (at-1)*total/weight
		timed[i] = engine.Word{Start: w[0], End: w[1], From: from, To: max(to, from), Estimated: true}
	}
	chunkStart := *sent
	for i, c := range chunks {
		chunkEnd := chunkStart + len(c)
		ch := engine.Chunk{Samples: c, SampleRate: SampleRate}
		for len(timed) > 0 && (timed[0].From < chunkEnd || i == len(chunks)-1) {
			ch.Words = append(ch.Words, timed[0])
			timed = timed[1:]
		}
		if err := emit(ch); err != nil {
			return err
		}
		chunkStart = chunkEnd
	}
	*sent = chunkStart
	return nil
}
