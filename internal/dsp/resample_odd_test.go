package dsp

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// oddRates are rates an upload may state whose ratio to 24 kHz needs
// thousands of exact phases (383,997 Hz: 8,000).
var oddRates = []int{383997, 44101, 96001, 7999, 192007}

// worstStopband returns the least attenuation, in dB, of tones from just
// above the output's Nyquist frequency to just below the input's.
func worstStopband(t *testing.T, in, out int, resample func([]float32) []float32) (db, at float64) {
	t.Helper()
	db = math.Inf(1)
	lo, hi := 0.5*float64(out), 0.49*float64(in)
	for f := lo; f <= hi; f += (hi - lo) / 23 {
		x := tone(f, in, in/2)
		if a := -20 * math.Log10(rms(resample(x))/rms(x)); a < db {
			db, at = a, f
		}
	}
	return db, at
}

// TestResamplerOddRates: ratios that need more phases than maxExactBytes
// holds pass the passband flat and stop what is above the output's
// Nyquist frequency as the exact filter does (70 dB by design; 60 dB is
// what TestResamplerStopband asks of the usual rates).
func TestResamplerOddRates(t *testing.T) {
	for _, in := range oddRates {
		r, err := NewResampler(in, 24000)
		if err != nil {
			t.Fatalf("%d → 24000: %v", in, err)
		}
		if r.k.exact {
			t.Errorf("%d → 24000: an exact table of %d phases", in, len(r.k.phases))
		}
		f := 3000.0
		x := tone(f, in, in/2)
		if db := 20 * math.Log10(rms(resampleAll(t, in, 24000, x))/rms(x)); math.Abs(db) > 0.1 {
			t.Errorf("%d → 24000: passband tone changed by %.3f dB", in, db)
		}
		if in <= 24000 {
			continue
		}
		db, at := worstStopband(t, in, 24000, func(x []float32) []float32 { return resampleAll(t, in, 24000, x) })
		t.Logf("%d → 24000: stopband at least %.1f dB (at %.0f Hz)", in, db, at)
		if db < 60 {
			t.Errorf("%d → 24000: a %.0f Hz tone attenuated only %.1f dB", in, at, db)
		}
	}
}

// TestResamplerInterpolatedMatchesExact: between rates that have an exact
// table, the interpolated one gives the same output within -80 dB of full
// scale, up and down.
func TestResamplerInterpolatedMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ in, out int }{{22050, 24000}, {24000, 22050}, {44100, 24000}, {16000, 44100}} {
		x := make([]float32, c.in/2)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
		}
		exact := resampleAll(t, c.in, c.out, x)
		r, _ := NewResampler(c.in, c.out)
		nyq := 0.5 * float64(min(c.in, c.out)) / float64(c.in)
		beta := 0.1102 * (stopbandDB - 8.7)
		r.k = newKernel(r.up, r.half, 0.9*nyq, beta, true)
		got := r.Flush(r.Process(nil, x))
		if len(got) != len(exact) {
			t.Fatalf("%d → %d: %d samples, exact %d", c.in, c.out, len(got), len(exact))
		}
		var worst float64
		for i := range got {
			worst = max(worst, math.Abs(float64(got[i]-exact[i])))
		}
		t.Logf("%d → %d: interpolated differs by at most %.1f dB", c.in, c.out, 20*math.Log10(worst))
		if worst > 1e-4 {
			t.Errorf("%d → %d: interpolated output differs by %.2g", c.in, c.out, worst)
		}
	}
}

// TestResamplerMemoryBounded: a resampler for any rate takes a few MB at
// most, and resamplers for 40 odd rates, once dropped, leave no more
// than the kernel cache's bound behind (each held a 22 MB table once).
func TestResamplerMemoryBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 40 {
		in := 383997 - 6*i
		if in%5 == 0 {
			in -= 2
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		r, err := NewResampler(in, 24000)
		if err != nil {
			t.Fatalf("%d Hz: %v", in, err)
		}
		r.Flush(r.Process(nil, make([]float32, 4800)))
		runtime.ReadMemStats(&m1)
		if n := m1.TotalAlloc - m0.TotalAlloc; n > 3<<20 {
			t.Fatalf("%d → 24000 Hz allocated %.1f MB", in, float64(n)/(1<<20))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > maxCachedBytes+1<<20 {
		t.Errorf("40 odd rates left %.1f MB on the heap", float64(grown)/(1<<20))
	}
}

func TestNewResamplerRates(t *testing.T) {
	for _, c := range []struct{ in, out int }{{0, 24000}, {24000, -1}, {64*8000 + 1, 8000}} {
		if _, err := NewResampler(c.in, c.out); !errors.Is(err, ErrRates) {
			t.Errorf("%d → %d: %v, want ErrRates", c.in, c.out, err)
		}
	}
	for _, c := range []struct{ in, out int }{{64 * 8000, 8000}, {1, 24000}, {7, 48000}} {
		if _, err := NewResampler(c.in, c.out); err != nil {
			t.Errorf("%d → %d: %v", c.in, c.out, err)
		}
	}
}

func BenchmarkResample44101To24000(b *testing.B) {
	x := tone(440, 44101, 44101)
	b.SetBytes(int64(len(x) * 4))
	for b.Loop() {
		r, _ := NewResampler(44101, 24000)
		r.Flush(r.Process(nil, x))
	}
}

// TestKernelCacheBounded: the cache never holds more than its bound, and
// drops the least recently used kernel first.
func TestKernelCacheBounded(t *testing.T) {
	c := kernelCache{max: 64 << 10}
	beta := 0.1102 * (stopbandDB - 8.7)
	kept := [2]int{1, 1}
	c.put(kept, newKernel(3, 23, 0.45, beta, false))
	for i := range 200 {
		c.put([2]int{2, i}, newKernel(1+i%40, 23, 0.45, beta, false))
		if c.get(kept) == nil {
			t.Fatalf("after %d more: the kernel used at each step was dropped", i+1)
		}
		if c.bytes > c.max {
			t.Fatalf("after %d more: %d bytes held, bound %d", i+1, c.bytes, c.max)
		}
	}
	var sum int
	for _, e := range c.held {
		sum += e.k.bytes()
	}
	if sum != c.bytes || len(c.held) >= 200 {
		t.Errorf("%d kernels of %d bytes, counted %d", len(c.held), sum, c.bytes)
	}
}
