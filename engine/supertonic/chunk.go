package supertonic

import "strings"

// chunks cuts text as sherpa-onnx's ChunkText does: paragraphs at blank
// lines (the lines of one joined by spaces), sentences after . ! ? 。！？,
// a sentence longer than maxLen code points cut at its last space or
// clause mark that fits, and the pieces of a paragraph joined again while
// they fit in maxLen.
func chunks(text string, maxLen int) []string {
	text = trim(text)
	if maxLen <= 0 || text == "" {
		return nil
	}
	var out []string
	var cur string
	flush := func() {
		if s := trim(cur); s != "" {
			out = append(out, s)
		}
		cur = ""
	}
	for _, para := range paragraphs(text) {
		for _, sent := range sentences(para) {
			for _, p := range splitLong(sent, maxLen) {
				if cur == "" {
					cur = p
					continue
				}
				space := needSpace(cur, p)
				n := len([]rune(cur)) + len([]rune(p))
				if space {
					n++
				}
				if n > maxLen {
					flush()
					cur = p
					continue
				}
				if space {
					cur += " "
				}
				cur += p
			}
		}
	}
	flush()
	if len(out) == 0 {
		out = append(out, text)
	}
	return out
}

// paragraphs splits text at lines that are empty once trimmed; the
// trimmed lines of a paragraph are joined by a space.
func paragraphs(text string) []string {
	var out []string
	var cur string
	flush := func() {
		if s := trim(cur); s != "" {
			out = append(out, s)
		}
		cur = ""
	}
	for line := range strings.SplitSeq(text, "\n") {
		line = trim(line)
		if line == "" {
			flush()
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += line
	}
	flush()
	if len(out) == 0 {
		if s := trim(text); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// sentences splits text after each sentence mark, trimming the pieces.
func sentences(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if s := trim(string(cur)); s != "" {
			out = append(out, s)
		}
		cur = cur[:0]
	}
	for _, r := range text {
		cur = append(cur, r)
		if sentenceMark(r) {
			flush()
		}
	}
	flush()
	return out
}

// splitLong cuts a sentence into pieces of at most maxLen code points,
// each ending before the last space or after the last clause mark that
// fits (or at maxLen when none does).
func splitLong(sentence string, maxLen int) []string {
	s := []rune(trim(sentence))
	var out []string
	add := func(p []rune) {
		if t := trim(string(p)); t != "" {
			out = append(out, t)
		}
	}
	start := 0
	for start < len(s) {
		end := min(start+maxLen, len(s))
		if end >= len(s) {
			add(s[start:])
			break
		}
		cut := -1
		for i := end; i > start; i-- {
			if c := s[i-1]; isSpace(c) {
				cut = i - 1
				break
			} else if clauseMark(c) {
				cut = i
				break
			}
		}
		if cut <= start {
			cut = end
		}
		add(s[start:cut])
		start = cut
		for start < len(s) && isSpace(s[start]) {
			start++
		}
	}
	return out
}

// needSpace reports whether joining left and right needs a space: not
// when either side has white space, a CJK character or a clause mark at
// the join.
func needSpace(left, right string) bool {
	l, r := []rune(left), []rune(right)
	if len(l) == 0 || len(r) == 0 {
		return false
	}
	last, first := l[len(l)-1], r[0]
	return !isSpace(last) && !isSpace(first) && !isCJK(last) && !isCJK(first) && !clauseMark(last) && !clauseMark(first)
}

func sentenceMark(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}

func clauseMark(r rune) bool {
	switch r {
	case ',', ';', ':', '，', '；', '：':
		return true
	}
	return sentenceMark(r)
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
}

// isCJK is sherpa-onnx's test for a CJK code point (Hangul jamo and
// syllables, kana and ideographs, their compatibility forms).
func isCJK(r rune) bool {
	return r >= 0x1100 && r <= 0x11FF || r >= 0x2E80 && r <= 0xA4CF || r >= 0xA840 && r <= 0xD7AF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF65 && r <= 0xFFDC ||
		r >= 0x20000 && r <= 0x2FFFF
}
