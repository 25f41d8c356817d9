package server_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// BenchmarkSpeech measures a whole speech request over loopback HTTP and
// reports the gateway overhead (x-gateway-ms − x-upstream-ms) the server
// announces. voice "fake" renders without resampling cost beyond the
// engine's 16 kHz; "en-us" is espeak-ng at 22.05 kHz. The sentence cases
// ("en-us/sentence/FORMAT") are one short sentence in each format, as the
// load tool sends: their overhead is each format's finishing work that
// synthesis time leaves out.
func BenchmarkSpeech(b *testing.B) {
	const sentence = "The quick brown fox jumps over the lazy dog."
	cases := []struct{ name, voice, format, input string }{
		{"en-us/pcm", "en-us", "pcm", "Hi."},
		{"en-us/wav", "en-us", "wav", sentence},
		{"fake/pcm", "fake", "pcm", "Hi."},
	}
	for _, f := range []string{"pcm", "wav", "mp3", "opus", "flac"} {
		cases = append(cases, struct{ name, voice, format, input string }{"en-us/sentence/" + f, "en-us", f, sentence})
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			e := testserver.New(b, testserver.Options{})
			body := `{"voice":"` + bc.voice + `","input":"` + bc.input + `","response_format":"` + bc.format + `"}`
			var over, up float64
			for b.Loop() {
				req, _ := http.NewRequest("POST", e.TS.URL+"/v1/audio/speech", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+e.Key)
				req.Header.Set("Content-Type", "application/json")
				res, err := e.TS.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				h := res.Header
				if bc.format == "pcm" {
					h = res.Trailer
				}
				u, _ := strconv.ParseFloat(h.Get("x-upstream-ms"), 64)
				g, _ := strconv.ParseFloat(h.Get("x-gateway-ms"), 64)
				over += g - u
				up += u
			}
			b.ReportMetric(over/float64(b.N)*float64(time.Millisecond)/float64(time.Microsecond), "overhead-µs/op")
			b.ReportMetric(up/float64(b.N)*float64(time.Millisecond)/float64(time.Microsecond), "upstream-µs/op")
		})
	}
}
