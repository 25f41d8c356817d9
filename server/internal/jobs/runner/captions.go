package runner

import (
	"fmt"
	"strings"
	"time"
)

// The captions of a job, from its word timings: cues of at most
// cueWords words and cueLength, never across chapters.
//
// TODO(media): build them with package internal/captions (SRT and WebVTT
// from word timings) once it is merged, and tag the mp3 with its
// chapters (CHAP/CTOC, internal/codec/id3) as encodeFile's head.
const (
	cueWords  = 12
	cueLength = 5 * time.Second
)

type cue struct {
	start, end float64
	text       string
}

func cues(t Timestamps) []cue {
	var out []cue
	var words []string
	var c cue
	chapter := 0
	flush := func() {
		if len(words) > 0 {
			c.text = strings.Join(words, " ")
			out = append(out, c)
		}
		words = words[:0]
	}
	for _, w := range t.Words {
		if len(words) > 0 && (w.Chapter != chapter || len(words) >= cueWords || w.End-c.start > cueLength.Seconds()) {
			flush()
		}
		if len(words) == 0 {
			c = cue{start: w.Start}
			chapter = w.Chapter
		}
		words = append(words, w.Word)
		c.end = w.End
	}
	flush()
	return out
}

// stamp writes seconds as hh:mm:ss with sep before the milliseconds.
func stamp(sec float64, sep string) string {
	ms := int64(sec*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

func captionsSRT(t Timestamps) []byte {
	var b strings.Builder
	for i, c := range cues(t) {
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, stamp(c.start, ","), stamp(c.end, ","), c.text)
	}
	return []byte(b.String())
}

func captionsVTT(t Timestamps) []byte {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	for _, c := range cues(t) {
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", stamp(c.start, "."), stamp(c.end, "."), strings.ReplaceAll(c.text, "-->", "->"))
	}
	return []byte(b.String())
}
