package upstream_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/wire"
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

// BenchmarkCloneThroughGateway: one sentence in a voice cloned from a
// 10 s recording (the generated PocketTTS model), pcm: straight from the
// worker; through a gateway whose worker holds the voice's sample (the
// pieces name it by hash); and straight from the worker with the sample
// sent in every request, the cost the worker's holding saves.
func BenchmarkCloneThroughGateway(b *testing.B) {
	f := newCloneFleet(b)
	if st, body := postRecording(b, f.w.URL+"/v1/voices", f.user, "rec", 10); st != 201 {
		b.Fatalf("upload: %d %s", st, body)
	}
	st, sample := postRecording(b, f.w.URL+"/v1/voice-samples", f.gatewayKey, "rec", 10)
	if st != 200 {
		b.Fatalf("encoding: %d %s", st, sample)
	}
	const text = "Hello there, from a recording."
	withSample, _ := json.Marshal(wire.Speech{Voice: wire.SampleVoice(sample), Input: text, Format: "pcm", Normalize: true, VoiceSample: sample})
	for _, tc := range []struct{ name, url, key, body string }{
		{"direct", f.w.URL, f.user, `{"voice":"rec","input":"` + text + `","response_format":"pcm"}`},
		{"gateway", f.g.URL, f.user, `{"voice":"rec","input":"` + text + `","response_format":"pcm"}`},
		{"sample-every-request", f.w.URL, f.gatewayKey, string(withSample)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if st, pcm := call(b, "POST", tc.url+"/v1/audio/speech", tc.key, "application/json", strings.NewReader(tc.body)); st != 200 {
					b.Fatalf("%d %s", st, pcm)
				}
			}
			b.ReportMetric(float64(len(tc.body)), "request-bytes")
		})
	}
}
