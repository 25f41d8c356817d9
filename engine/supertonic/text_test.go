package supertonic

import (
	"slices"
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
