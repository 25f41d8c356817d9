package encode_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// mp3Kbps lists every Layer III bitrate of MPEG-1, 2 and 2.5.
var mp3Kbps = []int{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 192, 224, 256, 320}

// TestMP3Strict encodes 3 s of speech at every mp3 rate with the lowest,
// default and highest accepted bitrates and has ffmpeg decode it with
// strict error detection: no granule may overrun its part2_3_length (the
// shine encoder's fault that made browsers refuse our mp3), and a complete
// clip must decode to exactly its input length.
func TestMP3Strict(t *testing.T) {
	audiotest.Require(t, "ffmpeg")
	type clip struct {
		rate, bitrate int
		streaming     bool
		in            []int16
		bytes         int
	}
	var clips []clip
	var paths []string
	seconds := 3
	if testing.Short() {
		seconds = 1 // every rate and bitrate still; make test encodes 3 s
	}
	for _, rate := range []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000} {
		var ok []int
		for _, k := range mp3Kbps {
			_, err := encode.NewEncoder(io.Discard, encode.Format{Name: "mp3", SampleRate: rate, Bitrate: k * 1000})
			switch {
			case err == nil:
				ok = append(ok, k*1000)
			case !errors.Is(err, encode.ErrUnsupportedBitrate):
				t.Fatalf("%d Hz %d kbps: %v", rate, k, err)
			}
		}
		if len(ok) < 4 {
			t.Fatalf("%d Hz: only %v bps accepted", rate, ok)
		}
		in := speech(t, rate)[:seconds*rate]
		for _, c := range []clip{{bitrate: ok[0]}, {}, {streaming: true}, {bitrate: ok[len(ok)-1]}} {
			data := encodeAll(t, encode.Format{Name: "mp3", SampleRate: rate, Bitrate: c.bitrate, Streaming: c.streaming}, in, nil)
			c.rate, c.in, c.bytes = rate, in, len(data)
			clips = append(clips, c)
			paths = append(paths, audiotest.WriteTemp(t, data, "mp3"))
		}
	}
	decoded := decodeAll(t, "mp3", 0, 0, paths...) // one ffmpeg run for all (its start costs more than the decoding)
	for i, c := range clips {
		t.Run(fmt.Sprintf("%d/%d/streaming=%v", c.rate, c.bitrate, c.streaming), func(t *testing.T) {
			got, in := decoded[i], c.in
			// A streaming clip cannot announce its end padding: up to
			// a frame and 47 samples of silence follow the input.
			spf := 576
			if c.rate >= 32000 {
				spf = 1152
			}
			slack := 0
			if c.streaming {
				slack = spf + 47
			}
			if d := len(got) - len(in); d < 0 || d > slack {
				t.Errorf("decoded %d samples, want %d (+%d)", len(got), len(in), slack)
			}
			db, lag := snr(in, got, 8)
			t.Logf("SNR %.1f dB at lag %d, %d bytes", db, lag, c.bytes)
			if db < 10 || lag != 0 {
				t.Errorf("SNR %.1f dB at lag %d, want ≥ 10 dB at lag 0", db, lag)
			}
		})
	}
}
