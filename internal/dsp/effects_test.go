package dsp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

const testRate = 22050

// voiceLike returns d seconds of a harmonic tone at f0 hertz with a
// syllable-rate amplitude wobble, a stand-in for voiced speech.
func voiceLike(d, f0 float64, rate int) []float32 {
	n := int(d * float64(rate))
	x := make([]float32, n)
	for i := range x {
		t := float64(i) / float64(rate)
		ph := 2 * math.Pi * f0 * t
		env := 0.6 + 0.4*math.Sin(2*math.Pi*4*t)
		x[i] = float32(env * (0.3*math.Sin(ph) + 0.15*math.Sin(2*ph) + 0.08*math.Sin(3*ph) + 0.04*math.Sin(5*ph)))
	}
	return x
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestMeasures(t *testing.T) {
	for _, f0 := range []float64{90, 150, 220, 380} {
		x := voiceLike(0.5, f0, testRate)
		if got := audiotest.EstimateF0(x, testRate); !within(got, f0, 0.02) {
			t.Errorf("EstimateF0 of %g Hz tone = %.1f", f0, got)
		}
		if p := audiotest.Periodicity(x, testRate); p < 0.9 {
			t.Errorf("Periodicity of %g Hz tone = %.2f", f0, p)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]float32, testRate)
	for i := range noise {
		noise[i] = float32(rng.NormFloat64() * 0.1)
	}
	if p := audiotest.Periodicity(noise, testRate); p > 0.3 {
		t.Errorf("Periodicity of noise = %.2f", p)
	}
	if f := audiotest.EstimateF0(noise, testRate); f != 0 {
		t.Errorf("EstimateF0 of noise = %.1f, want 0", f)
	}
	if r := dsp.RMS([]float32{3, -4, 3, -4}); !within(r, math.Sqrt(12.5), 1e-9) {
		t.Errorf("RMS = %g", r)
	}
}

func TestStretch(t *testing.T) {
	x := voiceLike(1, 150, testRate)
	for _, speed := range []float64{0.25, 0.5, 0.75, 1, 1.3, 2, 4} {
		y := dsp.Stretch(x, testRate, speed)
		want := int(math.Round(float64(len(x)) / speed))
		if len(y) != want {
			t.Errorf("speed %g: %d samples, want %d", speed, len(y), want)
		}
		if f := audiotest.EstimateF0(y, testRate); !within(f, 150, 0.03) {
			t.Errorf("speed %g: F0 %.1f, want 150 kept", speed, f)
		}
		if r, r0 := dsp.RMS(y), dsp.RMS(x); !within(r, r0, 0.15) {
			t.Errorf("speed %g: RMS %.3f, was %.3f", speed, r, r0)
		}
	}
}

func TestShapePitchShifts(t *testing.T) {
	for _, f0 := range []float64{120, 200} {
		x := voiceLike(1, f0, testRate)
		for _, st := range []float64{-12, -4, -2, 1, 3, 4, 12} {
			y := dsp.ShapePitch(x, testRate, st, 1)
			want := f0 * math.Pow(2, st/12)
			if f := audiotest.EstimateF0(y, testRate); !within(f, want, 0.03) {
				t.Errorf("%g Hz %+g st: F0 %.1f, want %.1f", f0, st, f, want)
			}
			if len(y) != len(x) {
				t.Errorf("%g Hz %+g st: %d samples, want %d", f0, st, len(y), len(x))
			}
			if r, r0 := dsp.RMS(y), dsp.RMS(x); !within(r, r0, 0.2) {
				t.Errorf("%g Hz %+g st: RMS %.3f, was %.3f", f0, st, r, r0)
			}
		}
	}
}

// TestPitchShiftKeepsFormants: PSOLA moves the harmonics, not the
// spectral envelope, so a tone whose energy sits near 2.6 kHz keeps it
// there an octave up (resampling would move it to 5.2 kHz).
func TestShapePitchKeepsFormants(t *testing.T) {
	x := bright(1, testRate)
	c0 := centroid(x)
	for _, st := range []float64{-5, 7, 12} {
		c := centroid(dsp.ShapePitch(x, testRate, st, 1))
		if !within(c, c0, 0.25) {
			t.Errorf("%+g st: centroid %.0f Hz, was %.0f", st, c, c0)
		}
	}
}

// TestShapePitchSpan: a pitch glide keeps its mean but its excursion
// scales with span.
func TestShapePitchSpan(t *testing.T) {
	// A glide from 100 to 200 Hz over a second.
	n := testRate
	x := make([]float32, n)
	ph := 0.0
	for i := range x {
		f := 100 + 100*float64(i)/float64(n)
		ph += 2 * math.Pi * f / testRate
		x[i] = float32(0.3*math.Sin(ph) + 0.15*math.Sin(2*ph))
	}
	edge := func(y []float32) (lo, hi float64) {
		q := len(y) / 5
		return audiotest.EstimateF0(y[:q], testRate), audiotest.EstimateF0(y[len(y)-q:], testRate)
	}
	lo0, hi0 := edge(x)
	spread0 := audiotest.F0Spread(x, testRate)
	for _, span := range []float64{0.5, 1.5} {
		if got := audiotest.F0Spread(dsp.ShapePitch(x, testRate, 0, span), testRate); !within(got, span*spread0, 0.15) {
			t.Errorf("span %g: F0 spread %.2f st, want %.2f", span, got, span*spread0)
		}
		lo, hi := edge(dsp.ShapePitch(x, testRate, 0, span))
		got, want := math.Log(hi/lo), span*math.Log(hi0/lo0)
		if !within(got, want, 0.15) {
			t.Errorf("span %g: excursion %.3f (log ratio), want %.3f", span, got, want)
		}
		if mid, mid0 := math.Sqrt(lo*hi), math.Sqrt(lo0*hi0); !within(mid, mid0, 0.05) {
			t.Errorf("span %g: centre %.1f Hz, was %.1f", span, mid, mid0)
		}
	}
}

func TestGain(t *testing.T) {
	for _, db := range []float64{-12, -6, 0, 3.5, 6} {
		x := voiceLike(0.2, 150, testRate)
		r0 := dsp.RMS(x)
		dsp.Gain(x, db)
		if got := 20 * math.Log10(dsp.RMS(x)/r0); math.Abs(got-db) > 0.01 {
			t.Errorf("Gain %g dB changed RMS by %.3f dB", db, got)
		}
	}
	x := voiceLike(0.2, 150, testRate)
	dsp.Gain(x, math.Inf(-1))
	if dsp.RMS(x) != 0 {
		t.Error("Gain -Inf left sound")
	}
	if got := dsp.AppendSilence([]float32{1}, 10); len(got) != 11 || dsp.RMS(got[1:]) != 0 {
		t.Errorf("AppendSilence = %v", got)
	}
}

func TestWhisper(t *testing.T) {
	x := voiceLike(1, 140, testRate)
	y := dsp.Whisper(x, testRate, 1)
	if len(y) != len(x) {
		t.Fatalf("%d samples, want %d", len(y), len(x))
	}
	px, py := audiotest.Periodicity(x, testRate), audiotest.Periodicity(y, testRate)
	if px < 0.9 || py > 0.45 {
		t.Errorf("periodicity %.2f → %.2f, want voiced → unvoiced", px, py)
	}
	if !within(dsp.RMS(y), dsp.RMS(x), 0.05) {
		t.Errorf("RMS %.3f, want %.3f kept", dsp.RMS(y), dsp.RMS(x))
	}
	// The envelope follows the input: loud and quiet halves stay so.
	quiet := voiceLike(1, 140, testRate)
	dsp.Gain(quiet[:len(quiet)/2], -20)
	w := dsp.Whisper(quiet, testRate, 1)
	if ratio := dsp.RMS(w[len(w)/2:]) / dsp.RMS(w[:len(w)/2]); ratio < 5 {
		t.Errorf("loud/quiet ratio %.1f after whisper, want about 10", ratio)
	}
	// The spectral envelope survives: a low and a high vowel-like tone
	// keep their order of brightness.
	if c1, c2 := centroid(dsp.Whisper(voiceLike(1, 140, testRate), testRate, 2)), centroid(dsp.Whisper(bright(1, testRate), testRate, 2)); c1 >= c2 {
		t.Errorf("spectral centroid %.0f Hz for dull, %.0f Hz for bright input", c1, c2)
	}
}

// bright returns a tone with strong high harmonics.
func bright(d float64, rate int) []float32 {
	x := make([]float32, int(d*float64(rate)))
	for i := range x {
		ph := 2 * math.Pi * 140 * float64(i) / float64(rate)
		x[i] = float32(0.05*math.Sin(ph) + 0.2*math.Sin(18*ph) + 0.2*math.Sin(20*ph))
	}
	return x
}

// centroid estimates the spectral centroid in hertz from zero crossings
// of the first difference weighted by energy — enough to rank signals.
func centroid(x []float32) float64 {
	var cross int
	for i := 1; i < len(x); i++ {
		if (x[i] >= 0) != (x[i-1] >= 0) {
			cross++
		}
	}
	return float64(cross) * testRate / float64(2*len(x))
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         func(int, uint64) []float32
		dur       float64 // seconds
		rms       float64 // over the whole sound
		maxPeriod float64
		minPeriod float64
		rate      int
	}{
		{"breath", dsp.Breath, 0.4, 0.02, 0.35, 0, 16000},
		{"sigh", dsp.Sigh, 0.9, 0.03, 0.6, 0, 22050},
		{"laugh", dsp.Laugh, 0.8, 0.08, 1, 0.5, 24000},
		{"cough", dsp.Cough, 0.3, 0.1, 0.8, 0, 22050},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.f(tc.rate, 7)
			if d := float64(len(x)) / float64(tc.rate); !within(d, tc.dur, 0.05) {
				t.Errorf("lasts %.3f s, want %.3f", d, tc.dur)
			}
			if r := dsp.RMS(x); !within(r, tc.rms, 0.01) {
				t.Errorf("RMS %.4f, want %.4f", r, tc.rms)
			}
			p := audiotest.Periodicity(x, tc.rate)
			if p > tc.maxPeriod || p < tc.minPeriod {
				t.Errorf("periodicity %.2f, want %.2f to %.2f", p, tc.minPeriod, tc.maxPeriod)
			}
			for i, v := range x {
				if math.IsNaN(float64(v)) || v > 1 || v < -1 {
					t.Fatalf("sample %d = %g", i, v)
				}
			}
			// Deterministic for a seed, different across seeds.
			if y := tc.f(tc.rate, 7); dsp.RMS(y) != dsp.RMS(x) || y[len(y)/3] != x[len(x)/3] {
				t.Error("same seed gave different sound")
			}
			if y := tc.f(tc.rate, 8); y[len(y)/3] == x[len(x)/3] {
				t.Error("another seed gave the same sound")
			}
		})
	}
}

func BenchmarkStretch(b *testing.B) {
	x := voiceLike(3, 150, testRate)
	b.SetBytes(int64(len(x)) * 4)
	for b.Loop() {
		dsp.Stretch(x, testRate, 1.3)
	}
}

func BenchmarkShapePitchShift(b *testing.B) {
	x := voiceLike(3, 150, testRate)
	b.SetBytes(int64(len(x)) * 4)
	for b.Loop() {
		dsp.ShapePitch(x, testRate, 4, 1)
	}
}

func BenchmarkWhisper(b *testing.B) {
	x := voiceLike(3, 150, testRate)
	b.SetBytes(int64(len(x)) * 4)
	for b.Loop() {
		dsp.Whisper(x, testRate, 1)
	}
}

func BenchmarkShapePitch(b *testing.B) {
	x := voiceLike(3, 150, testRate)
	b.SetBytes(int64(len(x)) * 4)
	for b.Loop() {
		dsp.ShapePitch(x, testRate, 3, 1.5)
	}
}

func TestSoftLimit(t *testing.T) {
	x := []float32{0, 0.5, -0.8, 0.9, -1.2, 3, -40}
	dsp.SoftLimit(x)
	want := []float32{0, 0.5, -0.8}
	for i, w := range want {
		if x[i] != w {
			t.Errorf("sample %d below the knee changed: %v", i, x[i])
		}
	}
	prev := float32(0.8)
	for i, v := range []float32{x[3], -x[4], x[5], -x[6]} {
		if v < prev || v > 1 || (i < 2 && v == prev) {
			t.Errorf("limited sample %d = %v, want rising in (0.8, 1]", i, v)
		}
		prev = v
	}
}
