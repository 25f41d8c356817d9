// Package sherpatext cuts text into the pieces a model speaks one at a time
// as sherpa-onnx's text utilities cut it (SplitByPunctuation,
// MergeShortSentences, SplitLongSentence, ChunkText), written anew, so that
// engines matching sherpa-onnx sample for sample (engine/pocket,
// engine/supertonic) speak the same pieces.
package sherpatext

import "strings"

// SentenceEnd reports whether r ends a sentence: . ! ? and their
// full-width forms.
func SentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}

// ClauseEnd reports whether r ends a clause or a sentence.
func ClauseEnd(r rune) bool {
	switch r {
	case ',', ';', ':', '，', '；', '：':
		return true
	}
	return SentenceEnd(r)
}

// Space reports whether r is C's white space.
func Space(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// Trim removes C white space from both ends of s.
func Trim(s string) string { return strings.TrimFunc(s, Space) }

// Sentences cuts text after each sentence end; pieces are trimmed and
// empty ones dropped.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if SentenceEnd(r) {
			end := i + len(string(r))
			out = appendTrimmed(out, text[start:end])
			start = end
		}
	}
	return appendTrimmed(out, text[start:])
}

// MergeShort joins each piece shorter than minLen code points to the ones
// after it until the join is long enough, joined as Join joins.
func MergeShort(in []string, minLen int) []string {
	var out []string
	var buf string
	for _, s := range in {
		if s = Trim(s); s == "" {
			continue
		}
		buf = Join(buf, s)
		if len([]rune(buf)) >= minLen {
			out = appendTrimmed(out, buf)
			buf = ""
		}
	}
	return appendTrimmed(out, buf)
}

// Join joins two pieces, with a space between them only where neither
// side is a space, a clause mark or CJK (so "Hi." and "Go on." join as
// "Hi.Go on.", as in sherpa-onnx).
func Join(left, right string) string {
	if NeedSpace(left, right) {
		return left + " " + right
	}
	return left + right
}

// NeedSpace reports whether Join puts a space between left and right.
func NeedSpace(left, right string) bool {
	l, r := []rune(left), []rune(right)
	if len(l) == 0 || len(r) == 0 {
		return false
	}
	for _, c := range []rune{l[len(l)-1], r[0]} {
		if Space(c) || CJK(c) || ClauseEnd(c) {
			return false
		}
	}
	return true
}

// CJK is sherpa-onnx's test for a CJK code point (Hangul jamo and
// syllables, kana and ideographs, their compatibility forms).
func CJK(c rune) bool {
	return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
		(c >= 0xA840 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
		(c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF65 && c <= 0xFFDC) ||
		(c >= 0x20000 && c <= 0x2FFFF)
}

// SplitLong cuts a piece longer than maxLen code points: each cut is after
// the last clause mark or at the last space within maxLen code points, or
// at maxLen when there is none.
func SplitLong(s string, maxLen int) []string {
	u := []rune(Trim(s))
	var out []string
	for start := 0; start < len(u); {
		end := min(start+maxLen, len(u))
		if end == len(u) {
			out = appendTrimmed(out, string(u[start:]))
			break
		}
		cut := end
		for i := end; i > start; i-- {
			if c := u[i-1]; Space(c) {
				cut = i - 1
				break
			} else if ClauseEnd(c) {
				cut = i
				break
			}
		}
		if cut <= start {
			cut = end
		}
		out = appendTrimmed(out, string(u[start:cut]))
		start = cut
		for start < len(u) && Space(u[start]) {
			start++
		}
	}
	return out
}

func appendTrimmed(out []string, s string) []string {
	if s = Trim(s); s != "" {
		out = append(out, s)
	}
	return out
}

// Chunks cuts text as sherpa-onnx's ChunkText does (for Supertonic):
// paragraphs at lines that are blank once trimmed (the lines of one joined
// by a space), each cut into Sentences, a sentence longer than maxLen code
// points cut by SplitLong, and the pieces of a paragraph joined (Join)
// while the join fits in maxLen; a paragraph starts a chunk of its own
// only when it does not fit either.
func Chunks(text string, maxLen int) []string {
	text = Trim(text)
	if maxLen <= 0 || text == "" {
		return nil
	}
	var out []string
	var cur string
	for _, para := range paragraphs(text) {
		for _, sent := range Sentences(para) {
			for _, p := range SplitLong(sent, maxLen) {
				if j := Join(cur, p); cur == "" || len([]rune(j)) <= maxLen {
					cur = j
					continue
				}
				out = appendTrimmed(out, cur)
				cur = p
			}
		}
	}
	out = appendTrimmed(out, cur)
	if len(out) == 0 {
		out = append(out, text)
	}
	return out
}

// paragraphs splits text at lines that are empty once trimmed; the trimmed
// lines of a paragraph are joined by a space.
func paragraphs(text string) []string {
	var out []string
	var cur string
	for line := range strings.SplitSeq(text, "\n") {
		switch line = Trim(line); {
		case line == "":
			out = appendTrimmed(out, cur)
			cur = ""
		case cur == "":
			cur = line
		default:
			cur += " " + line
		}
	}
	out = appendTrimmed(out, cur)
	if len(out) == 0 {
		out = appendTrimmed(out, text)
	}
	return out
}
