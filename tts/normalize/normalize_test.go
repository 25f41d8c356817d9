package normalize

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// cases reads testdata/NAME.txt: lines "class | input | expected".
func cases(t *testing.T, name string) [][3]string {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, " | ", 3)
		if len(f) != 3 {
			t.Fatalf("bad line %q", line)
		}
		out = append(out, [3]string{f[0], f[1], f[2]})
	}
	return out
}

func testLanguage(t *testing.T, file, lang string, min int) {
	cs := cases(t, file)
	if len(cs) < min {
		t.Errorf("%d cases, want at least %d", len(cs), min)
	}
	for _, c := range cs {
		got := Normalize(c[1], lang)
		if got.Text != c[2] {
			t.Errorf("%s: %q\n got %q\nwant %q", c[0], c[1], got.Text, c[2])
		}
		checkSpans(t, c[1], got)
	}
}

func TestEnglish(t *testing.T) { testLanguage(t, "en", "en-us", 300) }
func TestGerman(t *testing.T)  { testLanguage(t, "de", "de", 25) }
func TestFrench(t *testing.T)  { testLanguage(t, "fr", "fr-fr", 25) }
func TestSpanish(t *testing.T) { testLanguage(t, "es", "es", 25) }

// checkSpans checks that the spans cover both texts in order, without
// gaps, and that copies are copies.
func checkSpans(t *testing.T, src string, got Text) {
	t.Helper()
	out, in := 0, 0
	for _, s := range got.Spans {
		if s.Out != out || s.Src != in || s.OutEnd < s.Out || s.SrcEnd < s.Src {
			t.Fatalf("%q: span %+v after out %d, src %d: not contiguous", src, s, out, in)
		}
		if s.Copy && got.Text[s.Out:s.OutEnd] != src[s.Src:s.SrcEnd] {
			t.Fatalf("%q: copy span %+v differs", src, s)
		}
		out, in = s.OutEnd, s.SrcEnd
	}
	if out != len(got.Text) || in != len(src) {
		t.Fatalf("%q: spans end at out %d, src %d; texts are %d and %d bytes", src, out, in, len(got.Text), len(src))
	}
	if !utf8.ValidString(got.Text) && utf8.ValidString(src) {
		t.Fatalf("%q: invalid UTF-8 out of valid", src)
	}
}

// TestSource: every word said for a written form maps back onto that
// form, and the words around it onto themselves.
func TestSource(t *testing.T) {
	src := "Pay $9.50 on 2026-11-24, Dr. Smith."
	got := checkSource(t, src, []said{
		{"Pay", "Pay"}, {"nine", "$9.50"}, {"cents", "$9.50"}, {"November", "2026-11-24"},
		{"twenty six", "2026-11-24"}, {"Doctor", "Dr."}, {"Smith", "Smith"},
	})
	if o := got.Out(strings.Index(src, "Smith")); !strings.HasPrefix(got.Text[o:], "Smith") {
		t.Errorf("Out of Smith is %d: %q", o, got.Text[o:])
	}
}

// said is words of normalized text and what they were written as.
type said struct{ said, written string }

// checkSource checks that each word said for src in US English maps back
// to what it was written as; it returns the normalized text.
func checkSource(t *testing.T, src string, words []said) Text {
	t.Helper()
	got := Normalize(src, "en-us")
	for _, w := range words {
		i := strings.Index(got.Text, w.said)
		if i < 0 {
			t.Fatalf("%q not in %q", w.said, got.Text)
		}
		a, b := got.Source(i, i+len(w.said))
		if src[a:b] != w.written {
			t.Errorf("%q maps to %q, want %q", w.said, src[a:b], w.written)
		}
	}
	return got
}

// TestUnknownLanguage: a language without rules is left as it is.
func TestUnknownLanguage(t *testing.T) {
	src := "Es kostet $9.50 und 12 km."
	if got := Normalize(src, "ja"); got.Text != src {
		t.Errorf("ja: %q", got.Text)
	}
}

// FuzzNormalize: normalization never panics, keeps every plain word of
// the input in order, and maps the output onto the input in order and
// without gaps.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Pay $9.50 on 2026-11-24.", "Dr. Smith, 3.5 MB, 72°F", "call +1 555 123 4567",
		"<|pause:5|> 12 <|rate", "Henry VIII and NASA", "example.com/a?b=c", "1/2 2 1/2 3-5", "\xff\xfe 12", "24 November 2026",
		"7:05 am", "(555) 123-4567", "e.g. i.e. etc.", "-$5 -5°C", "1 234 567", "3,50 €",
		"ⓐ.ⓐ. ⑴ ⒈ $９.５０ ＨＥＬＬＯ ①②km", "(⑴) ⓑ⓫x 𝟏/𝟐 Ⅳ. Henry Ⅷ",
		"am 3. Mai, zum 1. Mal, bis zum 15.08. z. B. usw. Tel. 030 1234", "Mme M. Dupont p. ex. av. J.-C. XIXe 1ers",
		"el 1.º de mayo, la 3.ª Srta. p. ej. EE. UU. 21 personas 2 500,50 €",
		"10-15% 9am-5pm 9-10am $5-$10 5-10 km Mon-Fri Jan-Mar 3:1 16:9 5 Jan. 2020 100s of 1.2M 24/7 Apt. 4B"} {
		f.Add(s, "en-us")
		f.Add(s, "fr")
		f.Add(s, "de")
		f.Add(s, "es")
	}
	f.Fuzz(func(t *testing.T, src, lang string) {
		got := Normalize(src, lang)
		checkSpans(t, src, got)
		if len(got.Text) > 64*len(src)+16 {
			t.Fatalf("%q became %d bytes", src, len(got.Text))
		}
		// Plain words (lower-case letters only, not an abbreviation or a
		// unit) stay, in order.
		rest := got.Text
		for _, w := range strings.Fields(src) {
			if !plainWord(w) {
				continue
			}
			k := strings.Index(rest, w)
			if k < 0 {
				t.Fatalf("%q: plain word %q lost in %q", src, w, got.Text)
			}
			rest = rest[k+len(w):]
		}
	})
}

// plainWord reports a word of lower-case ASCII letters that no rule reads
// otherwise: not a unit, month or abbreviation.
func plainWord(w string) bool {
	if len(w) < 4 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	_, unit := englishUnits[w]
	_, month := usEnglish().monthAbbr[w]
	for _, a := range []abbrevLists{deAbbreviations, frAbbreviations, esAbbreviations} {
		if _, ok := a.table()[w]; ok {
			return false // "qqch", "aprox"
		}
	}
	return !unit && !month && enAnywhere[w] == "" && enBeforeNumber[w] == "" && w != "thousand" && w != "million" && w != "billion" && w != "trillion"
}

// benchText is a kilobyte of news-like English, dense with written forms.
const benchText = `On 2026-11-24 at 7:05 am, Dr. Smith of Acme Inc. paid $9.50 for a 3.5 MB file from example.com/docs. ` +
	`The temperature was 72°F, up 12% from the 1990s average; the team won 3-2 after 90 minutes. Call 555-123-4567 ` +
	`or write to jane.doe@example.com before Nov 24, 2026. Henry VIII had 6 wives, and Chapter IV covers World War II. ` +
	`The FBI, NASA and the U.S. Army bought 1,234,567 units at €2.5M, about 1/2 of the 12 km route. ` +
	`Read p. 42, then pp. 3-5, e.g. the 2nd and 3rd parts. Elm Dr. is near St. Louis; it rains 5 mm a day. ` +
	`Prices rose from $1,000 to $1,250 (25%) in 2025, and the 100 km/h limit stayed. Meet at 19:30 or 7 pm, ` +
	`whichever suits; bring 2 GB of data and 250 ml of water. This sentence has no numbers at all, only words.`

// BenchmarkNormalize measures normalization of a text dense with written
// forms; docs/reading.md compares it with espeak-ng's synthesis of the
// same text.
func BenchmarkNormalize(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		Normalize(benchText, "en-us")
	}
}
