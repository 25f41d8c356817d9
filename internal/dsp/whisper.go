package dsp

import (
	"math"
	"math/rand/v2"
)

// Whisper parameters.
const (
	whisperFrameMS = 25
	preEmphasis    = 0.9
	// whisperBandwidth scales LPC coefficient k by its k-th power, which
	// pulls the poles inwards: at 22.05 kHz 0.96 widens every formant by
	// about 290 Hz.
	whisperBandwidth = 0.96
)

// Whisper turns the speech in x into a whisper of the same words: it keeps
// the spectral envelope (the formants that make the words) and replaces
// the voice's buzz with noise. Frame by frame (25 ms, half overlap) it
// fits an all-pole (LPC) model to the pre-emphasized signal, drives that
// filter with white noise of the frame's loudness, and overlap-adds the
// frames. seed makes the noise repeatable.
func Whisper(x []float32, rate int, seed uint64) []float32 {
	n := max(rate*whisperFrameMS/1000, 32) &^ 1
	hop := n / 2
	order := min(2+rate/1000, 32)
	win := hann(n)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	// Pre-emphasize so the model does not spend its poles on the
	// spectral tilt of voiced speech.
	pre := make([]float32, len(x)+2*n)
	var last float32
	for i, v := range x {
		pre[hop+i] = v - preEmphasis*last
		last = v
	}
	out := make([]float32, len(pre))
	frame := make([]float64, n)
	noise := make([]float64, n)
	for start := 0; start+n <= len(pre); start += hop {
		var energy float64
		for i := range frame {
			frame[i] = float64(pre[start+i]) * float64(win[i])
			energy += frame[i] * frame[i]
		}
		if energy == 0 {
			continue
		}
		a := lpc(frame, order)
		// Widen the formants a little: whispered formants are broader,
		// and sharp resonances driven by noise ring like a tone.
		bw := 1.0
		for k := range a {
			a[k] *= bw
			bw *= whisperBandwidth
		}
		// Filter white noise through 1/A(z).
		var got float64
		for i := range noise {
			v := rng.NormFloat64()
			for k := 1; k <= order && k <= i; k++ {
				v -= a[k] * noise[i-k]
			}
			noise[i] = v
			w := v * float64(win[i])
			got += w * w
		}
		g := math.Sqrt(energy / max(got, 1e-20))
		o := out[start:]
		for i, v := range noise {
			o[i] += float32(g * v * float64(win[i]))
		}
	}
	// De-emphasize, undoing the pre-emphasis.
	y := make([]float32, len(x))
	var prev float32
	for i := range y {
		prev = out[hop+i] + preEmphasis*prev
		y[i] = prev
	}
	// Keep the overall loudness of the original.
	if r := RMS(y); r > 0 {
		Gain(y, 20*math.Log10(RMS(x)/r))
	}
	return y
}

// lpc returns the coefficients a[0..order] (a[0] = 1) of the all-pole
// model of frame, by the autocorrelation method and Levinson-Durbin
// recursion. The prediction is x[n] ≈ -Σ a[k]·x[n-k].
func lpc(frame []float64, order int) []float64 {
	r := make([]float64, order+1)
	for k := range r {
		for i := k; i < len(frame); i++ {
			r[k] += frame[i] * frame[i-k]
		}
	}
	r[0] *= 1 + 1e-4 // a little white noise keeps the recursion stable
	a := make([]float64, order+1)
	a[0] = 1
	tmp := make([]float64, order+1)
	e := r[0]
	for i := 1; i <= order && e > 0; i++ {
		acc := r[i]
		for k := 1; k < i; k++ {
			acc += a[k] * r[i-k]
		}
		refl := -acc / e
		copy(tmp, a)
		for k := 1; k < i; k++ {
			a[k] = tmp[k] + refl*tmp[i-k]
		}
		a[i] = refl
		e *= 1 - refl*refl
	}
	return a
}
