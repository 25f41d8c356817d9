package vendordoor

import "testing"

// TestBreaks: the vendors' break tags, in their spellings, become voxkit's
// pause tags; other text, and tags that are not breaks of a time, stay.
func TestBreaks(t *testing.T) {
	for in, want := range map[string]string{
		`Hi. <break time="1.5s" /> There.`:   `Hi. <|pause:1500ms|> There.`,
		`Hi.<break time='250ms'/>There.`:     `Hi.<|pause:250ms|>There.`,
		`<BREAK TIME="2S">`:                  `<|pause:2000ms|>`,
		`a <break time = " 1 s "/> b`:        `a <|pause:1000ms|> b`,
		`<break strength="strong"/>`:         `<break strength="strong"/>`,
		`<break time="soon"/> and 3 < 4 > 2`: `<break time="soon"/> and 3 < 4 > 2`,
	} {
		if got := Breaks(in); got != want {
			t.Errorf("Breaks(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBreakStream: a break tag in pieces is held until whole, then
// rewritten; a '<' that begins no break tag, and anything at a flush or
// the end, is let go.
func TestBreakStream(t *testing.T) {
	var b BreakStream
	var got []string
	for _, p := range []struct {
		piece string
		final bool
	}{{"a <bre", false}, {`ak time="1s`, false}, {`"/> b`, false}, {"3 <", false}, {" 4 <break", false}, {"", true}} {
		got = append(got, b.Text(p.piece, p.final))
	}
	want := []string{"a ", "", "<|pause:1000ms|> b", "3 ", "< 4 ", "<break"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pieces gave %q, want %q", got, want)
			break
		}
	}
}
