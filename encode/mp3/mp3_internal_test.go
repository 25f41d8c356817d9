package mp3

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/voxkit/voxkit/encode"
)

// TestMP3InfoFrame checks our Info frame's fields against the format.
func TestMP3InfoFrame(t *testing.T) {
	enc, err := newMP3Encoder(io.Discard, encode.Format{Name: "mp3", SampleRate: 24000})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	e := enc.(*mp3Encoder)
	b := e.infoFrame(10, 808, 300)
	if len(b) != 192 { // 576/8 · 64 kbps / 24 kHz
		t.Fatalf("Info frame %d bytes", len(b))
	}
	if b[0] != 0xff || b[1] != 0xf3 || b[2] != 0x84 || b[3]&0xc0 != 0xc0 {
		t.Fatalf("header % x: want MPEG-2 Layer III, 64 kbps, 24 kHz, mono", b[:4])
	}
	tag := b[4+9:]
	if string(tag[:4]) != "Info" || tag[7] != 3 || tag[11] != 10 || binary.BigEndian.Uint32(tag[12:]) != 1000 || string(tag[16:20]) != "LAME" {
		t.Fatalf("tag % x", tag[:24])
	}
	if delay, pad := tagDelay(tag[16:]); delay != 576 || pad != 300 {
		t.Fatalf("delay %d padding %d, want LAME's 576 and 300", delay, pad)
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

// tagDelay reads the encoder delay and padding of a LAME tag.
func tagDelay(lame []byte) (delay, padding int) {
	d := lame[21:]
	return int(d[0])<<4 | int(d[1])>>4, int(d[1]&0xf)<<8 | int(d[2])
}

// TestMP3CompleteInfo checks the Info frame of complete clips: LAME's own
// where it fits in a frame (with a seek table), ours below that, both
// with the frame count, stream size, delay and padding of the stream.
func TestMP3CompleteInfo(t *testing.T) {
	for _, c := range []struct {
		rate, bitrate int
		lames         bool
	}{{24000, 64000, true}, {24000, 32000, false}, {44100, 128000, true}, {44100, 40000, false}, {8000, 32000, true}} {
		t.Run(fmt.Sprintf("%d/%d", c.rate, c.bitrate), func(t *testing.T) {
			f := encode.Format{Name: "mp3", SampleRate: c.rate, Bitrate: c.bitrate}
			p, err := newMP3Params(f)
			if err != nil {
				t.Fatal(err)
			}
			n := c.rate*2 + 123
			in := make([]int16, n)
			for i := range in {
				in[i] = int16(i * 7919 % 4001)
			}
			var buf bytes.Buffer
			e, err := newMP3Encoder(&buf, f)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Encode(in); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			b := buf.Bytes()
			tag := b[4+p.sideInfoSize:]
			if string(tag[:4]) != "Info" {
				t.Fatalf("no Info tag: % x", b[:48])
			}
			flags := binary.BigEndian.Uint32(tag[4:])
			if lames := flags == 0xf; lames != c.lames {
				t.Errorf("Info flags %#x: LAME's tag %v, want %v", flags, lames, c.lames)
			}
			frames := int(binary.BigEndian.Uint32(tag[8:]))
			if size := int(binary.BigEndian.Uint32(tag[12:])); size != len(b) {
				t.Errorf("Info size %d, stream %d bytes", size, len(b))
			}
			lame := tag[16:]
			if flags&4 != 0 {
				lame = tag[16+100+4:] // after the seek table and quality
			}
			if string(lame[:4]) != "LAME" {
				t.Fatalf("no LAME tag: % x", lame[:24])
			}
			delay, pad := tagDelay(lame)
			if delay != 576 || frames*p.spf != delay+n+pad {
				t.Errorf("%d frames of %d, delay %d, padding %d: not %d samples", frames, p.spf, delay, pad, n)
			}
		})
	}
}
