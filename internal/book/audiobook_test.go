package book_test

// An audiobook made as the jobs door makes one, from the packages it
// calls: a Markdown file and an EPUB parsed into chapters, each chapter
// spoken (espeak-ng), the whole book encoded as one mp3 stream with an
// ID3 tag of its chapters in front, and captions timed on the whole.
// ffprobe reads the chapters' titles and times back.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/mp3"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/book"
	"github.com/voxkit/voxkit/internal/captions"
	"github.com/voxkit/voxkit/internal/codec/id3"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

const story = `---
title: The Harbour
---
# The Arrival

On 3 May 1999 the ferry came in at 4:30 PM. "Is this the harbour?" asked Ann.
"It is," said the keeper, "and you are late." She paid **$12.50** for the room.

# The Storm

The storm began at dusk. By 11 PM the wind had reached 90 km/h, and nobody slept.

## The Morning After

At dawn the sea was calm again; [the boats](https://example.com/boats) were counted: 14 of 15.
`

func TestAudiobook(t *testing.T) {
	if testing.Short() {
		t.Skip("speaks a short book")
	}
	audiotest.Require(t, "ffprobe", "ffmpeg", "pandoc")
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	dir := t.TempDir()
	md := filepath.Join(dir, "harbour.md")
	os.WriteFile(md, []byte(story), 0o644)
	if out, err := exec.Command("pandoc", md, "-o", filepath.Join(dir, "harbour.epub")).CombinedOutput(); err != nil {
		t.Fatalf("pandoc: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		file   string
		titles []string
	}{
		{"harbour.md", []string{"The Arrival", "The Storm", "The Morning After"}},
		// pandoc's EPUB has a title page, with no entry in its table of
		// contents: a chapter without a title (the door names it).
		{"harbour.epub", []string{"", "The Arrival", "The Storm", "The Morning After"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			chapters, err := book.Parse(tc.file, "", data)
			if err != nil {
				t.Fatal(err)
			}
			speakBook(t, synth, chapters, tc.titles)
		})
	}
}

// speakBook speaks chapters into one mp3 file with their ID3 chapters
// and checks what ffprobe and ffmpeg read of it.
func speakBook(t *testing.T, synth *tts.Synthesizer, chapters []book.Chapter, titles []string) {
	if len(chapters) != len(titles) {
		t.Fatalf("chapters %q", chapters)
	}
	const rate = 24000
	var (
		mp3   bytes.Buffer
		tag   id3.Tag
		cues  []captions.Cue
		total time.Duration
	)
	enc, err := encode.NewEncoder(&mp3, encode.Format{Name: "mp3", SampleRate: rate})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range chapters {
		if c.Title != titles[i] {
			t.Errorf("chapter %d is %q, want %q", i, c.Title, titles[i])
		}
		var words []tts.Word
		pcm, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: c.Text,
			Format: encode.Format{Name: "pcm", SampleRate: rate}, OnSentence: func(d tts.SentenceDone) { words = append(words, d.Words...) }})
		if err != nil {
			t.Fatal(err)
		}
		samples := make([]int16, len(pcm)/2)
		binary.Read(bytes.NewReader(pcm), binary.LittleEndian, samples)
		if err := enc.Encode(samples); err != nil {
			t.Fatal(err)
		}
		length := time.Duration(len(samples)) * time.Second / rate
		tag.Chapters = append(tag.Chapters, id3.Chapter{Title: c.Title, Start: total, End: total + length})
		for _, cue := range captions.Cues(c.Text, words) {
			cues = append(cues, cue.Shift(total))
		}
		total += length
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "book.mp3")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := id3.Encode(f, tag); err != nil {
		t.Fatal(err)
	}
	f.Write(mp3.Bytes())
	f.Close()

	out, err := exec.Command("ffprobe", "-v", "error", "-show_chapters", "-of", "json", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Chapters []struct {
			Start string            `json:"start_time"`
			End   string            `json:"end_time"`
			Tags  map[string]string `json:"tags"`
		} `json:"chapters"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		t.Fatal(err)
	}
	if len(probe.Chapters) != len(titles) {
		t.Fatalf("ffprobe reads %d chapters", len(probe.Chapters))
	}
	for i, c := range probe.Chapters {
		end, _ := strconv.ParseFloat(c.End, 64)
		want := titles[i]
		if want == "" {
			want = "chp" + strconv.Itoa(i) // FFmpeg's name for a chapter without a title
		}
		if c.Tags["title"] != want || time.Duration(end*float64(time.Second)).Round(time.Millisecond) != tag.Chapters[i].End.Truncate(time.Millisecond) {
			t.Errorf("chapter %d: %q ends at %s, want %q at %v", i, c.Tags["title"], c.End, want, tag.Chapters[i].End)
		}
	}
	// The file decodes to as long as the chapters together.
	decoded := time.Duration(len(audiotest.Decode(t, path, rate))) * time.Second / rate
	if diff := decoded - total; diff.Abs() > 10*time.Millisecond {
		t.Errorf("the file decodes to %v, its chapters last %v", decoded, total)
	}

	var srt bytes.Buffer
	if err := captions.WriteSRT(&srt, cues); err != nil {
		t.Fatal(err)
	}
	if last := cues[len(cues)-1]; last.End > total || !strings.Contains(srt.String(), `Is this the harbour?`) || !strings.Contains(srt.String(), `asked Ann.`) {
		t.Errorf("captions end at %v of %v:\n%s", last.End, total, srt.String())
	}
}
