package opusenc

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestEncoder(t *testing.T) {
	for _, rate := range []int{8000, 12000, 16000, 24000, 48000} {
		e, err := New(rate, AppAudio)
		if err != nil {
			t.Fatal(err)
		}
		la, err := e.Lookahead()
		if err != nil {
			t.Fatal(err)
		}
		// libopus: 2.5 ms of look-ahead plus 4 ms of delay compensation.
		if want := rate * 65 / 10000; la != want {
			t.Errorf("%d Hz: lookahead %d, want %d", rate, la, want)
		}
		if err := e.SetBitrate(24000); err != nil {
			t.Fatal(err)
		}
		frame := make([]int16, rate/50)
		for i := range frame {
			frame[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		}
		out := make([]byte, MaxPacket)
		n, err := e.Encode(frame, out)
		if err != nil || n == 0 {
			t.Fatalf("%d Hz: Encode = %d, %v", rate, n, err)
		}
	}
	if _, err := New(44100, AppAudio); err == nil {
		t.Error("New(44100): no error")
	}
	e, _ := New(48000, AppVoIP)
	if _, err := e.Encode(make([]int16, 100), make([]byte, MaxPacket)); err == nil {
		t.Error("Encode of a 100-sample frame: no error")
	}
	if err := e.SetComplexity(42); err == nil {
		t.Error("SetComplexity(42): no error")
	}
	if !strings.HasPrefix(Version(), "libopus") {
		t.Errorf("Version() = %q", Version())
	}
}

// TestDecoder: what the encoder makes decodes back, 48 kHz, delayed by
// the lookahead; the output gain scales it; garbage is an ErrPacket.
func TestDecoder(t *testing.T) {
	const rate, frame = 48000, 960
	e, err := New(rate, AppAudio)
	if err != nil {
		t.Fatal(err)
	}
	la, _ := e.Lookahead()
	in := make([]int16, 50*frame)
	for i := range in {
		in[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
	}
	var packets [][]byte
	for i := 0; i < len(in); i += frame {
		buf := make([]byte, MaxPacket)
		n, err := e.Encode(in[i:i+frame], buf)
		if err != nil {
			t.Fatal(err)
		}
		packets = append(packets, buf[:n])
	}
	decode := func(gain int) []float32 {
		d, err := NewDecoder(gain)
		if err != nil {
			t.Fatal(err)
		}
		var out []float32
		for _, p := range packets {
			if out, err = d.Decode(out, p); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	out := decode(0)
	if len(out) != len(in) {
		t.Fatalf("%d samples, want %d", len(out), len(in))
	}
	var ab, aa, bb float64
	for i := la; i < len(out); i++ {
		x, y := float64(out[i]), float64(in[i-la])/32768
		ab, aa, bb = ab+x*y, aa+x*x, bb+y*y
	}
	if r := ab / math.Sqrt(aa*bb); r < 0.99 {
		t.Errorf("correlation %.4f with the input", r)
	}
	loud := decode(6 * 256) // +6 dB
	var el, eo float64
	for i := range out {
		el, eo = el+float64(loud[i]*loud[i]), eo+float64(out[i]*out[i])
	}
	if g := 10 * math.Log10(el/eo); math.Abs(g-6) > 0.1 {
		t.Errorf("+6 dB of output gain gave %+.2f dB", g)
	}
	d, _ := NewDecoder(0)
	if _, err := d.Decode(nil, []byte{0xff, 0xff, 0xff}); !errors.Is(err, ErrPacket) {
		t.Errorf("garbage: %v, want ErrPacket", err)
	}
}
