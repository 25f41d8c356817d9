package dsp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func tone(freq float64, rate, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(0.5 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return s
}

// rms over the middle of x, away from the filter's edges.
func rms(x []float32) float64 { return RMS(x[len(x)/4 : 3*len(x)/4]) }

func resampleAll(t *testing.T, in, out int, x []float32) []float32 {
	t.Helper()
	r, err := NewResampler(in, out)
	if err != nil {
		t.Fatal(err)
	}
	y := r.Process(nil, x)
	return r.Flush(y)
}

func TestResamplerPassband(t *testing.T) {
	for _, c := range []struct{ in, out int }{{22050, 24000}, {16000, 24000}, {24000, 16000}, {48000, 24000}, {22050, 44100}} {
		x := tone(5000, c.in, c.in)
		if c.in == 16000 || c.out == 16000 {
			x = tone(3000, c.in, c.in) // 5 kHz is past 16 kHz's passband
		}
		y := resampleAll(t, c.in, c.out, x)
		db := 20 * math.Log10(rms(y)/rms(x))
		if math.Abs(db) > 0.1 {
			t.Errorf("%d→%d: passband tone changed by %.3f dB", c.in, c.out, db)
		}
	}
}

func TestResamplerStopband(t *testing.T) {
	for _, c := range []struct {
		in, out int
		freq    float64
	}{{48000, 24000, 13000}, {24000, 16000, 9000}, {44100, 22050, 16000}, {24000, 8000, 5000}} {
		x := tone(c.freq, c.in, c.in)
		y := resampleAll(t, c.in, c.out, x)
		db := 20 * math.Log10(rms(y)/rms(x))
		if db > -60 {
			t.Errorf("%d→%d: %.0f Hz tone above the output's Nyquist attenuated only %.1f dB", c.in, c.out, c.freq, -db)
		}
	}
}

func TestResamplerLength(t *testing.T) {
	for _, n := range []int{0, 1, 7, 22050, 40000} {
		y := resampleAll(t, 22050, 24000, make([]float32, n))
		want := (n*24000 + 22049) / 22050
		if len(y) != want {
			t.Errorf("%d samples in: got %d out, want %d", n, len(y), want)
		}
	}
}

func TestResamplerChunkingInvariant(t *testing.T) {
	x := tone(440, 22050, 30000)
	whole := resampleAll(t, 22050, 24000, x)
	r, _ := NewResampler(22050, 24000)
	rng := rand.New(rand.NewPCG(1, 2))
	var y []float32
	for rest := x; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(3000))
		y = r.Process(y, rest[:n])
		rest = rest[n:]
	}
	y = r.Flush(y)
	if len(y) != len(whole) {
		t.Fatalf("chunked length %d, whole %d", len(y), len(whole))
	}
	for i := range y {
		if y[i] != whole[i] {
			t.Fatalf("sample %d differs: %v vs %v", i, y[i], whole[i])
		}
	}
}

func TestResamplerReset(t *testing.T) {
	x := tone(440, 22050, 5000)
	whole := resampleAll(t, 22050, 24000, x)
	r, _ := NewResampler(22050, 24000)
	for _, stop := range []bool{true, false} { // flushed, then left midway
		r.Reset()
		r.Process(nil, tone(1000, 22050, 3000))
		if stop {
			r.Flush(nil)
		}
		r.Reset()
		y := r.Flush(r.Process(nil, x))
		if !slices.Equal(y, whole) {
			t.Fatalf("after Reset (flushed %v): %d samples differ from a new resampler's %d", stop, len(y), len(whole))
		}
	}
}

func TestResamplerDelayAligned(t *testing.T) {
	// A click at input sample 1000 must come out at the matching output time.
	x := make([]float32, 2000)
	x[1000] = 1
	y := resampleAll(t, 16000, 24000, x)
	peak := 0
	for i := range y {
		if math.Abs(float64(y[i])) > math.Abs(float64(y[peak])) {
			peak = i
		}
	}
	if peak != 1500 {
		t.Errorf("impulse at output %d, want 1500", peak)
	}
}

func BenchmarkResample22050To24000(b *testing.B) {
	x := tone(440, 22050, 22050)
	b.SetBytes(int64(len(x) * 4))
	for b.Loop() {
		r, _ := NewResampler(22050, 24000)
		r.Flush(r.Process(nil, x))
	}
}

// TestResampleSameRate: between equal rates the samples pass unchanged and
// undelayed.
func TestResampleSameRate(t *testing.T) {
	r, err := NewResampler(24000, 24000)
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{0.5, -0.25, 1, 0}
	got := r.Process(nil, x[:3])
	got = r.Process(got, x[3:])
	got = r.Flush(got)
	if !slices.Equal(got, x) {
		t.Errorf("got %v, want %v", got, x)
	}
}
