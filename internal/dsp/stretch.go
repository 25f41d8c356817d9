package dsp

import (
	"math"
)

// WSOLA (waveform-similarity overlap-add) parameters, in milliseconds.
const (
	wsolaFrameMS  = 30 // analysis frame; hop is half of it
	wsolaSearchMS = 12 // how far each frame may move to line up
)

// Stretch changes the tempo of the speech in x, sampled at rate hertz,
// without changing its pitch: speed 2 halves the duration, 0.5 doubles
// it. The result has round(len(x)/speed) samples. It uses WSOLA: each
// output frame is taken from near its nominal place in the input, shifted
// to the offset whose waveform best continues the previous frame, and the
// frames are overlap-added under Hann windows.
func Stretch(x []float32, rate int, speed float64) []float32 {
	if speed <= 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
		speed = 1
	}
	outLen := int(math.Round(float64(len(x)) / speed))
	if speed == 1 || len(x) == 0 {
		return append([]float32(nil), x...)
	}
	n := max(rate*wsolaFrameMS/1000, 16) &^ 1
	hop := n / 2
	search := rate * wsolaSearchMS / 1000
	win := hann(n)
	// Output frame k covers out[k*hop-hop, k*hop+hop): starting half a
	// frame early means the first samples get full weight too.
	out := make([]float32, outLen+2*n)
	// pad lets frames read past either end of x as silence.
	pad := search + 3*n
	src := make([]float32, len(x)+2*pad)
	copy(src[pad:], x)

	prev := -1 // input position (in src) of the previous frame
	for k := 0; k*hop < outLen+hop; k++ {
		nominal := pad + int(math.Round(float64(k*hop-hop)*speed))
		pos := nominal
		if prev >= 0 {
			// The natural continuation of the previous frame starts at
			// prev+hop; pick the candidate that best matches it over the
			// overlapping half frame.
			pos = bestMatch(src, prev+hop, nominal, search, hop)
		}
		frame := src[pos : pos+n]
		o := out[k*hop:]
		for i, w := range win {
			o[i] += frame[i] * w
		}
		prev = pos
	}
	return out[hop : hop+outLen]
}

// bestMatch returns the position within search of centre whose next m
// samples correlate best with src[target:target+m].
func bestMatch(src []float32, target, centre, search, m int) int {
	lo := max(centre-search, 0)
	hi := min(centre+search, len(src)-2*m)
	if target+m > len(src) || hi < lo {
		return max(0, min(centre, len(src)-2*m))
	}
	ref := src[target : target+m]
	best, bestPos := math.Inf(-1), centre
	for p := lo; p <= hi; p++ {
		cand := src[p : p+m]
		var xy, yy float64
		for i, r := range ref {
			c := float64(cand[i])
			xy += float64(r) * c
			yy += c * c
		}
		score := xy / math.Sqrt(yy+1e-9)
		if score > best {
			best, bestPos = score, p
		}
	}
	return bestPos
}

// hann returns a periodic Hann window of n points; at half overlap such
// windows sum to 1.
func hann(n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n)))
	}
	return w
}

// Gain multiplies x in place by db decibels; math.Inf(-1) gives silence.
func Gain(x []float32, db float64) {
	if db == 0 || math.IsNaN(db) {
		return
	}
	g := float32(math.Pow(10, db/20))
	if math.IsInf(db, -1) {
		g = 0
	}
	for i := range x {
		x[i] *= g
	}
}

// limitKnee is the level above which SoftLimit bends the signal.
const limitKnee = 0.8

// SoftLimit keeps x within (-1, 1) without hard clipping: samples below
// limitKnee in magnitude are unchanged, louder ones are bent smoothly
// (tanh) toward ±1. Effects that raise the level (gain, pitch shifting)
// use it so that loud speech is not clipped into distortion.
func SoftLimit(x []float32) {
	const room = 1 - limitKnee
	for i, v := range x {
		a := math.Abs(float64(v))
		if a <= limitKnee {
			continue
		}
		y := limitKnee + room*math.Tanh((a-limitKnee)/room)
		x[i] = float32(math.Copysign(y, float64(v)))
	}
}

// AppendSilence appends n samples of silence to dst.
func AppendSilence(dst []float32, n int) []float32 {
	return append(dst, make([]float32, max(n, 0))...)
}
