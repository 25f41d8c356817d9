package normalize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Letters and digits drawn as symbols — circled, parenthesized, squared,
// with a period, fullwidth, in a mathematical font, Roman numerals as
// one character — are read as the letters and digits they draw: "ⓐ" is
// "a", "⑴" "(1)", "Ｈｅｌｌｏ" "Hello", "Ⅳ" "IV". espeak-ng has no name for
// most of them and reads their code point in hexadecimal ("letter 2 4 d
// 0"), or nothing at all ("①").
//
// The characters are taken from the blocks below only, where Unicode's
// compatibility decomposition (NFKC) gives what they draw; the other
// characters with one (ligatures such as "ﬁ", superscripts such as "²",
// units such as "㎞") are left alone, as espeak-ng and the rules read them
// today.
var symbolBlocks = []struct {
	lo, hi rune
	label  bool // a label on its own: kept apart from letters and digits next to it
}{
	{0x2160, 0x217F, true},    // Roman numerals: Ⅳ ⅳ
	{0x2460, 0x24FF, true},    // enclosed alphanumerics: ① ⑴ ⒈ ⒜ Ⓐ ⓐ
	{0x2776, 0x2793, true},    // dingbat circled digits: ❶ ➀ ➊
	{0x3200, 0x32FF, true},    // enclosed CJK: ㉑ ㊀ ㈠
	{0xFF10, 0xFF19, false},   // fullwidth digits: １
	{0xFF21, 0xFF3A, false},   // fullwidth capitals: Ａ
	{0xFF41, 0xFF5A, false},   // fullwidth small letters: ａ
	{0x1D400, 0x1D7FF, false}, // mathematical alphanumerics: 𝐇 𝟏
	{0x1F100, 0x1F1E5, true},  // enclosed alphanumeric supplement: 🄰 🄐 🅐 (not the flags' letters after)
}

// undecomposed are symbols of those blocks Unicode gives no
// decomposition, read as a run of letters or numbers from first: ⓫ is
// 11, 🅐 A.
var undecomposed = []struct {
	lo, hi rune
	first  int // the number of lo, or the letter 'A'
}{
	{0x24EB, 0x24F4, 11},    // ⓫–⓴
	{0x24F5, 0x24FE, 1},     // ⓵–⓾
	{0x24FF, 0x24FF, 0},     // ⓿
	{0x2776, 0x277F, 1},     // ❶–❿
	{0x2780, 0x2789, 1},     // ➀–➉
	{0x278A, 0x2793, 1},     // ➊–➓
	{0x1F10B, 0x1F10C, 0},   // 🄋 🄌
	{0x1F150, 0x1F169, 'A'}, // 🅐–🅩
	{0x1F170, 0x1F189, 'A'}, // 🅰–🆉
}

// emojiNamed are symbols espeak-ng reads by their emoji name ("A button,
// blood type"), as they are meant.
const emojiNamed = "🅰🅱🅾🅿"

// drawn returns what the symbol r draws, and whether it is a label; ""
// when r is not such a symbol.
func drawn(r rune) (string, bool) {
	if r < 0x2160 || strings.ContainsRune(emojiNamed, r) {
		return "", false
	}
	for _, b := range symbolBlocks {
		if r < b.lo || r > b.hi {
			continue
		}
		for _, u := range undecomposed {
			switch {
			case r < u.lo || r > u.hi:
			case u.first == 'A':
				return string(rune('A' + r - u.lo)), b.label
			default:
				return itoa(u.first + int(r-u.lo)), b.label
			}
		}
		s := norm.NFKC.String(string(r))
		if s == string(r) || strings.IndexFunc(s, func(c rune) bool {
			return !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune("()., ", c)
		}) >= 0 {
			return "", false
		}
		return s, b.label
	}
	return "", false
}

func itoa(v int) string {
	if v >= 10 {
		return itoa(v/10) + string(rune('0'+v%10))
	}
	return string(rune('0' + v))
}

// alnum reports a letter or digit.
func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// unsymbol returns text with the symbols drawing letters and digits
// replaced by them, and the map back; ok is false when there are none.
// A label is kept apart by a space from letters and digits next to it
// ("①②" is "1 2", not twelve). Audio tags are left as they are.
func unsymbol(text string) (t Text, ok bool) {
	var b strings.Builder
	done := 0 // bytes of text mapped
	emit := func(s Span) {
		if k := len(t.Spans) - 1; k >= 0 && s.Copy && t.Spans[k].Copy {
			t.Spans[k].OutEnd, t.Spans[k].SrcEnd = s.OutEnd, s.SrcEnd
			return
		}
		t.Spans = append(t.Spans, s)
	}
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], "<|") {
			if j := strings.Index(text[i+2:], "|>"); j >= 0 {
				i += 2 + j + 2
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		say, label := drawn(r)
		if say == "" {
			i += size
			continue
		}
		if i > done {
			out := b.Len()
			b.WriteString(text[done:i])
			emit(Span{out, b.Len(), done, i, true})
		}
		out := b.Len()
		if last, _ := utf8.DecodeLastRuneInString(b.String()); label && b.Len() > 0 && alnum(last) && alnum(firstRune(say)) {
			b.WriteByte(' ')
		}
		b.WriteString(say)
		if next, _ := utf8.DecodeRuneInString(text[i+size:]); label && alnum(next) {
			if end, _ := utf8.DecodeLastRuneInString(say); alnum(end) {
				b.WriteByte(' ')
			}
		}
		emit(Span{out, b.Len(), i, i + size, false})
		i += size
		done = i
	}
	if done == 0 {
		return Text{}, false
	}
	if done < len(text) {
		out := b.Len()
		b.WriteString(text[done:])
		emit(Span{out, b.Len(), done, len(text), true})
	}
	t.Text = b.String()
	return t, true
}

// through returns the spans of n, normalized text of inner.Text, mapped
// back through inner to the text inner came from: a piece n copied maps
// as inner maps it, a piece n rewrote to all that inner made it from.
// Pieces that would map to overlapping text (a rule read part of what one
// symbol drew) are joined, so the spans stay in order and without gaps.
func through(n, inner Text) []Span {
	var spans []Span
	emit := func(s Span) {
		k := len(spans) - 1
		switch {
		case k < 0:
		case s.Src < spans[k].SrcEnd:
			spans[k].OutEnd, spans[k].SrcEnd, spans[k].Copy = s.OutEnd, max(s.SrcEnd, spans[k].SrcEnd), false
			return
		case s.Copy && spans[k].Copy:
			spans[k].OutEnd, spans[k].SrcEnd = s.OutEnd, s.SrcEnd
			return
		}
		spans = append(spans, s)
	}
	for _, s := range n.Spans {
		if !s.Copy || s.Src == s.SrcEnd {
			a, b := inner.Source(s.Src, s.SrcEnd)
			emit(Span{s.Out, s.OutEnd, a, b, s.Copy})
			continue
		}
		for _, f := range inner.Spans {
			lo, hi := max(s.Src, f.Out), min(s.SrcEnd, f.OutEnd)
			if lo >= hi {
				continue
			}
			c := Span{s.Out + lo - s.Src, s.Out + hi - s.Src, f.Src, f.SrcEnd, f.Copy}
			if f.Copy {
				c.Src, c.SrcEnd = f.Src+lo-f.Out, f.Src+hi-f.Out
			}
			emit(c)
		}
	}
	return spans
}
