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

// Energy returns the sum of squares of x.
func Energy(x []float32) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return sum
}

// Pitch analysis limits, in hertz.
const (
	minF0 = 60
	maxF0 = 500
)

// frameStats analyses one frame: the best normalized autocorrelation in
// the lag range of voice pitch, and the pitch period in samples. To avoid
// octave errors the period is the shortest lag whose correlation is a
// local peak within 10% of the best, refined by parabolic interpolation.
func frameStats(x []float32, rate int) (corr, period float64) {
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

// voicedFrames runs frameStats over 40 ms frames of x louder than a tenth
// of x's overall RMS, calling f for each.
func voicedFrames(x []float32, rate int, f func(corr, period float64)) {
	n := rate * 40 / 1000
	floor := RMS(x) / 10
	for start := 0; start+n <= len(x); start += n / 2 {
		frame := x[start : start+n]
		if RMS(frame) < floor || RMS(frame) == 0 {
			continue
		}
		f(frameStats(frame, rate))
	}
}

// EstimateF0 returns the median fundamental frequency in hertz of the
// periodic frames of x (normalized autocorrelation above 0.5), or 0 when
// none is periodic. It is an analysis aid for tests and tuning, not a
// pitch tracker for production use.
func EstimateF0(x []float32, rate int) float64 {
	var f0s []float64
	voicedFrames(x, rate, func(c, period float64) {
		if c > 0.5 && period > 0 {
			f0s = append(f0s, float64(rate)/period)
		}
	})
	if len(f0s) == 0 {
		return 0
	}
	return median(f0s)
}

// Periodicity returns the mean, over the frames of x that carry sound, of
// the best normalized autocorrelation at a voice-pitch lag: near 1 for
// voiced speech or a tone, near 0 for noise or whisper.
func Periodicity(x []float32, rate int) float64 {
	var sum float64
	var n int
	voicedFrames(x, rate, func(c, _ float64) {
		sum += max(c, 0)
		n++
	})
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// F0Spread returns how much the intonation of x moves: the spread, in
// semitones, of the pitch of its periodic frames, measured robustly (the
// interquartile range over 1.349, which equals the standard deviation for
// normally distributed values) so that octave errors of single frames do
// not dominate. 0 when fewer than four frames are periodic.
func F0Spread(x []float32, rate int) float64 {
	var st []float64
	voicedFrames(x, rate, func(c, period float64) {
		if c > 0.5 && period > 0 {
			st = append(st, 12*math.Log2(float64(rate)/period))
		}
	})
	if len(st) < 4 {
		return 0
	}
	slices.Sort(st)
	q1, q3 := st[len(st)/4], st[len(st)*3/4]
	return (q3 - q1) / 1.349
}
