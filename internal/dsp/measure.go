package dsp

import (
	"math"
	"slices"
)

// RMS returns the root mean square of x, 0 for no samples.
func RMS(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(x)))
}

// Pitch analysis limits, in hertz.
const (
	minF0 = 60
	maxF0 = 500
)

// PitchFrame analyses one frame: the best normalized autocorrelation in
// the lag range of voice pitch, and the pitch period in samples. To avoid
// octave errors the period is the shortest lag whose correlation is a
// local peak within 10% of the best, refined by parabolic interpolation.
func PitchFrame(x []float32, rate int) (corr, period float64) {
	minLag := rate / maxF0
	maxLag := min(rate/minF0, len(x)/2)
	if maxLag < minLag+2 {
		return 0, 0
	}
	c := make([]float64, maxLag+2)
	// sq[i] is the energy of x[:i], so the energies of the two
	// overlapping stretches at lag l are sq[n-l] and sq[n]-sq[l].
	sq := make([]float64, len(x)+1)
	for i, v := range x {
		sq[i+1] = sq[i] + float64(v)*float64(v)
	}
	n := len(x)
	best := -1.0
	for l := minLag - 1; l <= maxLag+1; l++ {
		var xy float32
		a, b := x[:n-l], x[l:]
		for i, v := range a {
			xy += v * b[i]
		}
		if xx, yy := sq[n-l], sq[n]-sq[l]; xx > 0 && yy > 0 {
			c[l] = float64(xy) / math.Sqrt(xx*yy)
		}
		if l >= minLag && l <= maxLag {
			best = max(best, c[l])
		}
	}
	for l := minLag; l <= maxLag; l++ {
		if c[l] >= 0.9*best && c[l] >= c[l-1] && c[l] >= c[l+1] {
			// Parabola through the three points around the peak.
			den := c[l-1] - 2*c[l] + c[l+1]
			p := float64(l)
			if den < 0 {
				p += 0.5 * (c[l-1] - c[l+1]) / den
			}
			return best, p
		}
	}
	return best, 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
