package recording_test

import (
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// TestDecodeCut: a recording that ends inside its last frame or element,
// as an upload interrupted does, decodes up to the cut — the same
// samples as the whole file's start, at least a second — in every
// format; cut before its first second it is an ErrFormat (a WAV, which
// has no frames, is then a short one).
func TestDecodeCut(t *testing.T) {
	wav := pockettest.WAV(pockettest.Recording(3, 190), 24000)
	webm, err := os.ReadFile(chromiumFixture)
	if err != nil {
		t.Fatal(err)
	}
	recordings := map[string][]byte{
		"wav":         wav,
		"flac":        encoded(t, "flac", speech(72000), 24000),
		"mp3":         encoded(t, "mp3", speech(72000), 24000),
		"ogg opus":    encoded(t, "opus", speech(72000), 24000),
		"webm opus":   webm,
		"ffmpeg webm": readFile(t, ffmpegEncoded(t, "webm", "-c:a", "libopus")), // a Segment of known size, Cues at the end
		"ffmpeg mp3":  readFile(t, ffmpegEncoded(t, "mp3", "-c:a", "libmp3lame", "-ar", "44100")),
		"ffmpeg flac": readFile(t, ffmpegEncoded(t, "flac", "-ar", "48000")),
	}
	for name, data := range recordings {
		t.Run(name, func(t *testing.T) {
			whole, err := recording.Decode(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range []int{3, 50} {
				got, err := recording.Decode(data[:len(data)-cut], 0)
				if err != nil {
					t.Errorf("cut %d bytes before the end: %v", cut, err)
					continue
				}
				n := min(len(got.Samples), len(whole.Samples)) // the whole may be trimmed at its end
				if got.SampleRate != whole.SampleRate || len(got.Samples) < whole.SampleRate || !slices.Equal(got.Samples[:n], whole.Samples[:n]) {
					t.Errorf("cut %d bytes before the end: %d samples at %d Hz, not the start of the whole's %d at %d Hz",
						cut, len(got.Samples), got.SampleRate, len(whole.Samples), whole.SampleRate)
				}
			}
			if name == "wav" {
				return // no frames: cut, it is a shorter WAV (too short to clone)
			}
			if _, err := recording.Decode(data[:len(data)/5], 0); !errors.Is(err, recording.ErrFormat) {
				t.Errorf("cut at a fifth (0.6 s): %v, want ErrFormat", err)
			}
		})
	}
	// A WAV whose data chunk states more than was sent is read as far as
	// it goes (as a streamed WAV's is).
	long := slices.Clone(wav)
	binary.LittleEndian.PutUint32(long[40:], 1<<30)
	if a, err := recording.Decode(long[:len(long)-1001], 0); err != nil || len(a.Samples) != 72000-501 {
		t.Errorf("a WAV cut short: %d samples, %v", len(a.Samples), err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeRates: a WAV or FLAC at a rate from MinRate to MaxRate
// decodes, 44,101 Hz as well; below (1 Hz, 7,999 Hz) or above, it is an
// ErrFormat that says which rates are read.
func TestDecodeRates(t *testing.T) {
	for _, rate := range []int{1, 7999, 8000, 44101, 384000, 384001} {
		ok := rate >= recording.MinRate && rate <= recording.MaxRate
		recordings := map[string][]byte{"wav": pockettest.WAV(pockettest.Recording(0.5, 190), rate)}
		if rate < 384000 { // its encoder's frame headers stop there
			recordings["flac"] = stereoFLAC(t, make([]int32, 2000), make([]int32, 2000), rate)
		}
		for name, data := range recordings {
			a, err := recording.Decode(data, 0)
			if ok && (err != nil || a.SampleRate != rate) || !ok && !errors.Is(err, recording.ErrFormat) {
				t.Errorf("%s at %d Hz: %d Hz, %v", name, rate, a.SampleRate, err)
			}
		}
	}
}
