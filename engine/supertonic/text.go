package supertonic

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The text front end is sherpa-onnx's (its Supertonic unicode processor),
// written anew: the same replacements, spacing and closing period, the
// language tags from Supertonic 2 on, then each code point decomposed on
// its own (NFKD within the Basic Multilingual Plane, Hangul syllables into
// their jamo) and looked up in the model's unicode indexer.

// replacements are applied in this order, each over the whole text.
var replacements = [...][2]string{
	{"\u2013", "-"}, {"\u2011", "-"}, {"\u2014", "-"},
	{"_", " "},
	{"\u201C", `"`}, {"\u201D", `"`}, {"\u2018", "'"}, {"\u2019", "'"},
	{"\u00B4", "'"}, {"`", "'"},
	{"[", " "}, {"]", " "}, {"|", " "}, {"/", " "}, {"#", " "},
	{"\u2192", " "}, {"\u2190", " "},
	{"\u2665", ""}, {"\u2606", ""}, {"\u2661", ""}, {"\u00A9", ""}, {`\`, ""},
	{"@", " at "},
	{"e.g.,", "for example, "}, {"i.e.,", "that is, "},
}

// prepare returns text as the model reads it: cleaned, ended with a
// period unless it ends with a closing mark, and wrapped in <lang>…</lang>
// when lang is not empty.
func prepare(text, lang string) string {
	for _, r := range replacements {
		text = strings.ReplaceAll(text, r[0], r[1])
	}
	b := []byte(text)
	// Code points U+1F000–U+1FFFF (most emoji), byte by byte.
	out := b[:0:0]
	for i := 0; i < len(b); {
		if i+3 < len(b) && b[i] == 0xF0 && b[i+1] == 0x9F && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80 {
			i += 4
			continue
		}
		out = append(out, b[i])
		i++
	}
	// No space before , . ! ? ; : and '.
	b, out = out, nil
	for i := 0; i < len(b); i++ {
		if b[i] == ' ' && i+1 < len(b) && strings.IndexByte(",.!?;:'", b[i+1]) >= 0 {
			out = append(out, b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	// "" and '' become one quote.
	b, out = out, nil
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '`':
		case (b[i] == '"' || b[i] == '\'') && i+1 < len(b) && b[i+1] == b[i]:
			out = append(out, b[i])
			i++
		default:
			out = append(out, b[i])
		}
	}
	// Runs of white space become one space.
	b, out = out, nil
	space := false
	for _, c := range b {
		if isSpaceByte(c) {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		out = append(out, c)
		space = false
	}
	text = trim(string(out))
	if text != "" && !endsClosed(text) {
		text += "."
	}
	if lang != "" {
		text = "<" + lang + ">" + text + "</" + lang + ">"
	}
	return text
}

// endsClosed reports whether text ends with a mark after which sherpa-onnx
// adds no period.
func endsClosed(text string) bool {
	if strings.IndexByte(".!?;:,'\")]}>", text[len(text)-1]) >= 0 {
		return true
	}
	switch lastCodePoint(text) {
	case 0x2026, 0x3002, 0x300D, 0x300F, 0x3011, 0x3009, 0x300B, 0x203A, 0x00BB,
		0x201C, 0x201D, 0x2018, 0x2019:
		return true
	}
	return false
}

// lastCodePoint decodes the last code point of s as sherpa-onnx does: from
// the last byte that is not a continuation byte, without checking the
// bytes after it; 0 when they are too few.
func lastCodePoint(s string) rune {
	i := len(s) - 1
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return decodeAt(s, i, len(s)-i)
}

// decodeAt decodes the code point whose lead byte is s[i], given that n
// bytes are left from i, as sherpa-onnx's lenient decoder does: the lead
// byte gives the length and the continuation bytes are not checked. It
// returns 0 for a lead byte that is invalid or has too few bytes after it.
func decodeAt(s string, i, n int) rune {
	c := s[i]
	cont := func(k int) rune { return rune(s[i+k] & 0x3F) }
	switch {
	case c < 0x80:
		return rune(c)
	case c&0xE0 == 0xC0 && n > 1:
		return rune(c&0x1F)<<6 | cont(1)
	case c&0xF0 == 0xE0 && n > 2:
		return rune(c&0x0F)<<12 | cont(1)<<6 | cont(2)
	case c&0xF8 == 0xF0 && n > 3:
		return rune(c&0x07)<<18 | cont(1)<<12 | cont(2)<<6 | cont(3)
	}
	return 0
}

// codePoints returns the model's code points of prepared text: each
// decoded as sherpa-onnx decodes it (a byte it cannot decode is skipped)
// and decomposed by decompose.
func codePoints(text string) []uint16 {
	var out []uint16
	for i := 0; i < len(text); {
		c := text[i]
		size := 1
		switch {
		case c < 0x80:
		case c&0xE0 == 0xC0 && i+1 < len(text):
			size = 2
		case c&0xF0 == 0xE0 && i+2 < len(text):
			size = 3
		case c&0xF8 == 0xF0 && i+3 < len(text):
			size = 4
		default:
			i++
			continue
		}
		out = decompose(out, decodeAt(text, i, len(text)-i))
		i += size
	}
	return out
}

// Hangul syllables and their jamo (Unicode's algorithm).
const (
	hangulBase  = 0xAC00
	leadBase    = 0x1100
	vowelBase   = 0x1161
	trailBase   = 0x11A7
	vowelCount  = 21
	trailCount  = 28
	syllables   = 19 * vowelCount * trailCount
	perLeadJamo = vowelCount * trailCount
)

// decompose appends r's code points as sherpa-onnx decomposes them: a
// Hangul syllable into its jamo; another code point of the Basic
// Multilingual Plane into its NFKD decomposition, unless that leaves the
// plane (then r itself); a code point beyond the plane is dropped.
func decompose(out []uint16, r rune) []uint16 {
	if r >= hangulBase && r < hangulBase+syllables {
		s := r - hangulBase
		out = append(out, uint16(leadBase+s/perLeadJamo), uint16(vowelBase+s%perLeadJamo/trailCount))
		if t := s % trailCount; t > 0 {
			out = append(out, uint16(trailBase+t))
		}
		return out
	}
	if r > 0xFFFF || r < 0 {
		return out
	}
	if r >= 0x80 {
		if d := norm.NFKD.String(string(r)); d != string(r) {
			n := len(out)
			ok := true
			for _, c := range d {
				if c > 0xFFFF {
					ok = false
					break
				}
				out = append(out, uint16(c))
			}
			if ok {
				return out
			}
			out = out[:n]
		}
	}
	return append(out, uint16(r))
}

// isSpaceByte is C's isspace in the C locale.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trim removes C white space from both ends of s.
func trim(s string) string {
	i, j := 0, len(s)
	for i < j && isSpaceByte(s[i]) {
		i++
	}
	for j > i && isSpaceByte(s[j-1]) {
		j--
	}
	return s[i:j]
}
