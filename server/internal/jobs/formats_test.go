package jobs_test

import (
	"math"
	"net/http"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
)

// The whole audio of a job in each compressed format is one stream that
// decodes to the length of its segments' audio (no frames lost or added
// at the seams), and so is each chapter.
func TestJobFormats(t *testing.T) {
	audiotest.Require(t, "ffmpeg")
	e := jobEnv(t, "", server.JobOptions{})
	for _, format := range []string{"mp3", "opus", "flac"} {
		t.Run(format, func(t *testing.T) {
			j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": format, "chapters": book(2, 600)})
			end := waitStatus(t, e, j.ID, store.JobSucceeded, store.JobFailed)
			if end.Status != store.JobSucceeded {
				t.Fatalf("job: %+v", end.Error)
			}
			res, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("audio: %d", res.StatusCode)
			}
			want := end.Progress.AudioSeconds * 24000
			got := float64(len(audiotest.Decode(t, audiotest.WriteTemp(t, whole, format), 24000)))
			if math.Abs(got-want) > 0.005*want {
				t.Errorf("whole: %.0f samples decoded, the segments made %.0f", got, want)
			}
			sum := 0.0
			for _, n := range []string{"1", "2"} {
				_, ch := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/chapters/"+n+"/audio")
				sum += float64(len(audiotest.Decode(t, audiotest.WriteTemp(t, ch, format), 24000)))
			}
			if math.Abs(sum-got) > 2*0.010*24000 {
				t.Errorf("chapters: %.0f samples, the whole %.0f", sum, got)
			}
		})
	}
}
