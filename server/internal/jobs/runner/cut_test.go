package runner

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/internal/captions"
	"github.com/voxkit/voxkit/internal/codec/id3"
	"github.com/voxkit/voxkit/server/store"
)

func TestCut(t *testing.T) {
	para := strings.Repeat("One sentence here. ", 5) // 95 characters
	for _, c := range []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"fits", "Short text.", 100, []string{"Short text."}},
		{"paragraphs", para + "\n\n" + para + "\n\n" + para, 200, []string{para + "\n\n" + strings.TrimSpace(para), strings.TrimSpace(para)}},
		{"sentences", "Aaaa bbbb. Cccc dddd. Eeee ffff.", 25, []string{"Aaaa bbbb. Cccc dddd.", "Eeee ffff."}},
		{"spaces", "aaaa bbbb cccc dddd eeee", 12, []string{"aaaa bbbb", "cccc dddd", "eeee"}},
		{"one long word", strings.Repeat("x", 25), 10, []string{strings.Repeat("x", 10), strings.Repeat("x", 10), strings.Repeat("x", 5)}},
		{"characters, not bytes", strings.Repeat("é", 15), 10, []string{strings.Repeat("é", 10), strings.Repeat("é", 5)}},
		{"blank", " \n\n ", 10, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Cut(c.text, c.max)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("Cut(%q, %d) = %q, want %q", c.text, c.max, got, c.want)
			}
			for _, s := range got {
				if n := utf8.RuneCountInString(s); n > c.max {
					t.Errorf("segment of %d characters, max %d", n, c.max)
				}
			}
		})
	}
}

// A segment's cues show the text's punctuation with the words and start
// where the segment does in the whole audio.
func TestSegmentCues(t *testing.T) {
	text := `"Hello there." Next`
	words := []word{{W: "Hello", S: 100, E: 500, C: 1, D: 6}, {W: "there", S: 500, E: 1000, C: 7, D: 12}, {W: "Next", S: 1200, E: 1500, C: 15, D: 19}}
	var b strings.Builder
	for _, c := range segmentCues(text, words, time.Hour) {
		fmt.Fprintf(&b, "%v-%v %s|", c.Start, c.End, c.Text())
	}
	if got, want := b.String(), `1h0m0.1s-1h0m1s "Hello there."|1h0m1.2s-1h0m1.5s Next|`; got != want {
		t.Errorf("cues %s, want %s", got, want)
	}
	if got, want := string(captionFile(segmentCues(text, words, 0), captions.SRT)), "1\n00:00:00,100 --> 00:00:01,000\n\"Hello there.\"\n\n2\n00:00:01,200 --> 00:00:01,500\nNext\n\n"; got != want {
		t.Errorf("SRT %q, want %q", got, want)
	}
}

// A job's chapters are timed by their segments' samples, and the mp3's tag
// of the most chapters a job holds (1000), each with a long title, stays
// within one part of the file.
func TestChapterMarks(t *testing.T) {
	spec := Spec{Chapters: make([]string, 1000)}
	var segs []store.JobSegment
	for i := range spec.Chapters {
		spec.Chapters[i] = strings.Repeat("é", 5000)
		// Chapter i lasts i+1 seconds, in two segments.
		for range 2 {
			segs = append(segs, store.JobSegment{Seq: len(segs), Chapter: i, Rate: 24000, Samples: 12000 * (i + 1)})
		}
	}
	spec.Chapters[3] = " "
	marks := chapterMarks(spec, segs)
	if marks[3].Title != "Chapter 4" || utf8.RuneCountInString(marks[0].Title) != maxMarkTitle {
		t.Errorf("titles %q, %d characters", marks[3].Title, utf8.RuneCountInString(marks[0].Title))
	}
	for _, i := range []int{0, 1, 2, 999} {
		start := time.Duration(i*(i+1)/2) * time.Second // 1 + 2 + … + i seconds
		if marks[i].Start != start || marks[i].End != start+time.Duration(i+1)*time.Second {
			t.Errorf("chapter %d runs %v to %v, want %v to %v", i+1, marks[i].Start, marks[i].End, start, start+time.Duration(i+1)*time.Second)
		}
	}
	if got := chapterComments(marks)[2:4]; got[0] != "CHAPTER002=00:00:01.000" || !strings.HasPrefix(got[1], "CHAPTER002NAME=éé") {
		t.Errorf("comments %q", got)
	}
	b, err := id3.Tag{Chapters: marks}.Marshal()
	if err != nil || len(b) >= PartSize {
		t.Errorf("tag of %d bytes (part %d): %v", len(b), PartSize, err)
	}
}

// Carry opens again what is open at a segment's end; the instructions'
// styles, which every segment opens anyway, are reset first unless they
// are exactly what is open.
func TestCarry(t *testing.T) {
	for _, c := range []struct {
		open, instructions []string
		want               string
	}{
		{nil, nil, ""},
		{[]string{"<|whisper|>", "<|rate:2|>"}, nil, "<|whisper|><|rate:2|>"},
		{[]string{"<|slow|>"}, []string{"<|slow|>"}, ""},
		{nil, []string{"<|slow|>"}, "<|reset|>"},
		{[]string{"<|slow|>", "<|loud|>"}, []string{"<|slow|>"}, "<|reset|><|slow|><|loud|>"},
	} {
		if got := Carry(c.open, c.instructions); got != c.want {
			t.Errorf("Carry(%q, %q) = %q, want %q", c.open, c.instructions, got, c.want)
		}
	}
}
