package encode_test

import (
	"bytes"
	"encoding/binary"
	"os/exec"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/audiotest"
)

// TestG711: known code words from the standard's tables, and speech at
// 8 kHz decoded by ffmpeg's own μ-law and A-law decoders within the
// codecs' quantization, written through G711Writer in odd-sized pieces (about 38 dB SNR for speech at this level).
func TestG711(t *testing.T) {
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
	for name, compand := range map[string]func(int16) byte{"mulaw": encode.MuLaw, "alaw": encode.ALaw} {
		var data bytes.Buffer
		w := encode.NewG711Writer(&data, compand)
		for rest := pcm; len(rest) > 0; { // odd-sized writes split samples
			n := min(len(rest), 1001)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if data.Len() != len(in) {
			t.Fatalf("%s: %d bytes for %d samples", name, data.Len(), len(in))
		}
		cmd := exec.Command("ffmpeg", "-v", "error", "-f", name, "-ar", "8000", "-ac", "1", "-i", "-", "-f", "s16le", "-")
		cmd.Stdin = &data
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ffmpeg -f %s: %v", name, err)
		}
		got := make([]int16, len(out)/2)
		binary.Decode(out, binary.LittleEndian, got)
		if db, lag := snr(in, got, 0); db < 30 || lag != 0 {
			t.Errorf("%s: %.1f dB SNR at lag %d, want ≥ 30 dB at 0", name, db, lag)
		} else {
			t.Logf("%s: %.1f dB SNR", name, db)
		}
	}
}
