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
