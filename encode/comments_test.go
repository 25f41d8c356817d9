package encode_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/encode"
)

// TestChapterComments: Format.Comments reach an Ogg Opus file's OpusTags
// and a FLAC file's VORBIS_COMMENT block, complete or streamed, where
// ffprobe reads CHAPTERnnn comments as the file's chapters; a FLAC file
// without comments keeps STREAMINFO as its only metadata block.
func TestChapterComments(t *testing.T) {
	comments := []string{
		"CHAPTER001=00:00:00.000", "CHAPTER001NAME=The Keeper",
		"CHAPTER002=00:00:01.500", "CHAPTER002NAME=The River",
	}
	samples := make([]int16, 3*24000)
	for i := range samples {
		samples[i] = int16(1000 * ((i / 40) % 2))
	}
	for _, c := range []struct {
		name      string
		streaming bool
		file      bool // written to a file (an io.WriterAt), else held in memory
	}{
		{"opus", false, true}, {"opus", true, false},
		{"flac", false, true}, {"flac", false, false}, {"flac", true, false},
	} {
		if testing.Short() && (c.name == "opus") == c.streaming {
			continue // opus in a file, flac streamed (one ffprobe each); make test probes all five
		}
		path := filepath.Join(t.TempDir(), "chapters."+c.name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var w io.Writer = f
		if !c.file {
			w = writerOnly{f}
		}
		enc, err := encode.NewEncoder(w, encode.Format{Name: c.name, SampleRate: 24000, Streaming: c.streaming, Comments: comments})
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(samples); err != nil {
			t.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out, err := runTool(t, "ffprobe", "-v", "error", "-show_chapters", "-of", "json", path)
		if err != nil {
			t.Fatalf("%s: ffprobe: %v\n%s", c.name, err, out)
		}
		var p struct {
			Chapters []struct {
				StartTime string            `json:"start_time"`
				Tags      map[string]string `json:"tags"`
			} `json:"chapters"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Chapters) != 2 || p.Chapters[1].Tags["title"] != "The River" || p.Chapters[1].StartTime != "1.500000" {
			t.Errorf("%s streaming=%v file=%v: chapters %+v", c.name, c.streaming, c.file, p.Chapters)
		}
	}
}

// writerOnly hides a file's other methods (WriteAt): the encoder holds
// a complete clip in memory.
type writerOnly struct{ f *os.File }

func (w writerOnly) Write(p []byte) (int, error) { return w.f.Write(p) }
