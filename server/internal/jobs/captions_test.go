package jobs_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// parsedCue is a cue read back from an SRT or WebVTT file.
type parsedCue struct {
	start, end float64
	lines      []string
}

// parseCaptions reads the cues of an SRT (sep ',') or WebVTT (sep '.')
// file.
func parseCaptions(t *testing.T, data string, vtt bool) []parsedCue {
	t.Helper()
	seconds := func(s string) float64 {
		s = strings.Replace(s, ",", ".", 1)
		var h, m int
		var sec float64
		p := strings.Split(s, ":")
		if len(p) != 3 {
			t.Fatalf("time %q", s)
		}
		h, _ = strconv.Atoi(p[0])
		m, _ = strconv.Atoi(p[1])
		sec, _ = strconv.ParseFloat(p[2], 64)
		return float64(h*3600+m*60) + sec
	}
	blocks := strings.Split(strings.TrimSpace(data), "\n\n")
	if vtt {
		if blocks[0] != "WEBVTT" {
			t.Fatalf("VTT header %q", blocks[0])
		}
		blocks = blocks[1:]
	}
	var out []parsedCue
	for i, b := range blocks {
		lines := strings.Split(b, "\n")
		if !vtt {
			if lines[0] != strconv.Itoa(i+1) {
				t.Fatalf("SRT cue %d numbered %q", i+1, lines[0])
			}
			lines = lines[1:]
		}
		from, to, ok := strings.Cut(lines[0], " --> ")
		if !ok || len(lines) < 2 {
			t.Fatalf("cue %q", b)
		}
		out = append(out, parsedCue{seconds(from), seconds(to), lines[1:]})
	}
	return out
}

// A job's captions, read back: each cue shows the words timestamps.json
// times, in order, from its first word's start to its last's end (within
// 50 ms), within one chapter, on at most two lines of 42 characters.
// Under -short the chapters are half as long (still a hundred words).
func TestJobCaptions(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{})
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "wav", "chapters": book(2, shortBook(500, 250)), "captions": []string{"srt", "vtt"}})
	waitStatus(t, e, j.ID, store.JobSucceeded)
	_, raw := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/timestamps.json")
	var ts runner.Timestamps
	if err := json.Unmarshal(raw, &ts); err != nil || len(ts.Words) < 50 {
		t.Fatalf("timestamps: %v, %d words", err, len(ts.Words))
	}
	checkCaptions(t, e, j.ID, ts.Words)
}

// checkCaptions reads the job's SRT and WebVTT captions and holds each
// to the words timed (checkCues).
func checkCaptions(t *testing.T, e *testserver.Env, id string, words []runner.Timing) {
	t.Helper()
	for _, f := range []struct {
		name string
		vtt  bool
	}{{"captions.srt", false}, {"captions.vtt", true}} {
		_, b := fetch(t, e, e.Key, "/v1/audio/jobs/"+id+"/"+f.name)
		checkCues(t, f.name, parseCaptions(t, string(b), f.vtt), words)
	}
}

// checkCues holds cues to the words timed: each cue shows the words
// timestamps.json times, in order, from its first word's start to its
// last's end (within 50 ms), within one chapter, on at most two lines of
// 42 characters; together they show every word.
func checkCues(t *testing.T, name string, cues []parsedCue, words []runner.Timing) {
	t.Helper()
	w := 0
	for i, c := range cues {
		// The cue's words are the timed words its letters and digits
		// spell, in order.
		rest, from := alnum(strings.Join(c.lines, " ")), w
		for rest != "" && w < len(words) && strings.HasPrefix(rest, alnum(words[w].Word)) {
			rest = rest[len(alnum(words[w].Word)):]
			w++
		}
		if rest != "" || w == from {
			t.Fatalf("%s cue %d %q: not the timed words from %d (%q left)", name, i+1, c.lines, from, rest)
		}
		first, last := words[from], words[w-1]
		if math.Abs(c.start-first.Start) > 0.05 || math.Abs(c.end-last.End) > 0.05 {
			t.Errorf("%s cue %d %q: %.3f-%.3f, its words %q %.3f to %q %.3f", name, i+1, c.lines, c.start, c.end, first.Word, first.Start, last.Word, last.End)
		}
		if first.Chapter != last.Chapter {
			t.Errorf("%s cue %d %q runs from chapter %d into %d", name, i+1, c.lines, first.Chapter, last.Chapter)
		}
		if len(c.lines) > 2 {
			t.Errorf("%s cue %d: %d lines", name, i+1, len(c.lines))
		}
		for _, l := range c.lines {
			if utf8.RuneCountInString(l) > 42 && strings.Contains(l, " ") {
				t.Errorf("%s cue %d: line %q longer than 42 characters", name, i+1, l)
			}
		}
	}
	if w != len(words) {
		t.Errorf("%s: cues show %d words of %d", name, w, len(words))
	}
}

// alnum keeps the letters and digits of s, lower-cased.
func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// A job's mp3 opens with an ID3 tag of its chapters: ffprobe reads their
// titles (an untitled one is "Chapter N") and times, within 10 ms of
// timestamps.json's; byte ranges of the file still answer. Under -short
// the chapters are a third as long (mp3 encoding was most of its time).
func TestJobChaptersTag(t *testing.T) {
	t.Parallel()
	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Skip("no ffprobe")
	}
	e := jobEnv(t, "", server.JobOptions{})
	chs := book(3, shortBook(300, 100))
	chs[1]["title"] = ""
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "mp3", "chapters": chs})
	waitStatus(t, e, j.ID, store.JobSucceeded)
	_, raw := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/timestamps.json")
	var ts runner.Timestamps
	if err := json.Unmarshal(raw, &ts); err != nil || len(ts.Chapters) != 3 {
		t.Fatalf("timestamps: %v, %d chapters", err, len(ts.Chapters))
	}
	res, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio")
	if res.StatusCode != http.StatusOK || string(whole[:3]) != "ID3" {
		t.Fatalf("audio: %d, opens %q", res.StatusCode, whole[:min(3, len(whole))])
	}
	path := filepath.Join(t.TempDir(), "book.mp3")
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ffprobe, "-v", "error", "-show_chapters", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var probe struct {
		Chapters []struct {
			Start string            `json:"start_time"`
			End   string            `json:"end_time"`
			Tags  map[string]string `json:"tags"`
		} `json:"chapters"`
	}
	if err := json.Unmarshal(out, &probe); err != nil || len(probe.Chapters) != 3 {
		t.Fatalf("ffprobe: %v, %s", err, out)
	}
	for i, c := range probe.Chapters {
		want := ts.Chapters[i].Title
		if want == "" {
			want = fmt.Sprintf("Chapter %d", i+1)
		}
		start, _ := strconv.ParseFloat(c.Start, 64)
		end, _ := strconv.ParseFloat(c.End, 64)
		if c.Tags["title"] != want || math.Abs(start-ts.Chapters[i].Start) > 0.01 || math.Abs(end-ts.Chapters[i].End) > 0.01 {
			t.Errorf("chapter %d: %q %.3f-%.3f, timestamps.json %q %.3f-%.3f", i+1, c.Tags["title"], start, end, want, ts.Chapters[i].Start, ts.Chapters[i].End)
		}
	}
	if end := ts.Chapters[2].End; end < 5 {
		t.Errorf("the book ends at %.3f s", end)
	}
	res, part := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio", "Range", "bytes=0-99")
	if res.StatusCode != http.StatusPartialContent || string(part) != string(whole[:100]) {
		t.Errorf("range: %d, %d bytes", res.StatusCode, len(part))
	}
}
