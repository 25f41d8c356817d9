package jobs_test

import (
	"encoding/json"
	"math"
	"net/http"
	"os/exec"
	"strconv"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
)

// The whole audio of a job in each compressed format is one stream that
// decodes to the length of its segments' audio (no frames lost or added
// at the seams), and so is each chapter. Under -short, the chapters and
// their segments are a third as long (still two segments or more a
// chapter) and only opus is spoken (the Ogg stream, resampled to 48 kHz, with its
// chapters in Vorbis comments); TestJobChaptersTag still reads an mp3's
// chapters there, and make test runs all three: encoding and decoding the
// audio were most of the package's time.
func TestJobFormats(t *testing.T) {
	t.Parallel()
	audiotest.Require(t, "ffmpeg")
	size := shortBook(600, 200)
	e := jobEnv(t, "", server.JobOptions{MaxSegment: size / 2})
	formats := []string{"mp3", "opus", "flac"}
	if testing.Short() {
		formats = []string{"opus"}
	}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": format, "chapters": book(2, size)})
			end := waitStatus(t, e, j.ID, store.JobSucceeded, store.JobFailed)
			if end.Status != store.JobSucceeded {
				t.Fatalf("job: %+v", end.Error)
			}
			if end.Progress.SegmentsTotal < 4 {
				t.Fatalf("%d segments: want two or more a chapter, so that seams inside a chapter are tested", end.Progress.SegmentsTotal)
			}
			res, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("audio: %d", res.StatusCode)
			}
			wholePath := audiotest.WriteTemp(t, whole, format)
			paths := []string{wholePath}
			for _, n := range []string{"1", "2"} {
				_, ch := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/chapters/"+n+"/audio")
				paths = append(paths, audiotest.WriteTemp(t, ch, format))
			}
			decoded := audiotest.DecodeAll(t, 24000, paths...) // one ffmpeg run for the three
			want := end.Progress.AudioSeconds * 24000
			got := float64(len(decoded[0]))
			if math.Abs(got-want) > 0.005*want {
				t.Errorf("whole: %.0f samples decoded, the segments made %.0f", got, want)
			}
			first := float64(len(decoded[1])) // the first chapter's samples
			sum := first + float64(len(decoded[2]))
			if math.Abs(sum-got) > 2*0.010*24000 {
				t.Errorf("chapters: %.0f samples, the whole %.0f", sum, got)
			}
			// The whole file marks its chapters as the format allows (ID3
			// CHAP frames in mp3, Vorbis CHAPTERnnn comments in Ogg Opus
			// and FLAC), where a player such as ffprobe finds them.
			out, err := exec.Command("ffprobe", "-v", "error", "-show_chapters", "-of", "json", wholePath).Output()
			if err != nil {
				t.Fatalf("ffprobe: %v", err)
			}
			var p struct {
				Chapters []struct {
					StartTime string            `json:"start_time"`
					Tags      map[string]string `json:"tags"`
				} `json:"chapters"`
			}
			json.Unmarshal(out, &p)
			if len(p.Chapters) != 2 || p.Chapters[0].Tags["title"] != end.Chapters[0].Title || p.Chapters[1].Tags["title"] != end.Chapters[1].Title {
				t.Fatalf("chapters of the whole file: %s", out)
			}
			if start, _ := strconv.ParseFloat(p.Chapters[1].StartTime, 64); math.Abs(start-first/24000) > 0.05 {
				t.Errorf("the second chapter starts at %.3f s, the first chapter's audio is %.3f s", start, first/24000)
			}
		})
	}
}
