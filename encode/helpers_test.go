package encode_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// speechText is what espeak-ng says for the test audio.
const speechText = "The quick brown fox jumps over the lazy dog. " +
	"Speech synthesis should sound natural and clear, with no clicks between sentences. " +
	"Seven silver swans swam silently seaward at sunset."

var (
	speechOnce sync.Once
	speech22k  []int16 // espeak-ng speech at 22050 Hz, or a synthetic stand-in
	speechMu   sync.Mutex
	speechAt   = map[int][]int16{}
)

// speech returns about 10 s of speech at rate: espeak-ng's when the
// command is installed, else a harmonic signal with a moving pitch and
// formant-like envelope, resampled with internal/dsp.
func speech(t testing.TB, rate int) []int16 {
	t.Helper()
	speechOnce.Do(func() { speech22k = makeSpeech() })
	speechMu.Lock()
	defer speechMu.Unlock()
	if s, ok := speechAt[rate]; ok {
		return s
	}
	s := speech22k
	if rate != 22050 {
		r, err := dsp.NewResampler(22050, rate)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Process(nil, dsp.AppendFloat32(nil, speech22k))
		f = r.Flush(f)
		s = dsp.AppendInt16(nil, f)
	}
	speechAt[rate] = s
	return s
}

func makeSpeech() []int16 {
	if path, err := exec.LookPath("espeak-ng"); err == nil {
		dir, err := os.MkdirTemp("", "encode-speech")
		if err == nil {
			defer os.RemoveAll(dir)
			wav := filepath.Join(dir, "s.wav")
			if exec.Command(path, "-w", wav, speechText).Run() == nil {
				if s := readWAV(wav); len(s) > 22050 {
					return s
				}
			}
		}
	}
	return harmonic(22050, 10*22050)
}

// readWAV returns the samples of espeak-ng's 16-bit mono wav output.
func readWAV(path string) []int16 {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 44 {
		return nil
	}
	i := bytes.Index(b, []byte("data"))
	if i < 0 {
		return nil
	}
	b = b[i+8:]
	s := make([]int16, len(b)/2)
	for k := range s {
		s[k] = int16(binary.LittleEndian.Uint16(b[2*k:]))
	}
	return s
}

// harmonic synthesizes a voiced-speech-like signal: a glottal pulse train
// whose pitch glides between 100 and 180 Hz, shaped by a syllable-rate
// envelope, with harmonics falling off at 6 dB per octave.
func harmonic(rate, n int) []int16 {
	out := make([]int16, n)
	phase := 0.0
	for i := range out {
		t := float64(i) / float64(rate)
		f0 := 140 + 40*math.Sin(2*math.Pi*0.7*t)
		phase += 2 * math.Pi * f0 / float64(rate)
		var v float64
		for h := 1; float64(h)*f0 < float64(rate)/2 && h < 40; h++ {
			formant := math.Exp(-math.Pow((float64(h)*f0-700)/400, 2)) + 0.5*math.Exp(-math.Pow((float64(h)*f0-1800)/500, 2))
			v += (0.3 + formant) * math.Sin(float64(h)*phase) / float64(h)
		}
		env := math.Max(0, math.Sin(2*math.Pi*2.5*t))
		out[i] = int16(6000 * v * env)
	}
	return out
}

// strictDecoding are the ffmpeg input options that make its decoders report
// what they otherwise conceal, such as an mp3 granule whose Huffman data
// overruns its part2_3_length (which browsers refuse to play).
var strictDecoding = []string{"-err_detect", "bitstream+buffer+crccheck"}

// decode runs ffmpeg on path and returns mono 16-bit samples at rate
// (0: the stream's own). ffmpeg must not report any error while decoding,
// even with strictDecoding.
func decode(t testing.TB, path, ext string, inRate, rate int) []int16 {
	t.Helper()
	return decodeAll(t, ext, inRate, rate, path)[0]
}

// decodeAll decodes several files as decode does, in one ffmpeg run (its
// start costs more than decoding a few seconds of audio). An error names
// the stream, by its index in paths, as "stream #2:0".
func decodeAll(t testing.TB, ext string, inRate, rate int, paths ...string) [][]int16 {
	t.Helper()
	var inputs [][]string
	for _, path := range paths {
		in := slices.Clone(strictDecoding) // input options: before each input
		if ext == "pcm" {
			in = append(in, "-f", "s16le", "-ar", strconv.Itoa(inRate), "-ac", "1")
		}
		inputs = append(inputs, append(in, "-i", path))
	}
	return ffmpegAll(t, rate, inputs...)
}

// ffmpegAll runs ffmpeg once over inputs, each its input options ending
// in "-i path", and returns each decoded to mono 16-bit samples at rate
// (0: the stream's own). ffmpeg must not report any error.
func ffmpegAll(t testing.TB, rate int, inputs ...[]string) [][]int16 {
	t.Helper()
	out, complaints := audiotest.DecodeInputs(t, rate, inputs...)
	if complaints != "" {
		t.Fatalf("ffmpeg decode %v:\n%s", inputs, complaints)
	}
	return out
}

// snr aligns got to want (searching ±maxLag samples) and returns the
// signal-to-noise ratio in dB over the overlap, and the lag.
func snr(want, got []int16, maxLag int) (float64, int) {
	probe := min(len(want), 3*48000)
	bestLag, bestCorr := 0, math.Inf(-1)
	for lag := -maxLag; lag <= maxLag; lag++ {
		var c float64
		for i := max(0, -lag); i < probe && i+lag < len(got); i++ {
			c += float64(want[i]) * float64(got[i+lag])
		}
		if c > bestCorr {
			bestLag, bestCorr = lag, c
		}
	}
	var sig, noise float64
	for i := max(0, -bestLag); i < len(want) && i+bestLag < len(got); i++ {
		d := float64(want[i]) - float64(got[i+bestLag])
		sig += float64(want[i]) * float64(want[i])
		noise += d * d
	}
	if noise == 0 {
		return math.Inf(1), bestLag
	}
	return 10 * math.Log10(sig/noise), bestLag
}

// runTool runs a command and returns its combined output and error.
func runTool(t testing.TB, name string, args ...string) (string, error) {
	t.Helper()
	audiotest.Require(t, name)
	out, err := exec.Command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
