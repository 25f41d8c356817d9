package normalize

import "testing"

// TestDrawnSymbols: letters and digits drawn as symbols are read as the
// letters and digits they draw, in every language, and the rules read
// what they draw; other compatibility characters stay as written.
func TestDrawnSymbols(t *testing.T) {
	for _, c := range []struct{ lang, in, want string }{
		{"en-us", "ⓐ ⓑ ⓒ", "a b c"},
		{"en-us", "Ⓐ 🅐 🄰 ⒜", "A A A (a)"},
		{"en-us", "① ⑴ ⒈ ⓫ ❶ ⓿", "one (one) one. eleven one zero"},
		{"en-us", "Step ①②③ done", "Step one two three done"},
		{"en-us", "ⓐⓑⓒ", "a b c"},
		{"en-us", "Ｈｅｌｌｏ ＷＯＲＬＤ １２", "Hello WORLD twelve"},
		{"en-us", "𝐇𝐞𝐥𝐥𝐨 𝟏𝟐", "Hello twelve"},
		{"en-us", "Chapter Ⅳ begins.", "Chapter four begins."},
		{"en-us", "Pay $９.５０ now", "Pay nine dollars and fifty cents now"},
		{"en-us", "ⓐ.ⓐ.", "a.a."},
		{"en-us", "x⑳y", "x twenty y"},
		{"en-us", "<|pause:①|> ①", "<|pause:①|> one"},
		{"ja", "２０２６年 ㉑", "2026年 21"},
		{"xx", "ⓐ", "a"},
		{"en-us", "🅰️ 🅱 ﬁne x² ㎞ ℃ ½", "🅰️ 🅱 ﬁne x² ㎞ ℃ ½"},
	} {
		got := Normalize(c.in, c.lang)
		if got.Text != c.want {
			t.Errorf("%s %q: got %q, want %q", c.lang, c.in, got.Text, c.want)
		}
		checkSpans(t, c.in, got)
	}
}

// TestDrawnSymbolsMapBack: what is said for a symbol maps back onto the
// symbol as written, whole.
func TestDrawnSymbolsMapBack(t *testing.T) {
	checkSource(t, "Pick ⓑ or ⑴, then ＨＥＬＬＯ ５ km.", []said{
		{"Pick", "Pick"}, {"b", "ⓑ"}, {"or", "or"}, {"(one)", "⑴"}, {"one", "⑴"}, {"then", "then"},
		{"HELLO", "ＨＥＬＬＯ"}, {"LL", "ＬＬ"}, {"five kilometers", "５ km"},
	})
}
