package audiotest

import (
	"math"
	"slices"

	"github.com/voxkit/voxkit/internal/dsp"
)

// Measures of audio for tests: analysis aids, not production code.

// Energy returns the sum of squares of x.
func Energy(x []float32) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return sum
}

// voicedFrames runs dsp.PitchFrame over 40 ms frames of x louder than a tenth
// of x's overall RMS, calling f for each.
func voicedFrames(x []float32, rate int, f func(corr, period float64)) {
	n := rate * 40 / 1000
	floor := dsp.RMS(x) / 10
	for start := 0; start+n <= len(x); start += n / 2 {
		frame := x[start : start+n]
		if dsp.RMS(frame) < floor || dsp.RMS(frame) == 0 {
			continue
		}
		f(dsp.PitchFrame(frame, rate))
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

// median returns the middle value of v.
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
