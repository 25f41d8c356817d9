package opusenc

import (
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
