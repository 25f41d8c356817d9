package encode_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

func encodeAll(t testing.TB, f encode.Format, samples []int16, chunks []int) []byte {
	t.Helper()
	var buf bytes.Buffer
	e, err := encode.NewEncoder(&buf, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range chunks {
		n = min(n, len(samples))
		if err := e.Encode(samples[:n]); err != nil {
			t.Fatal(err)
		}
		samples = samples[n:]
	}
	if err := e.Encode(samples); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeFile encodes samples into a new file, which the encoder can
// rewrite (an io.WriterAt), and returns its path.
func encodeFile(t testing.TB, f encode.Format, samples []int16) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clip."+f.Name)
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	e, err := encode.NewEncoder(file, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(samples); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestContentTypes(t *testing.T) {
	want := map[string]string{
		"wav": "audio/wav", "mp3": "audio/mpeg", "pcm": "audio/pcm", "opus": "audio/opus", "flac": "audio/flac",
	}
	if got := encode.DefaultRegistry.Names(); fmt.Sprint(got) != "[flac mp3 opus pcm wav]" {
		t.Errorf("Names() = %v", got)
	}
	for name, ct := range want {
		c, err := encode.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.ContentType != ct || c.Extension != name {
			t.Errorf("%s: content type %q, extension %q", name, c.ContentType, c.Extension)
		}
	}
}

// TestRoundTrip encodes speech in every format at three rates (one with
// -short), complete and streaming, and has ffmpeg (plus opusinfo and
// flac -t) judge it.
func TestRoundTrip(t *testing.T) {
	audiotest.Require(t, "ffmpeg", "ffprobe")
	cases := []struct {
		name   string
		rates  []int
		codec  string // as ffprobe names it
		frame  int    // samples per codec frame at the input rate; 0: lossless
		minSNR float64
	}{
		{"wav", []int{8000, 24000, 44100}, "pcm_s16le", 0, 0},
		{"pcm", []int{16000, 24000, 48000}, "pcm_s16le", 0, 0},
		{"flac", []int{8000, 24000, 44100}, "flac", 0, 0},
		{"mp3", []int{16000, 24000, 44100}, "mp3", 576, 15},
		{"opus", []int{16000, 22050, 48000}, "opus", 0, 15},
	}
	for _, c := range cases {
		rates := c.rates
		if testing.Short() {
			rates = rates[1:2] // the middle rate; make test runs all three
		}
		for _, rate := range rates {
			// The complete clip, encoded once for the three modes.
			var whole struct {
				once sync.Once
				data []byte
			}
			// A complete clip is held in memory, or written through to
			// a file and its header rewritten (encode.Format.Streaming).
			for _, mode := range []string{"complete", "file", "streaming"} {
				streaming := mode == "streaming"
				name := fmt.Sprintf("%s/%d/%s", c.name, rate, mode)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					in := speech(t, rate)
					if testing.Short() {
						in = in[:3*rate] // make test encodes the whole 10 s
					}
					complete := func() []byte {
						whole.once.Do(func() { whole.data = encodeAll(t, encode.Format{Name: c.name, SampleRate: rate}, in, nil) })
						return whole.data
					}
					f := encode.Format{Name: c.name, SampleRate: rate, Streaming: streaming}
					var data []byte
					var path string
					switch mode {
					case "complete":
						data = complete()
					case "file":
						path = encodeFile(t, f, in)
						data, _ = os.ReadFile(path)
					case "streaming":
						data = encodeAll(t, f, in, nil)
					}
					if mode != "complete" && testing.Short() && bytes.Equal(data, complete()) {
						return // the complete clip's bytes, which its own subtest judges
					}
					if path == "" {
						path = audiotest.WriteTemp(t, data, c.name)
					}
					// (Under -short ffprobe reads the complete clip's header
					// alone; the decoding below judges the others.)
					if c.name != "pcm" && (mode == "complete" || !testing.Short()) {
						p := audiotest.ProbeFile(t, path)
						wantRate := rate
						if c.name == "opus" {
							wantRate = 48000 // Opus always decodes at 48 kHz
						}
						if p.Codec != c.codec || p.SampleRate != wantRate || p.Channels != 1 {
							t.Fatalf("ffprobe: %+v", p)
						}
					}
					switch c.name {
					case "wav", "pcm", "flac":
						got := decode(t, path, c.name, rate, 0)
						if !slicesEqual(got, in) {
							t.Fatalf("decoded %d samples, not bit-exact with the %d put in", len(got), len(in))
						}
						if c.name == "flac" {
							t.Logf("%s: bit-exact, %d bytes (%.3f of wav)", name, len(data), float64(len(data))/float64(2*len(in)+44))
							out, err := runTool(t, "flac", "-t", "-s", path)
							if err != nil || (!streaming && out != "") {
								t.Fatalf("flac -t: %v\n%s", err, out)
							}
						}
						return
					case "opus":
						out, err := runTool(t, "opusinfo", path)
						if err != nil || strings.Contains(out, "WARNING") || strings.Contains(out, "ERROR") {
							t.Fatalf("opusinfo: %v\n%s", err, out)
						}
						// Decoded at 48 kHz, the length is exact after the
						// pre-skip and end trimming.
						got := decode(t, path, c.name, rate, 48000)
						// (22050 Hz input is counted at 24 kHz inside, which
						// may round one 24 kHz sample differently.)
						want := int(math.Ceil(float64(len(in)) * 48000 / float64(rate)))
						slack := 0
						if 48000%rate != 0 {
							slack = 2
						}
						if d := len(got) - want; d < -slack || d > slack {
							t.Errorf("decoded %d samples at 48 kHz, want %d", len(got), want)
						}
					}
					got := decode(t, path, c.name, rate, rate)
					// Complete mp3 and all opus decode to the input length
					// (± a resampler's rounding); streaming mp3 adds up to
					// one frame (1152 samples for MPEG-1) and 47 samples
					// of padding.
					slack := 1
					if c.name == "mp3" && streaming {
						slack = c.frame + 48
						if rate >= 32000 {
							slack = 2*c.frame + 48
						}
					}
					if d := len(got) - len(in); d < -1 || d >= slack {
						t.Errorf("decoded %d samples, want %d (+%d)", len(got), len(in), slack)
					}
					db, lag := snr(in, got, 64)
					t.Logf("%s: SNR %.2f dB at lag %d, %d bytes (%.3f of wav)", name, db, lag, len(data), float64(len(data))/float64(2*len(in)+44))
					if db < c.minSNR || lag < -2 || lag > 2 {
						t.Errorf("SNR %.2f dB at lag %d, want ≥ %.0f dB at lag 0", db, lag, c.minSNR)
					}
				})
			}
		}
	}
}

func slicesEqual(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestChunking checks that the output does not depend on how the samples
// are divided between Encode calls.
func TestChunking(t *testing.T) {
	in := speech(t, 24000)
	in = in[:min(len(in), 4*24000)]
	if testing.Short() {
		in = in[:24000] // make test 4 s
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range encode.DefaultRegistry.Names() {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", name, streaming), func(t *testing.T) {
				f := encode.Format{Name: name, Streaming: streaming}
				whole := encodeAll(t, f, in, nil)
				schemes := map[string][]int{
					"ones":   onesThenRest(300),
					"random": randomChunks(rng, len(in), 1, 4000),
					"large":  randomChunks(rng, len(in), 1, 10*24000),
					"frames": {0, 576, 1, 575, 480, 4096, 4095, 0, 2},
				}
				for sname, chunks := range schemes {
					if got := encodeAll(t, f, in, chunks); !bytes.Equal(got, whole) {
						t.Errorf("%s chunks: %d bytes differ from one write's %d", sname, len(got), len(whole))
					}
				}
			})
		}
	}
}

func onesThenRest(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = 1
	}
	return c
}

func randomChunks(rng *rand.Rand, total, lo, hi int) []int {
	var c []int
	for total > 0 {
		n := lo + rng.IntN(hi-lo+1)
		c = append(c, n)
		total -= n
	}
	return c
}

func TestFormatErrors(t *testing.T) {
	cases := []struct {
		f    encode.Format
		want error
	}{
		{encode.Format{Name: "ogg"}, encode.ErrUnknownFormat},
		{encode.Format{Name: "mp3", SampleRate: 96000}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "opus", SampleRate: 32000}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "opus", SampleRate: 11025}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "flac", SampleRate: 12345}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "mp3", SampleRate: 8000, Bitrate: 128000}, encode.ErrUnsupportedBitrate},
		{encode.Format{Name: "mp3", Bitrate: 100000}, encode.ErrUnsupportedBitrate},
		{encode.Format{Name: "mp3", Bitrate: 16000}, encode.ErrUnsupportedBitrate},                   // frame too small for the Info tag
		{encode.Format{Name: "mp3", SampleRate: 8000, Bitrate: 80000}, encode.ErrUnsupportedBitrate}, // LAME: MPEG-2.5 up to 64 kbps
		{encode.Format{Name: "mp3", Bitrate: 64500}, encode.ErrUnsupportedBitrate},
		{encode.Format{Name: "mp3", Level: 11}, encode.ErrUnsupportedLevel},
		{encode.Format{Name: "mp3", Level: -1}, encode.ErrUnsupportedLevel},
		{encode.Format{Name: "opus", Bitrate: 1000}, encode.ErrUnsupportedBitrate},
		{encode.Format{Name: "opus", Level: 11}, encode.ErrUnsupportedLevel},
		{encode.Format{Name: "flac", Level: 9}, encode.ErrUnsupportedLevel},
		{encode.Format{Name: "flac", Level: -1}, encode.ErrUnsupportedLevel},
		// 0 is the default; a negative rate or bitrate is no rate at all.
		{encode.Format{Name: "wav", SampleRate: -24000}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "pcm", SampleRate: -1}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "mp3", SampleRate: -48000}, encode.ErrUnsupportedRate},
		{encode.Format{Name: "mp3", Bitrate: -64000}, encode.ErrUnsupportedBitrate},
		{encode.Format{Name: "opus", Bitrate: -48000}, encode.ErrUnsupportedBitrate},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%+v", c.f), func(t *testing.T) {
			_, err := encode.NewEncoder(io.Discard, c.f)
			if !errors.Is(err, c.want) {
				t.Fatalf("NewEncoder: %v, want %v", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "encode: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
	// Every rate the issue names works where the codec allows it.
	for _, name := range []string{"wav", "pcm", "mp3", "flac", "opus"} {
		for _, rate := range []int{8000, 16000, 22050, 24000, 44100, 48000} {
			if _, err := encode.NewEncoder(io.Discard, encode.Format{Name: name, SampleRate: rate}); err != nil {
				t.Errorf("%s at %d Hz: %v", name, rate, err)
			}
		}
	}
}

// failAfter accepts n writes, then fails.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errDiskFull
	}
	f.n--
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	for _, name := range encode.DefaultRegistry.Names() {
		for _, streaming := range []bool{false, true} {
			rate := 24000
			if streaming {
				rate = 22050 // opus resamples this one
			}
			in := speech(t, rate)[:2*rate]
			t.Run(fmt.Sprintf("%s/streaming=%v", name, streaming), func(t *testing.T) {
				for n := range 4 {
					e, err := encode.NewEncoder(&failAfter{n: n}, encode.Format{Name: name, SampleRate: rate, Streaming: streaming})
					if err != nil {
						if !errors.Is(err, errDiskFull) {
							t.Fatalf("NewEncoder: %v", err)
						}
						continue
					}
					err = e.Encode(in)
					if err == nil {
						err = e.Close()
					}
					if (err != nil || n == 0) && !errors.Is(err, errDiskFull) {
						t.Errorf("writer failing after %d writes: error %v", n, err)
					}
				}
				e, _ := encode.NewEncoder(io.Discard, encode.Format{Name: name, Streaming: streaming})
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if name != "pcm" && name != "wav" {
					if err := e.Encode(in); err == nil {
						t.Error("Encode after Close: no error")
					}
				}
			})
		}
	}
}

// TestEmpty encodes no samples at all: every format still makes a stream
// a decoder accepts.
func TestEmpty(t *testing.T) {
	audiotest.Require(t, "ffmpeg")
	names := []string{"wav", "flac", "mp3", "opus"}
	var paths []string
	for _, name := range names {
		paths = append(paths, audiotest.WriteTemp(t, encodeAll(t, encode.Format{Name: name}, nil, nil), name))
	}
	for i, got := range decodeAll(t, "", 24000, 24000, paths...) { // one ffmpeg run for the four
		if len(got) > 576 {
			t.Errorf("%s: decoded %d samples from nothing", names[i], len(got))
		}
	}
}

// FuzzEncoders feeds random samples in random chunks to every encoder:
// no panic, no error, and the same bytes as one write.
func FuzzEncoders(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint64(1), uint8(0))
	f.Add(bytes.Repeat([]byte{0x7f, 0xff, 0x80, 0x00}, 3000), uint64(7), uint8(3))
	names := encode.DefaultRegistry.Names()
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64, which uint8) {
		samples := make([]int16, len(raw)/2)
		for i := range samples {
			samples[i] = int16(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
		}
		name := names[int(which)%len(names)]
		rates := []int{8000, 16000, 22050, 24000, 44100, 48000}
		ff := encode.Format{Name: name, SampleRate: rates[int(which/8)%len(rates)], Streaming: which&4 != 0}
		rng := rand.New(rand.NewPCG(seed, 0))
		whole := encodeAll(t, ff, samples, nil)
		if got := encodeAll(t, ff, samples, randomChunks(rng, len(samples), 0, 700)); !bytes.Equal(got, whole) {
			t.Fatalf("%+v: chunked output differs", ff)
		}
	})
}

// TestTail ends the input with a short tone burst after silence: lossy
// codecs must not drop it (the classic lost last Ogg page or mp3 frame).
// The clips of each rate decode in one ffmpeg run (decodeAll).
func TestTail(t *testing.T) {
	audiotest.Require(t, "ffmpeg")
	type clip struct {
		name      string
		rate      int
		streaming bool
		in, got   []int16
		burst     int
	}
	var clips []*clip
	paths := map[int][]string{} // by rate
	for _, c := range []struct {
		name string
		rate int
	}{{"mp3", 24000}, {"mp3", 44100}, {"opus", 24000}, {"opus", 44100}} {
		for _, streaming := range []bool{false, true} {
			// A whole number of 20 ms Opus frames, so that only the
			// encoder's lookahead holds the burst back.
			k := &clip{name: c.name, rate: c.rate, streaming: streaming, burst: c.rate * 30 / 1000, in: make([]int16, c.rate/50*27)}
			for i := len(k.in) - k.burst; i < len(k.in); i++ {
				k.in[i] = int16(10000 * math.Sin(2*math.Pi*1000*float64(i)/float64(c.rate)))
			}
			data := encodeAll(t, encode.Format{Name: c.name, SampleRate: c.rate, Streaming: streaming}, k.in, nil)
			clips = append(clips, k)
			paths[c.rate] = append(paths[c.rate], audiotest.WriteTemp(t, data, c.name))
		}
	}
	for rate, p := range paths {
		decoded := decodeAll(t, "", rate, rate, p...) // mp3 and opus alike
		for _, k := range clips {
			if k.rate == rate {
				k.got, decoded = decoded[0], decoded[1:]
			}
		}
	}
	for _, k := range clips {
		t.Run(fmt.Sprintf("%s/%d/streaming=%v", k.name, k.rate, k.streaming), func(t *testing.T) {
			in, got, burst := k.in, k.got, k.burst
			if len(got) < len(in) {
				t.Fatalf("decoded %d samples of %d", len(got), len(in))
			}
			energy := func(s []int16) float64 {
				var e float64
				for _, v := range s {
					e += float64(v) * float64(v)
				}
				return e
			}
			ratio := energy(got[len(in)-burst:len(in)]) / energy(in[len(in)-burst:])
			if ratio < 0.5 || ratio > 2 {
				t.Errorf("last %d samples keep %.2f of their energy", burst, ratio)
			}
		})
	}
}

// TestStreamingEmitsEarly checks that streaming encoders pass audio on
// while it arrives, not only at Close.
func TestStreamingEmitsEarly(t *testing.T) {
	in := speech(t, 24000)[:24000] // one second
	for _, name := range encode.DefaultRegistry.Names() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			e, err := encode.NewEncoder(&buf, encode.Format{Name: name, Streaming: true})
			if err != nil {
				t.Fatal(err)
			}
			header := buf.Len()
			if err := e.Encode(in); err != nil {
				t.Fatal(err)
			}
			// A second at 24 kHz holds 41 mp3 frames, 5 Ogg pages of Opus
			// and 5 flac blocks: well over a kilobyte in each format.
			if got := buf.Len() - header; got < 1000 {
				t.Errorf("%d bytes of audio out after one second in", got)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
