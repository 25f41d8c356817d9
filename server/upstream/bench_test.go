package upstream_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/tts"
)

// BenchmarkFirstByte: pcm time to first byte of one short request,
// straight to a worker and through a gateway in front of it (one process,
// loopback), reported as p50 and p99.
func BenchmarkFirstByte(b *testing.B) {
	w := worker(b)
	p := newPool(b, w.URL)
	g := gateway(b, p, tts.Options{MaxParallel: 8})
	body := `{"model":"tts-1","voice":"en-us","input":"Hello there. How are you today?","response_format":"pcm"}`
	for _, tc := range []struct{ name, url string }{{"direct", w.URL}, {"gateway", g.URL}} {
		b.Run(tc.name, func(b *testing.B) {
			var firsts []float64
			for b.Loop() {
				req, _ := http.NewRequest("POST", tc.url+"/v1/audio/speech", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+workerKey)
				req.Header.Set("Content-Type", "application/json")
				start := time.Now()
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var one [1]byte
				if _, err := io.ReadFull(res.Body, one[:]); err != nil {
					b.Fatal(err)
				}
				firsts = append(firsts, float64(time.Since(start).Microseconds())/1000)
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			slices.Sort(firsts)
			b.ReportMetric(firsts[len(firsts)/2], "ttfb-p50-ms")
			b.ReportMetric(firsts[len(firsts)*99/100], "ttfb-p99-ms")
		})
	}
}
