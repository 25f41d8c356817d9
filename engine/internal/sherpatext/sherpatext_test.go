package sherpatext

import (
	"slices"
	"strings"
	"testing"
)

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
		if got := Chunks(tc.in, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Chunks(%q, %d) = %q, want %q", tc.name, tc.in, tc.max, got, tc.want)
		}
	}
}
