package dsp

import (
	"math"
	"math/rand/v2"
)

// The non-verbal sounds are synthetic: shaped noise for breath and sigh,
// and a tiny formant synthesizer (a pulse train or noise through vowel
// resonators) for laugh and cough. They are gestures that read as the
// event in context, not recordings of people. Their loudness is set
// against speech at an RMS of about 0.1.

// Breath returns an inhalation of about 400 ms: noise band-passed around
// the vocal tract's open resonances, rising and falling.
func Breath(rate int, seed uint64) []float32 {
	rng := newRand(seed)
	n := rate * 400 / 1000
	x := bandNoise(rng, n, rate, 1800, 0.8)
	y := bandNoise(rng, n, rate, 600, 1.0)
	for i := range x {
		x[i] = 0.7*x[i] + 0.3*y[i]
	}
	envelope(x, 0.45, 0.55)
	return normalize(x, 0.02)
}

// Sigh returns an exhalation of about 900 ms: a breathy, falling "haah" —
// noise through open-vowel resonances with a faint voiced tone falling
// from 180 to 110 Hz.
func Sigh(rate int, seed uint64) []float32 {
	rng := newRand(seed)
	n := rate * 900 / 1000
	noise := bandNoise(rng, n, rate, 1000, 0.7)
	voice := vowel(pulses(n, rate, 180, 110), rate, []formant{{700, 130}, {1150, 150}, {2500, 250}})
	normalizeTo(voice, RMS(noise)*0.35)
	for i := range noise {
		noise[i] += voice[i]
	}
	envelope(noise, 0.12, 0.88)
	return normalize(noise, 0.03)
}

// Laugh returns four "ha" syllables over about 800 ms: voiced bursts with
// aspiration on an /a/ vowel, the pitch stepping down from 260 Hz.
func Laugh(rate int, seed uint64) []float32 {
	rng := newRand(seed)
	syl := rate * 120 / 1000
	gap := rate * 80 / 1000
	var out []float32
	for k := range 4 {
		f0 := 260 - 15*float64(k)
		v := vowel(pulses(syl, rate, f0, f0*0.9), rate, []formant{{800, 90}, {1250, 110}, {2600, 200}})
		h := bandNoise(rng, syl, rate, 1500, 0.6)
		normalizeTo(h, RMS(v)*0.5)
		for i := range v {
			// The /h/ leads: aspiration first, voice fading in.
			t := float64(i) / float64(syl)
			v[i] = v[i]*float32(min(1, t*4)) + h[i]*float32(max(0, 1-t*2))
		}
		envelope(v, 0.15, 0.85)
		out = append(out, v...)
		out = AppendSilence(out, gap)
	}
	return normalize(out, 0.08)
}

// Cough returns a cough of about 300 ms: a sharp broadband burst, then a
// short, decaying, rough voiced tail.
func Cough(rate int, seed uint64) []float32 {
	rng := newRand(seed)
	burst := rate * 40 / 1000
	tail := rate * 260 / 1000
	x := bandNoise(rng, burst+tail, rate, 2000, 0.5)
	v := vowel(pulses(burst+tail, rate, 150, 120), rate, []formant{{500, 120}, {1500, 200}, {2500, 300}})
	normalizeTo(v, RMS(x)*0.6)
	for i := range x {
		t := float64(i) / float64(rate)
		var e float64
		if i < burst {
			e = math.Min(1, float64(i)/float64(rate/500)) // 2 ms attack
		} else {
			e = math.Exp(-(t - float64(burst)/float64(rate)) / 0.07)
		}
		x[i] = float32(e) * (x[i] + v[i]*float32(min(1, float64(i)/float64(burst))))
	}
	return normalize(x, 0.1)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xb2ea7)) }

// bandNoise returns n samples of white noise through a band-pass filter at
// centre hertz with quality q.
func bandNoise(rng *rand.Rand, n, rate int, centre, q float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	w := 2 * math.Pi * math.Min(centre, 0.45*float64(rate)) / float64(rate)
	alpha := math.Sin(w) / (2 * q)
	a0 := 1 + alpha
	b0, b2 := alpha/a0, -alpha/a0
	a1, a2 := -2*math.Cos(w)/a0, (1-alpha)/a0
	var x1, x2, y1, y2 float64
	for i, v := range x {
		in := float64(v)
		out := b0*in + b2*x2 - a1*y1 - a2*y2
		x2, x1 = x1, in
		y2, y1 = y1, out
		x[i] = float32(out)
	}
	return x
}

// pulses returns a glottal-like pulse train whose pitch glides from f0 to
// f1 hertz over n samples.
func pulses(n, rate int, f0, f1 float64) []float32 {
	x := make([]float32, n)
	phase := 0.0
	for i := range x {
		f := f0 + (f1-f0)*float64(i)/float64(max(n-1, 1))
		phase += f / float64(rate)
		if phase >= 1 {
			phase--
		}
		// A rounded pulse in the first 40% of the period, closed after.
		if phase < 0.4 {
			x[i] = float32(math.Sin(math.Pi * phase / 0.4))
		}
	}
	// Remove the DC offset so the resonators ring around zero.
	var mean float64
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(max(n, 1))
	for i := range x {
		x[i] -= float32(mean)
	}
	return x
}

type formant struct{ freq, bandwidth float64 }

// vowel passes x through a cascade of formant resonators.
func vowel(x []float32, rate int, fs []formant) []float32 {
	T := 1 / float64(rate)
	for _, f := range fs {
		c := -math.Exp(-2 * math.Pi * f.bandwidth * T)
		b := 2 * math.Exp(-math.Pi*f.bandwidth*T) * math.Cos(2*math.Pi*f.freq*T)
		a := 1 - b - c
		var y1, y2 float64
		for i, v := range x {
			y := a*float64(v) + b*y1 + c*y2
			y2, y1 = y1, y
			x[i] = float32(y)
		}
	}
	return x
}

// envelope shapes x to rise over the first rise fraction of its length
// and fall over the last fall fraction, with raised-cosine curves.
func envelope(x []float32, rise, fall float64) {
	n := float64(len(x))
	for i := range x {
		t := float64(i) / n
		g := 1.0
		if t < rise {
			g = 0.5 - 0.5*math.Cos(math.Pi*t/rise)
		} else if t > 1-fall {
			g = 0.5 + 0.5*math.Cos(math.Pi*(t-(1-fall))/fall)
		}
		x[i] *= float32(g)
	}
}

// normalize scales x to the given RMS and returns it.
func normalize(x []float32, rms float64) []float32 {
	normalizeTo(x, rms)
	return x
}

func normalizeTo(x []float32, rms float64) {
	if r := RMS(x); r > 0 {
		g := float32(rms / r)
		for i := range x {
			x[i] *= g
		}
	}
}
