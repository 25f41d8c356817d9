package jobs_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// BenchmarkShortSpeechDuringJob measures short speech requests (one
// sentence, espeak-ng) one after another, first on an idle server, then
// while long-form jobs render without pause: their p50 and p99 latencies
// in each phase, and how many segments the jobs finished meanwhile. Run
// it with -benchtime=200x (requests per phase).
func BenchmarkShortSpeechDuringJob(b *testing.B) {
	e := testserver.New(b, testserver.Options{Jobs: server.JobOptions{Enabled: true}})
	short := `{"voice":"en-us","input":"Turn left at the next street, then stop.","response_format":"pcm"}`
	measure := func() []time.Duration {
		var out []time.Duration
		for range b.N {
			start := time.Now()
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(short))
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Fatalf("speech: %d", res.StatusCode)
			}
			out = append(out, time.Since(start))
		}
		slices.Sort(out)
		return out
	}
	measure() // warm up
	b.ResetTimer()
	idle := measure()

	var stop atomic.Bool
	var segments atomic.Int64
	done := make(chan struct{})
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "response_format": "pcm", "chapters": book(3, 6000)})
	go func() {
		defer close(done)
		for !stop.Load() {
			var j jobs.Job
			res := e.Do("POST", "/v1/audio/jobs", e.Key, "application/json", strings.NewReader(string(body)))
			json.NewDecoder(res.Body).Decode(&j)
			res.Body.Close()
			var now jobs.Job
			for !stop.Load() && !store.JobFinished(now.Status) {
				time.Sleep(50 * time.Millisecond)
				r := e.Do("GET", "/v1/audio/jobs/"+j.ID, e.Key, "", nil)
				json.NewDecoder(r.Body).Decode(&now)
				r.Body.Close()
			}
			segments.Add(int64(now.Progress.SegmentsDone))
		}
	}()
	time.Sleep(300 * time.Millisecond) // the first segment is rendering
	during := measure()
	stop.Store(true)
	b.StopTimer()
	<-done
	q := func(d []time.Duration, p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(idle, 0.5), "idle-p50-ms")
	b.ReportMetric(q(idle, 0.99), "idle-p99-ms")
	b.ReportMetric(q(during, 0.5), "job-p50-ms")
	b.ReportMetric(q(during, 0.99), "job-p99-ms")
	b.ReportMetric(float64(segments.Load()), "job-segments")
}
