package encode

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/internal/audiotest"
)

// TestMP3Bitrates decodes one second at every rate with its lowest and
// highest accepted bitrates: the limits newMP3Params sets around shine
// must hold on both sides, and ffmpeg must read every frame cleanly.
func TestMP3Bitrates(t *testing.T) {
	audiotest.Require(t, "ffmpeg")
	for _, rate := range mp3Rates {
		p, err := newMP3Params(rate, 0)
		if err != nil {
			t.Fatalf("%d Hz default bitrate: %v", rate, err)
		}
		table := mp3KbpsV2
		if p.version == 3 {
			table = mp3KbpsV1
		}
		var ok []int
		for _, k := range table[1:] {
			if _, err := newMP3Params(rate, k*1000); err == nil {
				ok = append(ok, k)
			} else if !errors.Is(err, ErrUnsupportedBitrate) {
				t.Fatalf("%d Hz %d kbps: %v", rate, k, err)
			}
		}
		if len(ok) < 3 {
			t.Fatalf("%d Hz: only %v kbps accepted", rate, ok)
		}
		for _, k := range []int{ok[0], p.kbps, ok[len(ok)-1]} {
			t.Run(fmt.Sprintf("%d/%d", rate, k), func(t *testing.T) {
				t.Parallel()
				in := make([]int16, rate)
				for i := range in {
					x := float64(i) / float64(rate)
					in[i] = int16(6000*math.Sin(2*math.Pi*300*x) + 3000*math.Sin(2*math.Pi*1250*x))
				}
				var buf bytes.Buffer
				e, err := newMP3Encoder(&buf, Format{Name: "mp3", SampleRate: rate, Bitrate: k * 1000})
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Encode(in); err != nil {
					t.Fatal(err)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "a.mp3")
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				var stderr bytes.Buffer
				cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-")
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil || stderr.Len() > 0 {
					t.Fatalf("ffmpeg: %v %s", err, stderr.String())
				}
				if len(out)/2 != len(in) {
					t.Errorf("decoded %d samples, want %d", len(out)/2, len(in))
				}
			})
		}
	}
}

// TestMP3InfoFrame checks the Info frame's fields against the format.
func TestMP3InfoFrame(t *testing.T) {
	p, err := newMP3Params(24000, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := &mp3Encoder{p: p, want: 1000}
	b := e.infoFrame(10, 300)
	if len(b) != 192 { // 576/8 · 64 kbps / 24 kHz
		t.Fatalf("Info frame %d bytes", len(b))
	}
	if b[0] != 0xff || b[1] != 0xf3 || b[2] != 0x84 || b[3]&0xc0 != 0xc0 {
		t.Fatalf("header % x: want MPEG-2 Layer III, 64 kbps, 24 kHz, mono", b[:4])
	}
	tag := b[4+9:]
	if string(tag[:4]) != "Info" || tag[7] != 3 || tag[11] != 10 || string(tag[16:20]) != "LAME" {
		t.Fatalf("tag % x", tag[:24])
	}
	d := tag[16+21:]
	if delay, pad := int(d[0])<<4|int(d[1])>>4, int(d[1]&0xf)<<8|int(d[2]); delay != mp3EncoderDelay || pad != 300 {
		t.Fatalf("delay %d padding %d", delay, pad)
	}
	if got := crc16ARC([]byte("123456789")); got != 0xbb3d {
		t.Fatalf("crc16ARC check value %#x, want 0xbb3d", got)
	}
	// The tag's CRC covers the frame up to it.
	end := 4 + 9 + 16 + 36
	if got, want := int(b[end-2])<<8|int(b[end-1]), int(crc16ARC(b[:end-2])); got != want {
		t.Fatalf("tag CRC %#x, want %#x", got, want)
	}
}
