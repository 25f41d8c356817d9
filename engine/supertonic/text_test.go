package supertonic

import (
	"slices"
	"strings"
	"testing"
)

func TestPrepare(t *testing.T) {
	for _, tc := range []struct{ in, lang, want string }{
		{"Hello world", "en", "<en>Hello world.</en>"},
		{"Hello world", "", "Hello world."},
		{"  Is it?  ", "de", "<de>Is it?</de>"},
		{"A — B – C", "en", "<en>A - B - C.</en>"},
		{"snake_case [x] a|b c/d #1", "en", "<en>snake case x a b c d 1.</en>"},
		{"mail me@home", "en", "<en>mail me at home.</en>"},
		{"fruit, e.g., apples", "en", "<en>fruit, for example, apples.</en>"},
		{"that is i.e., this", "en", "<en>that is that is, this.</en>"},
		{"Wait , what ?", "en", "<en>Wait, what?</en>"},
		{"\u201CQuoted\u201D", "en", `<en>"Quoted"</en>`},
		{"it\u2019s fine", "en", "<en>it's fine.</en>"},
		{"say \"\"this\"\"", "en", `<en>say "this"</en>`},
		{"love ♥ you 😀 now", "en", "<en>love you now.</en>"},
		{"a\t\n  b", "en", "<en>a b.</en>"},
		{"Ende…", "de", "<de>Ende…</de>"},
		{"終わり。", "ja", "<ja>終わり。</ja>"},
		{"(aside)", "en", "<en>(aside)</en>"},
		{"   ", "en", "<en></en>"},
	} {
		if got := prepare(tc.in, tc.lang); got != tc.want {
			t.Errorf("prepare(%q, %q) = %q, want %q", tc.in, tc.lang, got, tc.want)
		}
	}
}

func TestCodePoints(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint16
	}{
		{"ab", []uint16{'a', 'b'}},
		// Precomposed letters are decomposed (NFKD): ă is a + breve.
		{"ă", []uint16{'a', 0x0306}},
		{"ﬁ", []uint16{'f', 'i'}},
		{"²", []uint16{'2'}},
		// Hangul syllables become their jamo, with or without a final.
		{"한", []uint16{0x1112, 0x1161, 0x11AB}},
		{"가", []uint16{0x1100, 0x1161}},
		// Beyond the Basic Multilingual Plane: dropped.
		{"a😀b", []uint16{'a', 'b'}},
		// A byte that starts nothing is skipped.
		{"a\x80b", []uint16{'a', 'b'}},
	} {
		if got := codePoints(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("codePoints(%q) = %U, want %U", tc.in, got, tc.want)
		}
	}
}

func TestChunks(t *testing.T) {
	long := strings.Repeat("word ", 70) // 350 characters
	for _, tc := range []struct {
		name, in string
		max      int
		want     []string
	}{
		{"one", "Hello world.", 300, []string{"Hello world."}},
		// As in sherpa-onnx, sentences joined after a mark get no space.
		{"joined", "One. Two! Three?", 300, []string{"One.Two!Three?"}},
		{"over the limit", "One two. Three four.", 12, []string{"One two.", "Three four."}},
		{"paragraphs", "First line\nsame paragraph.\n\nSecond.", 300, []string{"First line same paragraph.Second."}},
		{"long", long, 300, []string{strings.TrimSpace(strings.Repeat("word ", 60)), strings.TrimSpace(strings.Repeat("word ", 10))}},
		{"clause", "aaaa, bbbb, cccc", 11, []string{"aaaa, bbbb,", "cccc"}},
		{"no space", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"cjk", "今日は。良い天気。", 300, []string{"今日は。良い天気。"}},
		{"blank", "  \n ", 300, nil},
	} {
		if got := chunks(tc.in, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("%s: chunks(%q, %d) = %q, want %q", tc.name, tc.in, tc.max, got, tc.want)
		}
	}
}
