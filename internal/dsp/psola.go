package dsp

import (
	"math"
)

// Pitch-tracking parameters for PSOLA.
const (
	trackFrameMS   = 40  // analysis frame for the F0 track
	trackHopMS     = 10  // F0 track resolution
	unvoicedPeriod = 100 // pseudo pitch of unvoiced stretches, in hertz
	voicedCorr     = 0.6 // normalized autocorrelation above which a frame is voiced
)

// ShapePitch changes the intonation of the speech in x without changing
// its duration or (much) its formants: it raises every voiced stretch by
// semitones and scales the pitch's excursions around its mean by span
// (1 keeps them, 0.5 flattens, 1.5 exaggerates). It uses TD-PSOLA:
// pitch-synchronous grains two periods long, taken at pitch marks of the
// input and overlap-added at the new spacing. Unvoiced sound passes
// through unchanged.
func ShapePitch(x []float32, rate int, semitones, span float64) []float32 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		span = 1
	}
	if math.IsNaN(semitones) || math.IsInf(semitones, 0) {
		semitones = 0
	}
	if (semitones == 0 && span == 1) || len(x) == 0 {
		return append([]float32(nil), x...)
	}
	marks, centre := pitchMarks(x, rate)
	if len(marks) == 0 || centre == 0 {
		return append([]float32(nil), x...)
	}
	// The span scales excursions around the median F0 of the voiced
	// frames (time-weighted and robust to octave errors).
	mean := float64(rate) / centre
	shift := math.Pow(2, semitones/12)
	ratio := func(m mark) float64 {
		if !m.voiced {
			return 1
		}
		f := float64(rate) / m.period
		return shift * mean * math.Pow(f/mean, span) / f
	}

	out := make([]float64, len(x))
	wsum := make([]float64, len(x))
	k := 0
	for t := float64(marks[0].pos); t < float64(len(x)); {
		// The analysis mark nearest the output instant gives the grain.
		for k+1 < len(marks) && math.Abs(float64(marks[k+1].pos)-t) <= math.Abs(float64(marks[k].pos)-t) {
			k++
		}
		m := marks[k]
		outPeriod := m.period / ratio(m)
		half := int(math.Round(m.period))
		centre := int(math.Round(t))
		for i := -half; i < half; i++ {
			src, dst := m.pos+i, centre+i
			if src < 0 || src >= len(x) || dst < 0 || dst >= len(x) {
				continue
			}
			w := 0.5 + 0.5*math.Cos(math.Pi*float64(i)/float64(half))
			out[dst] += w * float64(x[src])
			wsum[dst] += w
		}
		t += outPeriod
	}
	y := make([]float32, len(x))
	for i, v := range out {
		y[i] = float32(v / max(wsum[i], 1))
	}
	// Grains overlap more when the pitch rises and less when it falls,
	// and their sum is not phase-coherent: restore the input's loudness
	// contour.
	matchLoudness(y, x, rate)
	return y
}

// matchLoudness scales y so that its loudness in each 20 ms stretch
// follows x's, with gains interpolated between stretches and limited to
// ×0.25…×4.
func matchLoudness(y, x []float32, rate int) {
	n := max(rate/50, 1)
	var gains []float64
	for start := 0; start < len(x); start += n {
		end := min(start+n, len(x))
		ry, rx := RMS(y[start:end]), RMS(x[start:end])
		g := 1.0
		if ry > 0 {
			g = max(0.25, min(4, rx/ry))
		}
		gains = append(gains, g)
	}
	for i := range y {
		// Linear interpolation between the centres of the stretches.
		pos := (float64(i) - float64(n)/2) / float64(n)
		k := int(math.Floor(pos))
		frac := pos - float64(k)
		g0 := gains[max(0, min(k, len(gains)-1))]
		g1 := gains[max(0, min(k+1, len(gains)-1))]
		y[i] *= float32(g0 + (g1-g0)*frac)
	}
}

// mark is a pitch mark: an instant of the signal and the local period.
type mark struct {
	pos    int
	period float64 // samples
	voiced bool
}

// pitchMarks places marks through x: one per pitch period where x is
// voiced, each on the waveform's peak so grains line up, and one every
// 10 ms elsewhere. It also returns the median period of the voiced frames,
// 0 if none is voiced.
func pitchMarks(x []float32, rate int) ([]mark, float64) {
	hop := max(rate*trackHopMS/1000, 1)
	// Track F0 on a copy decimated to about 6 kHz: the autocorrelation
	// costs the square of the rate, and voice pitch needs no more.
	dec := max(1, rate/6000)
	xd := decimate(x, dec)
	rd := rate / dec
	frame := rd * trackFrameMS / 1000
	floor := RMS(xd) / 20
	nFrames := len(x)/hop + 1
	periods := make([]float64, nFrames) // 0: unvoiced
	for f := range periods {
		start := (f*hop)/dec - frame/2
		lo, hi := max(start, 0), min(start+frame, len(xd))
		if hi-lo < frame/2 || RMS(xd[lo:hi]) < floor {
			continue
		}
		if c, p := PitchFrame(xd[lo:hi], rd); c > voicedCorr && p > 0 {
			periods[f] = p * float64(rate) / float64(rd)
		}
	}
	smoothPeriods(periods)
	var voiced []float64
	for _, p := range periods {
		if p > 0 {
			voiced = append(voiced, p)
		}
	}
	if len(voiced) == 0 {
		return nil, 0
	}
	centre := median(voiced)
	var marks []mark
	pos := 0
	uv := float64(rate) / unvoicedPeriod
	for pos < len(x) {
		p := periods[min(pos/hop, nFrames-1)]
		if p == 0 {
			marks = append(marks, mark{pos: pos, period: uv})
			pos += int(uv)
			continue
		}
		// Put the mark on the largest sample within a quarter period of
		// where the previous mark predicts it.
		q := int(p / 4)
		best := pos
		for i := max(pos-q, 0); i <= min(pos+q, len(x)-1); i++ {
			if x[i] > x[best] {
				best = i
			}
		}
		if len(marks) > 0 && best <= marks[len(marks)-1].pos {
			best = pos
		}
		marks = append(marks, mark{pos: best, period: p, voiced: true})
		pos = best + int(math.Round(p))
	}
	return marks, centre
}

// smoothPeriods replaces each voiced period by the median of its voiced
// neighbours (±2 frames), removing octave jumps of single frames.
func smoothPeriods(p []float64) {
	orig := append([]float64(nil), p...)
	var win []float64
	for i := range p {
		if orig[i] == 0 {
			continue
		}
		win = win[:0]
		for j := max(i-2, 0); j <= min(i+2, len(p)-1); j++ {
			if orig[j] > 0 {
				win = append(win, orig[j])
			}
		}
		p[i] = median(win)
	}
}

// decimate low-passes x (a triangular filter 2·d−1 taps long) and keeps
// every d-th sample.
func decimate(x []float32, d int) []float32 {
	if d <= 1 {
		return x
	}
	out := make([]float32, 0, len(x)/d+1)
	norm := float32(d * d)
	for i := 0; i < len(x); i += d {
		var acc float32
		for k := -(d - 1); k <= d-1; k++ {
			if j := i + k; j >= 0 && j < len(x) {
				acc += x[j] * float32(d-max(k, -k))
			}
		}
		out = append(out, acc/norm)
	}
	return out
}
