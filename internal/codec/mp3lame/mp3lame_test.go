package mp3lame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

func tone(rate, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return s
}

// frames walks a constant-bitrate stream frame by frame and returns the
// frame count; it fails on a byte that is not a frame header.
func frames(t *testing.T, b []byte, rate, kbps int) int {
	t.Helper()
	spf := 576
	if rate >= 32000 {
		spf = 1152
	}
	n := 0
	for len(b) > 0 {
		if len(b) < 4 || binary.BigEndian.Uint32(b)>>21 != 0x7ff {
			t.Fatalf("frame %d: no sync word", n)
		}
		size := spf/8*kbps*1000/rate + int(b[2]>>1&1)
		if size > len(b) {
			t.Fatalf("frame %d: %d bytes left, want %d", n, len(b), size)
		}
		b = b[size:]
		n++
	}
	return n
}

func TestEncoder(t *testing.T) {
	for _, c := range []struct {
		rate, kbps int
		tag        bool
	}{{8000, 32, true}, {24000, 64, true}, {24000, 32, true}, {44100, 128, false}, {48000, 64, true}} {
		e, err := New(Config{SampleRate: c.rate, Kbps: c.kbps, Quality: 5, Tag: c.tag})
		if err != nil {
			t.Fatal(err)
		}
		in := tone(c.rate, c.rate+77)
		out, err := e.Encode(nil, in[:1000])
		if err != nil {
			t.Fatal(err)
		}
		if out, err = e.Encode(out, in[1000:]); err != nil {
			t.Fatal(err)
		}
		if out, err = e.Flush(out); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Encode(nil, in); err == nil {
			t.Error("Encode after Flush: no error")
		}
		tag, err := e.TagFrame()
		if err != nil {
			t.Fatal(err)
		}
		// The tag fits when the frame holds 4+9 bytes of header and side
		// information and 156 of tag (MPEG-2 mono).
		wantTag := c.tag && c.rate >= 32000 || c.tag && (576/8*c.kbps*1000/c.rate >= 169)
		if (tag != nil) != wantTag {
			t.Errorf("%d Hz %d kbps: tag of %d bytes, want one: %v", c.rate, c.kbps, len(tag), wantTag)
		}
		if tag != nil && !bytes.Contains(tag, []byte("Info")) {
			t.Errorf("tag frame without Info: % x", tag[:40])
		}
		n := frames(t, out, c.rate, c.kbps)
		if tag != nil {
			n-- // the placeholder
		}
		if n != e.Frames() || e.Delay() != 576 || n*e.FrameSamples() != e.Delay()+len(in)+e.Padding() {
			t.Errorf("%d Hz: %d frames (Frames %d) of %d, delay %d, padding %d, for %d samples",
				c.rate, n, e.Frames(), e.FrameSamples(), e.Delay(), e.Padding(), len(in))
		}
		e.Close()
		e.Close()
		if e.Frames() != n || e.Delay() != 576 || n*e.FrameSamples() != e.Delay()+len(in)+e.Padding() {
			t.Errorf("%d Hz: after Close %d frames, delay %d, padding %d", c.rate, e.Frames(), e.Delay(), e.Padding())
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{SampleRate: 96000, Kbps: 64},
		{SampleRate: 24000, Kbps: 65},
		{SampleRate: 24000, Kbps: 192}, // MPEG-1 only
		{SampleRate: 8000, Kbps: 80},   // MPEG-2.5 stops at 64 in LAME
		{SampleRate: 44100, Kbps: 16},  // MPEG-2 only
		{SampleRate: 24000, Kbps: 64, Quality: 10},
	} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", c, err)
		}
	}
	for rate, want := range map[int]int{8000: 8, 24000: 14, 44100: 14, 1234: 0} {
		if got := len(Bitrates(rate)); got != want {
			t.Errorf("Bitrates(%d): %d, want %d", rate, got, want)
		}
	}
	if !strings.HasPrefix(Version(), "3.") {
		t.Errorf("Version() = %q", Version())
	}
}

// TestChunking checks that the bytes do not depend on how the input is
// divided, and are the same from one encoder to the next.
func TestChunking(t *testing.T) {
	in := tone(24000, 3*24000+5)
	encode := func(sizes ...int) []byte {
		e, err := New(Config{SampleRate: 24000, Kbps: 48, Quality: 3, Tag: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		var out []byte
		s := in
		for i := 0; len(s) > 0; i++ {
			n := min(len(s), sizes[i%len(sizes)])
			if out, err = e.Encode(out, s[:n]); err != nil {
				t.Fatal(err)
			}
			s = s[n:]
		}
		if out, err = e.Flush(out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	whole := encode(len(in))
	for _, sizes := range [][]int{{1}, {575, 1, 0, 9000}, {20000}} {
		if got := encode(sizes...); !bytes.Equal(got, whole) {
			t.Errorf("chunks %v: %d bytes differ from one write's %d", sizes, len(got), len(whole))
		}
	}
}
