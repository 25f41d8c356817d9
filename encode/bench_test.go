package encode_test

import (
	"testing"

	"github.com/voxkit/voxkit/encode"
)

// countWriter counts bytes written.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkEncode encodes 60 s of speech at 24 kHz in 100 ms blocks, as
// synthesis delivers it. x_realtime is audio seconds per second of work;
// cpu_x_realtime is the same per second of CPU time, which stays honest
// on a machine shared with other work; size/wav is the output size
// relative to a wav file of the same audio. Run with -cpu 1 for
// single-core figures.
func BenchmarkEncode(b *testing.B) {
	const rate, seconds = 24000, 60
	one := speech(b, rate)
	in := make([]int16, 0, rate*seconds)
	for len(in) < rate*seconds {
		in = append(in, one[:min(len(one), rate*seconds-len(in))]...)
	}
	wavSize := float64(2*len(in) + 44)
	for _, name := range []string{"wav", "pcm", "mp3", "opus", "flac"} {
		b.Run(name, func(b *testing.B) {
			f := encode.Format{Name: name, SampleRate: rate}
			var size int64
			cpu0 := cpuTime()
			for b.Loop() {
				var w countWriter
				e, err := encode.NewEncoder(&w, f)
				if err != nil {
					b.Fatal(err)
				}
				for s := in; len(s) > 0; {
					n := min(len(s), rate/10)
					if err := e.Encode(s[:n]); err != nil {
						b.Fatal(err)
					}
					s = s[n:]
				}
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
				size = w.n
			}
			b.ReportMetric(seconds*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(seconds*float64(b.N)/cpu.Seconds(), "cpu_x_realtime")
			}
			b.ReportMetric(float64(size)/wavSize, "size/wav")
		})
	}
}
