package recording_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// sourceSeconds is the length of the recordings ffmpeg encodes here.
const sourceSeconds = 2.5

// ffmpegEncoded is a generated recording (stereo, its right channel an
// echo of the left, so that mixing down matters) encoded by ffmpeg with
// args, written to a file with extension ext; it returns the path.
func ffmpegEncoded(t testing.TB, ext string, args ...string) string {
	t.Helper()
	audiotest.Require(t, "ffmpeg")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	if err := os.WriteFile(src, pockettest.WAV(pockettest.Recording(sourceSeconds, 170), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rec."+ext)
	cmd := append([]string{"-v", "error", "-i", src, "-af", "pan=stereo|c0=c0|c1=0.6*c0,adelay=0|7"}, args...)
	if b, err := exec.Command("ffmpeg", append(cmd, out)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, b)
	}
	return out
}

// compareToFFmpeg checks the file at path, decoded, against ffmpeg's
// decode of it: the same rate, the length within frame samples (and
// within a frame of seconds when that is >= 0), the waveform alike
// (correlation, and error relative to the signal).
func compareToFFmpeg(t *testing.T, path string, rate, frame int, seconds float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := recording.Decode(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != rate {
		t.Fatalf("%d Hz, want %d", a.SampleRate, rate)
	}
	want := audiotest.Decode(t, path, rate)
	if d := len(a.Samples) - len(want); d < -frame || d > frame {
		t.Errorf("%d samples, ffmpeg %d", len(a.Samples), len(want))
	}
	if d := float64(len(a.Samples))/float64(rate) - seconds; seconds >= 0 && math.Abs(d) > float64(frame)/float64(rate) {
		t.Errorf("%.4f s, the source %.1f s", float64(len(a.Samples))/float64(rate), seconds)
	}
	var ab, aa, bb, ee float64
	for i := range min(len(a.Samples), len(want)) {
		x, y := float64(a.Samples[i]), float64(want[i])/32768
		ab, aa, bb, ee = ab+x*y, aa+x*x, bb+y*y, ee+(x-y)*(x-y)
	}
	corr, snr := ab/math.Sqrt(aa*bb), 10*math.Log10(bb/ee)
	t.Logf("%d samples at %d Hz; ffmpeg's decode: correlation %.5f, signal to difference %.1f dB", len(a.Samples), rate, corr, snr)
	if corr < 0.995 || snr < 20 {
		t.Errorf("unlike ffmpeg's decode: correlation %.5f, signal to difference %.1f dB", corr, snr)
	}
}

// TestDecodeCompressed: MP3 (constant and variable bitrate, mono and
// stereo, 16 to 44.1 kHz, with ffmpeg's ID3v2 tag and LAME Info frame),
// Ogg Opus and WebM Opus made by ffmpeg decode like ffmpeg decodes them.
func TestDecodeCompressed(t *testing.T) {
	if testing.Short() {
		t.Skip("eight ffmpeg runs, about 10 s")
	}
	t.Parallel()
	for _, c := range []struct {
		name, ext   string
		rate, frame int
		args        []string
	}{
		{"mp3 cbr mono 16k", "mp3", 16000, 576, []string{"-ac", "1", "-ar", "16000", "-c:a", "libmp3lame", "-b:a", "32k"}},
		{"mp3 vbr stereo 22k", "mp3", 22050, 576, []string{"-ar", "22050", "-c:a", "libmp3lame", "-q:a", "4"}},
		{"mp3 cbr stereo 44k", "mp3", 44100, 1152, []string{"-ar", "44100", "-c:a", "libmp3lame", "-b:a", "128k"}},
		{"mp3 vbr mono 44k", "mp3", 44100, 1152, []string{"-ac", "1", "-ar", "44100", "-c:a", "libmp3lame", "-q:a", "2"}},
		{"mp3 no tags (the codec delays stay)", "mp3", 24000, 3 * 576, []string{"-ac", "1", "-c:a", "libmp3lame", "-b:a", "48k", "-write_xing", "0", "-id3v2_version", "0"}},
		{"ogg opus mono", "ogg", 48000, 960, []string{"-ac", "1", "-c:a", "libopus", "-b:a", "32k"}},
		{"ogg opus stereo", "opus", 48000, 960, []string{"-c:a", "libopus", "-b:a", "64k"}},
		{"webm opus", "webm", 48000, 960, []string{"-c:a", "libopus", "-b:a", "48k"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			compareToFFmpeg(t, ffmpegEncoded(t, c.ext, c.args...), c.rate, c.frame, sourceSeconds)
		})
	}
}

// TestDecodeUnsupported: containers and codecs that are not read are an
// ErrFormat that names the formats that are.
func TestDecodeUnsupported(t *testing.T) {
	if testing.Short() {
		t.Skip("four ffmpeg runs, about 4 s")
	}
	t.Parallel()
	for _, c := range []struct {
		name, ext string
		args      []string
	}{
		{"mp4 aac", "m4a", []string{"-c:a", "aac"}},
		{"webm vorbis", "webm", []string{"-c:a", "libvorbis"}},
		{"ogg vorbis", "ogg", []string{"-c:a", "libvorbis"}},
		{"mp2", "mp2", []string{"-c:a", "mp2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(ffmpegEncoded(t, c.ext, c.args...))
			if err != nil {
				t.Fatal(err)
			}
			_, err = recording.Decode(data, 0)
			if !errors.Is(err, recording.ErrFormat) {
				t.Fatalf("%v, want ErrFormat", err)
			}
			t.Log(err)
		})
	}
}
