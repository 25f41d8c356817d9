package encode_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// TestSampleWriters: G.711's known code words from the standard's tables, and speech at
// 8 kHz decoded by ffmpeg's own μ-law and A-law decoders within the
// codecs' quantization, written in odd-sized pieces (about 38 dB SNR for speech at this
// level); 32-bit float the same way, raw and in WAV headers.
func TestSampleWriters(t *testing.T) {
	for _, c := range []struct {
		s           int16
		mulaw, alaw byte
	}{
		{0, 0xFF, 0xD5},
		{-1, 0x7F, 0x55},
		{32767, 0x80, 0xAA},
		{-32768, 0x00, 0x2A},
		{1000, 0xCE, 0xFA},
		{-1000, 0x4E, 0x7A},
	} {
		if got := encode.MuLaw(c.s); got != c.mulaw {
			t.Errorf("MuLaw(%d) = %#x, want %#x", c.s, got, c.mulaw)
		}
		if got := encode.ALaw(c.s); got != c.alaw {
			t.Errorf("ALaw(%d) = %#x, want %#x", c.s, got, c.alaw)
		}
	}

	audiotest.Require(t, "ffmpeg")
	in := speech(t, 8000)
	pcm := make([]byte, 0, 2*len(in))
	for _, s := range in {
		pcm = binary.LittleEndian.AppendUint16(pcm, uint16(s))
	}
	type clip struct {
		name, container string
		minDB           float64
	}
	var clips []clip
	var inputs [][]string
	for _, c := range []struct {
		name   string // ffmpeg's raw format
		writer func(io.Writer) *encode.SampleWriter
		tag    uint16
		bits   int
		minDB  float64
	}{
		{"mulaw", func(w io.Writer) *encode.SampleWriter { return encode.NewG711Writer(w, encode.MuLaw) }, encode.WAVMuLaw, 8, 30},
		{"alaw", func(w io.Writer) *encode.SampleWriter { return encode.NewG711Writer(w, encode.ALaw) }, encode.WAVALaw, 8, 30},
		{"f32le", encode.NewFloat32Writer, encode.WAVFloat, 32, 90},
	} {
		for _, container := range []string{"raw", "wav"} {
			var data bytes.Buffer
			if container == "wav" {
				data.Write(encode.WAVHeader(c.tag, 8000, c.bits, 0xFFFFFFFF))
			}
			w := c.writer(&data)
			for rest := pcm; len(rest) > 0; { // odd-sized writes split samples
				n := min(len(rest), 1001)
				if _, err := w.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			opts := []string{"-f", c.name, "-ar", "8000", "-ac", "1"}
			if container == "wav" {
				opts = []string{"-f", "wav"}
			} else if data.Len() != len(in)*c.bits/8 {
				t.Fatalf("%s: %d bytes for %d samples", c.name, data.Len(), len(in))
			}
			clips = append(clips, clip{c.name, container, c.minDB})
			inputs = append(inputs, append(opts, "-i", audiotest.WriteTemp(t, data.Bytes(), container)))
		}
	}
	for i, got := range ffmpegAll(t, 0, inputs...) { // one ffmpeg run for the six
		c := clips[i]
		if db, lag := snr(in, got, 0); db < c.minDB || lag != 0 || len(got) != len(in) {
			t.Errorf("%s %s: %d samples of %d, %.1f dB SNR at lag %d, want ≥ %.0f dB at 0", c.container, c.name, len(got), len(in), db, lag, c.minDB)
		} else {
			t.Logf("%s %s: %.1f dB SNR", c.container, c.name, db)
		}
	}
}
