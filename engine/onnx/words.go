package onnx

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
)

// Word timings. A model run turns a sequence of input ids into audio;
// each id stands for a phoneme of a word, a pad, a space, punctuation or
// a sequence edge (idInfo). Where each id is heard comes from the model's
// duration output when it has one, else from a weight per kind of id
// (estimateWeight) spread over the audio. A phoneme word is the ids from
// its first phoneme to the pad after its last; the space and punctuation
// after it, and their pads, are the pause that no word includes.
//
// The words of the text are runs of letters, digits and apostrophes
// (textWords). When a run has as many phoneme words as text words they
// pair in order; otherwise (numbers, abbreviations and symbols that
// espeak-ng reads as several words, hyphenated words it reads as one) the
// text words share out the run's speech in proportion to their length,
// and are marked Estimated.

// idKind is what an input id stands for.
type idKind uint8

const (
	idEdge    idKind = iota // BOS, EOS, Kokoro's pads
	idPad                   // Piper's pad after each phoneme
	idPhoneme               // a phoneme of a word
	idMark                  // a stress or length mark (a modifier letter)
	idSpace                 // the word separator
	idPunct                 // punctuation
)

// estimateWeight is the share of the audio each kind of id gets when a
// model gives no durations, relative to a phoneme: a rough mean of what
// VITS and Kokoro duration predictors give.
var estimateWeight = [...]float64{
	idEdge: 1, idPad: 0.25, idPhoneme: 1, idMark: 0.4, idSpace: 0.5, idPunct: 3,
}

// idInfo says what an input id stands for and which phoneme word (0, 1,
// … within the run) it is part of: -1 for ids outside words.
type idInfo struct {
	kind idKind
	word int32
}

// wordTracker records the idInfo of each id while an id sequence is built
// from phonemes. Its methods do nothing on a nil tracker.
type wordTracker struct {
	info  []idInfo
	words int32 // phoneme words begun
	in    bool  // the last phoneme was in a word
}

// edge records n ids outside words (BOS, EOS, pads of a sequence).
func (t *wordTracker) edge(n int) {
	if t == nil {
		return
	}
	for range n {
		t.info = append(t.info, idInfo{idEdge, -1})
	}
}

// phoneme records the n ids of phoneme r, then pads ids of the pad that
// follows it (0 for Kokoro). A space ends a word; punctuation is a pause
// but does not end one.
func (t *wordTracker) phoneme(r rune, n, pads int) {
	if t == nil {
		return
	}
	kind, word := phonemeKind(r), int32(-1)
	switch kind {
	case idSpace:
		t.in = false
	case idPhoneme, idMark:
		if n > 0 && !t.in {
			t.words++
			t.in = true
		}
		if t.in {
			word = t.words - 1
		}
	}
	for range n {
		t.info = append(t.info, idInfo{kind, word})
	}
	if n > 0 {
		for range pads {
			t.info = append(t.info, idInfo{idPad, word})
		}
	}
}

// phonemeKind classifies a phoneme codepoint.
func phonemeKind(r rune) idKind {
	switch {
	case unicode.IsSpace(r):
		return idSpace
	case unicode.IsPunct(r) || unicode.IsSymbol(r) && !unicode.Is(unicode.Sk, r):
		return idPunct
	case unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Sk, r) || unicode.Is(unicode.Mn, r):
		return idMark
	}
	return idPhoneme
}

// span is a range [from, to) of samples or bytes.
type span struct{ from, to int }

// idBounds returns where each id of a run starts in its audio of n
// samples, and where the last ends (len(info)+1 values). durations, when
// the model gave one per id, are in units of unit samples; exact reports
// whether they add up to the audio (within 1%; they are scaled to it
// either way). Without durations the audio is shared out by
// estimateWeight, and exact is false.
func idBounds(info []idInfo, durations []float64, unit float64, n int) (bounds []int, exact bool) {
	bounds = make([]int, len(info)+1)
	weights := durations
	exact = len(durations) == len(info) && unit > 0
	if !exact {
		weights = make([]float64, len(info))
		for i, id := range info {
			weights[i] = estimateWeight[id.kind]
		}
		unit = 0
	}
	var total float64
	for _, w := range weights {
		total += max(w, 0)
	}
	if total <= 0 {
		for i := range bounds {
			bounds[i] = n * i / len(info)
		}
		return bounds, false
	}
	if exact && math.Abs(total*unit-float64(n)) > 0.01*float64(n) {
		exact = false
	}
	var sum float64
	for i, w := range weights {
		bounds[i] = int(math.Round(sum / total * float64(n)))
		sum += max(w, 0)
	}
	bounds[len(info)] = n
	return bounds, exact
}

// phonemeWords returns the samples of each of a run's words phoneme
// words: from the start of its first id to the end of its last.
func phonemeWords(info []idInfo, bounds []int, words int) []span {
	out := make([]span, words)
	seen := make([]bool, words)
	for i, id := range info {
		if id.word < 0 || int(id.word) >= words {
			continue
		}
		w := &out[id.word]
		if !seen[id.word] {
			w.from, seen[id.word] = bounds[i], true
		}
		w.to = bounds[i+1]
	}
	return out
}

// textWords returns the byte spans of the words of text[from:to]: runs of
// letters, digits, combining marks and apostrophes, without apostrophes
// at their edges.
func textWords(text string, from, to int) []span {
	var out []span
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(text[start:end], "'’")
		if w != "" {
			s := start + strings.Index(text[start:end], w)
			out = append(out, span{s, s + len(w)})
		}
		start = -1
	}
	for i, r := range text[from:to] {
		i += from
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(to)
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '\'' || r == '’'
}

// dealWords shares out the text words of a piece of text among the runs
// that speak it, given the number of phoneme words of each run. sure[i]
// reports whether run i's words pair one to one with its phoneme words:
// when the counts add up, every run's do; else, when the piece has as
// many sentences (ending in . ! or ?) as there are runs, each run gets
// its sentence's words and is sure when the counts agree; else the words
// are shared out in proportion to the counts, none sure.
func dealWords(text string, piece span, counts []int) (groups [][]span, sure []bool) {
	words := textWords(text, piece.from, piece.to)
	groups, sure = make([][]span, len(counts)), make([]bool, len(counts))
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == len(words) {
		for i, c := range counts {
			groups[i], words = words[:c], words[c:]
			sure[i] = true
		}
		return groups, sure
	}
	if segs := textSentences(text, piece); len(counts) > 1 && len(segs) == len(counts) {
		for i, s := range segs {
			n := 0
			for n < len(words) && words[n].from < s.to {
				n++
			}
			groups[i], words = words[:n], words[n:]
			sure[i] = n == counts[i]
		}
		return groups, sure
	}
	done, prev := 0, 0
	for i, c := range counts {
		done += c
		next := len(words)
		if total > 0 {
			next = int(math.Round(float64(done) * float64(len(words)) / float64(total)))
		}
		groups[i] = words[prev:next]
		prev = next
	}
	return groups, sure
}

// textSentences cuts text[piece] after each run of . ! ? (and closing
// quotes or brackets) that white space or the end follows.
func textSentences(text string, piece span) []span {
	var out []span
	start := piece.from
	s := text[:piece.to]
	for i := piece.from; i < piece.to; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		for i < piece.to {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !strings.ContainsRune(".!?…\"'”’)]", r) {
				break
			}
			i += size
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); i == piece.to || unicode.IsSpace(r) {
			if strings.TrimSpace(s[start:i]) != "" {
				out = append(out, span{start, i})
			}
			start = i
		}
	}
	if strings.TrimSpace(s[start:piece.to]) != "" {
		out = append(out, span{start, piece.to})
	}
	return out
}

// runWords returns the timings of the text words a run speaks, offset by
// at samples: paired with the phoneme words when sure (and as many),
// else sharing out the run's speech (its phoneme words, or its whole
// audio of n samples when it has none) by their length, Estimated.
// timed says whether the phoneme words' samples came from the model.
func runWords(text string, words []span, phon []span, sure, timed bool, at, n int) []engine.Word {
	if len(words) == 0 {
		return nil
	}
	out := make([]engine.Word, len(words))
	if sure && len(words) == len(phon) {
		for i, w := range words {
			out[i] = engine.Word{Start: w.from, End: w.to, From: at + phon[i].from, To: at + phon[i].to, Estimated: !timed}
		}
		return out
	}
	speech := phon
	if len(speech) == 0 {
		speech = []span{{0, n}}
	}
	// Positions in the speech (the phoneme words laid end to end, pauses
	// left out) map back to samples.
	var length float64
	for _, s := range speech {
		length += float64(s.to - s.from)
	}
	sample := func(p float64, end bool) int {
		for i, s := range speech {
			d := float64(s.to - s.from)
			if p < d || i == len(speech)-1 || end && p <= d {
				return s.from + int(math.Round(min(max(p, 0), d)))
			}
			p -= d
		}
		return 0
	}
	weights := make([]float64, len(words))
	var total float64
	for i, w := range words {
		for _, r := range text[w.from:w.to] {
			switch {
			case unicode.IsDigit(r):
				weights[i] += 3 // a digit is read as a word or two
			case isWordRune(r) && !unicode.Is(unicode.Mn, r):
				weights[i]++
			}
		}
		weights[i] = max(weights[i], 1)
		total += weights[i]
	}
	var done float64
	prevTo := 0
	for i, w := range words {
		from := max(sample(done/total*length, false), prevTo)
		done += weights[i]
		to := max(sample(done/total*length, true), from+1)
		out[i] = engine.Word{Start: w.from, End: w.to, From: at + from, To: at + min(to, n), Estimated: true}
		prevTo = to
	}
	return out
}

// idRun is the input of one model run: its ids, what each stands for,
// and its number of phoneme words.
type idRun struct {
	ids   []int64
	info  []idInfo
	words int
}

// pieceWords are the text words of a piece of text dealt out to the runs
// that speak it (dealWords).
type pieceWords struct {
	runs   []idRun
	text   string
	groups [][]span
	sure   []bool
}

// dealPiece finds piece, a sentence that sentence.Split returned, in
// text at or after byte *from, moves *from past it and deals its words
// out to runs. A run of Piper's three ids or fewer (nothing to say) gets
// none. When piece is not found, no run gets any.
func dealPiece(text, piece string, from *int, runs []idRun) pieceWords {
	w := pieceWords{runs: runs, text: text}
	i := strings.Index(text[*from:], piece)
	if i < 0 {
		return w
	}
	sp := span{*from + i, *from + i + len(piece)}
	*from = sp.to
	counts := make([]int, len(runs))
	for i, r := range runs {
		counts[i] = r.words
	}
	w.groups, w.sure = dealWords(text, sp, counts)
	return w
}

// timings returns the word timings of run i, whose audio of n samples
// starts at sample at of the call; durations are the model's, if any, in
// units of unit samples.
func (w pieceWords) timings(i int, durations []float64, unit float64, at, n int) []engine.Word {
	if w.groups == nil || len(w.groups[i]) == 0 {
		return nil
	}
	r := w.runs[i]
	bounds, timed := idBounds(r.info, durations, unit, n)
	return runWords(w.text, w.groups[i], phonemeWords(r.info, bounds, r.words), w.sure[i], timed, at, n)
}
