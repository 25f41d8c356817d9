package captions

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/tts"
)

// FuzzCues: whatever the text and the words' places in it, every word is
// in one cue, in order, within the cue's times, and the files parse.
func FuzzCues(f *testing.F) {
	f.Add(`"Wait," said Ann. It's late! Go?`, []byte{1, 5, 9, 200, 3, 0, 7})
	f.Add("a\u00a0b <c> --> d\n\ne", []byte{0, 0, 255, 1})
	f.Fuzz(func(t *testing.T, text string, spans []byte) {
		// Words from spans: each byte pair a start and a length in
		// characters (some out of the text), times rising.
		var words []tts.Word
		at := time.Duration(0)
		for i := 0; i+1 < len(spans); i += 2 {
			start, n := int(spans[i]), int(spans[i+1]%12)
			d := time.Duration(spans[i+1]) * 7 * time.Millisecond
			words = append(words, tts.Word{Word: "w" + string(rune('a'+i%26)), Start: at, End: at + d, CharStart: start, CharEnd: start + n})
			at += d + time.Duration(spans[i])*3*time.Millisecond
		}
		cues := Options{LineChars: 20, Lines: 2, MaxDuration: time.Second}.Cues(text, words)
		k := 0
		for _, c := range cues {
			// Each word is one token (its name holds no space), shown
			// with the punctuation around it.
			fields := strings.Fields(c.Text())
			n := len(fields)
			if n == 0 || len(c.Lines) > 2 || k+n > len(words) || c.Start != words[k].Start || c.End != words[k+n-1].End {
				t.Fatalf("cue %+v at word %d of %d", c, k, len(words))
			}
			for _, l := range c.Lines {
				if strings.TrimSpace(l) == "" {
					t.Fatalf("cue %+v has an empty line", c)
				}
			}
			for _, fl := range fields {
				if !strings.Contains(fl, words[k].Word) {
					t.Fatalf("cue %+v: %q is not the word %q", c, fl, words[k].Word)
				}
				k++
			}
		}
		if k != len(words) {
			t.Fatalf("the cues hold %d words of %d", k, len(words))
		}
		for _, fm := range []Format{SRT, WebVTT} {
			var buf bytes.Buffer
			if err := write(&buf, fm, cues); err != nil {
				t.Fatal(err)
			}
			if got := parseSubtitles(t, fm, buf.String()); len(got) != len(cues) {
				t.Fatalf("%v: %d cues read back of %d", fm, len(got), len(cues))
			}
		}
	})
}
