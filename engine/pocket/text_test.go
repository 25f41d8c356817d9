package pocket

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine/internal/sherpatext"
)

func TestPieces(t *testing.T) {
	long := strings.Repeat("word ", 50) // 250 characters
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  \n ", nil},
		{"Hello world", []string{"Hello world"}},
		// Short sentences are joined, with no space after a clause mark.
		{"Hi. Go on. Stop! Yes? This one is long enough.", []string{"Hi.Go on.Stop!Yes?This one is long enough."}},
		{"The first sentence is long enough to stand alone. And so is the second one, it is.",
			[]string{"The first sentence is long enough to stand alone.", "And so is the second one, it is."}},
		// Words are joined with a space when nothing parts them.
		{"Hi\nthere. A longer sentence follows here.", []string{"Hi\nthere.A longer sentence follows here."}},
		{"你好。世界。", []string{"你好。世界。"}},
		// Long pieces are cut at their last space within 200 characters.
		{long, []string{strings.TrimSpace(long[:200]), strings.TrimSpace(long[200:])}},
		{strings.Repeat("x", 450), []string{strings.Repeat("x", 200), strings.Repeat("x", 200), strings.Repeat("x", 50)}},
	}
	for _, tc := range tests {
		if got := pieces(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("pieces(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestLocate(t *testing.T) {
	text := " Hi. Go on.  This one is long enough to end it. Next one is also long enough! "
	ps := pieces(text)
	spans := sherpatext.Locate(text, ps)
	if len(spans) != 2 {
		t.Fatalf("spans %+v", spans)
	}
	if got := text[spans[0].Start:spans[0].End]; got != "Hi. Go on.  This one is long enough to end it." {
		t.Errorf("first piece from %q", got)
	}
	if got := text[spans[1].Start:spans[1].End]; got != "Next one is also long enough!" {
		t.Errorf("second piece from %q", got)
	}
	ws := sherpatext.Words(text, spans[0].Start, spans[0].End)
	if len(ws) != 11 || text[ws[0][0]:ws[0][1]] != "Hi." || text[ws[10][0]:ws[10][1]] != "it." {
		t.Errorf("words %v", ws)
	}
}

func TestTokenizer(t *testing.T) {
	dir := filepath.Join(voicesDir(t), testModel)
	tok, err := loadTokenizer(filepath.Join(dir, "vocab.json"), filepath.Join(dir, "token_scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int64{}
	if err := readJSON(filepath.Join(dir, "vocab.json"), &vocab); err != nil {
		t.Fatal(err)
	}
	ids := func(pieces ...string) []int64 {
		var out []int64
		for _, p := range pieces {
			id, ok := vocab[p]
			if !ok {
				t.Fatalf("no piece %q", p)
			}
			out = append(out, id)
		}
		return out
	}
	tests := []struct {
		text string
		want []int64
	}{
		// "▁the" outscores "▁" + "th" + "e" and the like.
		{"the", ids("▁the")},
		{" the", ids("▁the")},
		{"the cat", ids("▁the", "▁", "c", "at")},
		// No piece starts with "é" (0xC3 0xA9): byte pieces.
		{"é", ids("▁", "<0xC3>", "<0xA9>")},
	}
	for _, tc := range tests {
		got, err := tok.encode(tc.text)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("encode(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
	delete(vocab, "<0xC3>")
	missing := &tokenizer{root: tok.root, bytes: tok.bytes}
	missing.bytes[0xC3] = piece{id: -1, score: noScore}
	if _, err := missing.encode("é"); err == nil {
		t.Error("a byte with no piece: no error")
	}
}
