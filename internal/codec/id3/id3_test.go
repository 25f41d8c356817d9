package id3

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/mp3"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// mp3 encodes seconds of a gliding tone with voxkit's mp3 encoder.
func mp3(t *testing.T, seconds int) []byte {
	t.Helper()
	pcm := make([]int16, 24000*seconds)
	for i := range pcm {
		f := 200 + float64(i)/float64(len(pcm))*600
		pcm[i] = int16(6000 * math.Sin(2*math.Pi*f*float64(i)/24000))
	}
	return audiotest.Encoded(t, encode.Format{Name: "mp3", SampleRate: 24000}, pcm)
}

type probe struct {
	Chapters []struct {
		StartTime string            `json:"start_time"`
		EndTime   string            `json:"end_time"`
		Tags      map[string]string `json:"tags"`
	} `json:"chapters"`
	Format struct {
		Duration string            `json:"duration"`
		Tags     map[string]string `json:"tags"`
	} `json:"format"`
}

func ffprobe(t *testing.T, path string) probe {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_chapters", "-show_format", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p probe
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("ffprobe's json: %v\n%s", err, out)
	}
	return p
}

func seconds(t *testing.T, s string) time.Duration {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return time.Duration(f * float64(time.Second))
}

// TestFFprobe: a tag before an mp3 of voxkit's encoder gives ffprobe the
// chapters, their times and titles (ISO-8859-1, and Unicode beyond it),
// and the audio decodes as it does without the tag.
func TestFFprobe(t *testing.T) {
	audiotest.Require(t, "ffprobe", "ffmpeg")
	dir := t.TempDir()
	audio := mp3(t, 12)
	plain := filepath.Join(dir, "plain.mp3")
	os.WriteFile(plain, audio, 0o644)
	want := audiotest.Decode(t, plain, 24000)
	chapters := []Chapter{
		{Title: "Chapter One", Start: 0, End: 4321 * time.Millisecond},
		{Title: "Ça va — 第二章 🎧", Start: 4321 * time.Millisecond, End: 9 * time.Second},
		{Title: "", Start: 9 * time.Second, End: 12 * time.Second},
	}
	for _, version := range []int{3, 4} {
		t.Run("2."+strconv.Itoa(version), func(t *testing.T) {
			tag, err := Tag{Version: version, Title: "The Lighthouse", Chapters: chapters}.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "tagged"+strconv.Itoa(version)+".mp3")
			os.WriteFile(path, append(tag, audio...), 0o644)
			p := ffprobe(t, path)
			if len(p.Chapters) != len(chapters) {
				t.Fatalf("ffprobe reads %d chapters, want %d", len(p.Chapters), len(chapters))
			}
			for i, c := range chapters {
				got := p.Chapters[i]
				if d := (seconds(t, got.StartTime) - c.Start).Abs(); d > time.Millisecond {
					t.Errorf("chapter %d starts at %s, want %v", i, got.StartTime, c.Start)
				}
				if d := (seconds(t, got.EndTime) - c.End).Abs(); d > time.Millisecond {
					t.Errorf("chapter %d ends at %s, want %v", i, got.EndTime, c.End)
				}
				title := c.Title
				if title == "" {
					title = "chp" + strconv.Itoa(i) // FFmpeg names an untitled chapter by its element id
				}
				if got.Tags["title"] != title {
					t.Errorf("chapter %d is titled %q, want %q", i, got.Tags["title"], title)
				}
			}
			if p.Format.Tags["title"] != "The Lighthouse" {
				t.Errorf("the file's title is %q", p.Format.Tags["title"])
			}
			if d := seconds(t, p.Format.Duration) - 12*time.Second; d.Abs() > 100*time.Millisecond {
				t.Errorf("the file lasts %s", p.Format.Duration)
			}
			if got := audiotest.Decode(t, path, 24000); !slices.Equal(got, want) {
				t.Errorf("with the tag, ffmpeg decodes %d bytes, without %d (or other samples)", len(got), len(want))
			}
		})
	}
}

// TestManyChapters: past 255 chapters the table of contents is a CTOC of
// CTOCs, and ffprobe still reads every chapter.
func TestManyChapters(t *testing.T) {
	var chapters []Chapter
	for i := range 600 {
		chapters = append(chapters, Chapter{Title: "Part " + strconv.Itoa(i+1), Start: time.Duration(i) * 10 * time.Millisecond, End: time.Duration(i+1) * 10 * time.Millisecond})
	}
	tag, err := Tag{Chapters: chapters}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	frames := parse(t, tag)
	var tocs []string
	for _, f := range frames {
		if f.id == "CTOC" {
			tocs = append(tocs, f.toc)
		}
	}
	if strings.Join(tocs, "\n") != "toc top 3: toc1 toc2 toc3\ntoc1 255: chp0…chp254\ntoc2 255: chp255…chp509\ntoc3 90: chp510…chp599" {
		t.Errorf("tables of contents:\n%s", strings.Join(tocs, "\n"))
	}
	audiotest.Require(t, "ffprobe", "ffmpeg")
	path := filepath.Join(t.TempDir(), "many.mp3")
	os.WriteFile(path, append(tag, mp3(t, 6)...), 0o644)
	p := ffprobe(t, path)
	if len(p.Chapters) != 600 || p.Chapters[599].Tags["title"] != "Part 600" {
		t.Errorf("ffprobe reads %d chapters", len(p.Chapters))
	}
}

type frame struct {
	id  string
	toc string // a CTOC's id, flags and children, in short
}

// parse reads an ID3v2.3 tag's frames strictly: the header's size is the
// frames' sizes' sum.
func parse(t *testing.T, tag []byte) []frame {
	t.Helper()
	if string(tag[:5]) != "ID3\x03\x00" || tag[5] != 0 {
		t.Fatalf("header % x", tag[:6])
	}
	size := int(tag[6])<<21 | int(tag[7])<<14 | int(tag[8])<<7 | int(tag[9])
	body := tag[10:]
	if size != len(body) {
		t.Fatalf("the header says %d bytes, %d follow", size, len(body))
	}
	var frames []frame
	for len(body) > 0 {
		if len(body) < 10 {
			t.Fatalf("%d bytes left", len(body))
		}
		id, n := string(body[:4]), int(binary.BigEndian.Uint32(body[4:8]))
		data := body[10 : 10+n]
		body = body[10+n:]
		f := frame{id: id}
		if id == "CTOC" {
			name, rest, _ := bytes.Cut(data, []byte{0})
			flags, count := rest[0], int(rest[1])
			kids := strings.Split(strings.TrimSuffix(string(rest[2:]), "\x00"), "\x00")
			if len(kids) != count {
				t.Fatalf("CTOC %s counts %d children, lists %d", name, count, len(kids))
			}
			f.toc = string(name)
			if flags&2 != 0 {
				f.toc += " top"
			}
			if flags&1 == 0 {
				t.Errorf("CTOC %s is not ordered", name)
			}
			f.toc += " " + strconv.Itoa(count) + ": "
			if count > 3 {
				f.toc += kids[0] + "…" + kids[count-1]
			} else {
				f.toc += strings.Join(kids, " ")
			}
		}
		frames = append(frames, f)
	}
	return frames
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		tag  Tag
		want string
	}{
		{Tag{Version: 2}, "id3: version 2.2: only 2.3 and 2.4 are written"},
		{Tag{Chapters: []Chapter{{Start: time.Second, End: 0}}}, "id3: chapter 1 runs from 1s to 0s"},
		{Tag{Chapters: []Chapter{{Start: 2 * time.Second, End: 3 * time.Second}, {Start: time.Second, End: 4 * time.Second}}}, "id3: chapter 2 starts before chapter 1"},
		{Tag{Chapters: []Chapter{{Start: 0, End: 50 * 24 * time.Hour}}}, "id3: chapter 1 ends at 1200h0m0s, past what ID3 counts"},
	} {
		if _, err := tc.tag.Marshal(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.tag, err, tc.want)
		}
	}
}
