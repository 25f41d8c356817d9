package pocket

import "strings"

// Text is cut into the pieces the model speaks one at a time as
// sherpa-onnx cuts it for PocketTTS, so both speak the same pieces: at
// sentence ends (. ! ? and their full-width forms), then pieces shorter
// than minPiece code points are joined to the next, then pieces longer
// than maxPiece are cut at their last space or clause mark before it.
const (
	minPiece = 30
	maxPiece = 200
)

// pieces cuts text into the pieces to speak, in order.
func pieces(text string) []string {
	var out []string
	for _, s := range mergeShort(splitSentences(text)) {
		out = append(out, splitLong(s)...)
	}
	return out
}

func sentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}

func clauseEnd(r rune) bool {
	switch r {
	case ',', ';', ':', '，', '；', '：':
		return true
	}
	return sentenceEnd(r)
}

func space(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

func trim(s string) string { return strings.TrimFunc(s, space) }

// splitSentences cuts text after each sentence end; pieces are trimmed and
// empty ones dropped.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if sentenceEnd(r) {
			end := i + len(string(r))
			if s := trim(text[start:end]); s != "" {
				out = append(out, s)
			}
			start = end
		}
	}
	if s := trim(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// mergeShort joins each piece shorter than minPiece code points to the
// ones after it until the join is long enough, with a space between two
// pieces only where neither side is a space, a clause mark or CJK (so
// "Hi." and "Go on." join as "Hi.Go on.", as in sherpa-onnx).
func mergeShort(in []string) []string {
	var out []string
	var buf string
	for _, s := range in {
		s = trim(s)
		if s == "" {
			continue
		}
		if buf != "" && needSpace(buf, s) {
			buf += " "
		}
		buf += s
		if len([]rune(buf)) >= minPiece {
			out = append(out, trim(buf))
			buf = ""
		}
	}
	if buf != "" {
		out = append(out, trim(buf))
	}
	return out
}

func needSpace(left, right string) bool {
	l := []rune(left)
	r := []rune(right)
	if len(l) == 0 || len(r) == 0 {
		return false
	}
	last, first := l[len(l)-1], r[0]
	for _, c := range []rune{last, first} {
		if space(c) || cjk(c) || clauseEnd(c) {
			return false
		}
	}
	return true
}

func cjk(c rune) bool {
	return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
		(c >= 0xA840 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
		(c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF65 && c <= 0xFFDC) ||
		(c >= 0x20000 && c <= 0x2FFFF)
}

// splitLong cuts a piece longer than maxPiece code points: each cut is
// after the last clause mark or at the last space within maxPiece code
// points, or at maxPiece when there is none.
func splitLong(s string) []string {
	u := []rune(trim(s))
	var out []string
	add := func(r []rune) {
		if p := trim(string(r)); p != "" {
			out = append(out, p)
		}
	}
	for start := 0; start < len(u); {
		end := min(start+maxPiece, len(u))
		if end == len(u) {
			add(u[start:])
			break
		}
		cut := end
		for i := end; i > start; i-- {
			if c := u[i-1]; space(c) {
				cut = i - 1
				break
			} else if clauseEnd(c) {
				cut = i
				break
			}
		}
		if cut <= start {
			cut = end
		}
		add(u[start:cut])
		start = cut
		for start < len(u) && space(u[start]) {
			start++
		}
	}
	return out
}
