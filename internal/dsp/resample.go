package dsp

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Resampler converts a stream of mono samples from one rate to another
// with a band-limited (Kaiser-windowed sinc) polyphase filter. It keeps its
// state between calls, so a stream fed in pieces comes out the same as one
// fed whole, with no clicks at the joins.
//
// The filter passes up to 0.8 of the lower rate's Nyquist frequency flat
// and attenuates everything above that Nyquist frequency by about 70 dB.
// Between equal rates there is no filter: the samples pass unchanged, with
// no delay (a gateway's 24 kHz audio from its workers, say).
type Resampler struct {
	same     bool        // equal rates: pass the samples through
	up, down int         // rational ratio out/in = up/down, reduced
	half     int         // taps on each side of the centre
	phases   [][]float32 // phases[p][k]: coefficients for phase p/up
	buf      []float32   // input, offset so buf[half] is the next unread sample position base
	i, phase int         // position of the next output: input index i + phase/up, relative to buf[half]
	in, out  int64       // samples read and written so far
	flushed  bool
}

const stopbandDB = 70

// NewResampler returns a resampler from inRate to outRate hertz.
func NewResampler(inRate, outRate int) (*Resampler, error) {
	if inRate <= 0 || outRate <= 0 {
		return nil, fmt.Errorf("dsp: bad sample rates %d → %d", inRate, outRate)
	}
	if inRate == outRate {
		return &Resampler{same: true, up: 1, down: 1}, nil
	}
	g := gcd(inRate, outRate)
	up, down := outRate/g, inRate/g
	if up > 8192 {
		return nil, fmt.Errorf("dsp: ratio %d/%d Hz too fine to resample", outRate, inRate)
	}
	// Work in units of input samples: the cut-off is below the lower
	// Nyquist frequency, normalised to the input rate.
	nyq := 0.5 * float64(min(inRate, outRate)) / float64(inRate) // cycles per input sample
	pass, stop := 0.8*nyq, nyq
	cutoff := (pass + stop) / 2
	width := 2 * math.Pi * (stop - pass)
	taps := int(math.Ceil((stopbandDB - 7.95) / (2.285 * width)))
	half := max(taps/2+1, 2)
	beta := 0.1102 * (stopbandDB - 8.7)

	r := &Resampler{up: up, down: down, half: half, buf: make([]float32, half)} // silence before the first sample
	key := [2]int{inRate, outRate}
	if phases, ok := kernels.Load(key); ok {
		r.phases = phases.([][]float32)
		return r, nil
	}
	r.phases = make([][]float32, up)
	for p := range up {
		c := make([]float32, 2*half)
		frac := float64(p) / float64(up)
		var sum float64
		vals := make([]float64, 2*half)
		for k := range vals {
			tau := frac + float64(half-1-k) // distance from the output instant
			v := 2 * cutoff * sinc(2*cutoff*tau) * kaiser(tau/float64(half), beta)
			vals[k] = v
			sum += v
		}
		for k, v := range vals {
			c[k] = float32(v / sum) // unity gain at DC for every phase
		}
		r.phases[p] = c
	}
	kernels.Store(key, r.phases)
	return r, nil
}

// kernels caches the filter phases of each rate pair ([2]int{in, out}):
// they take far longer to compute than a sentence takes to resample, and
// are only read once made.
var kernels sync.Map

// Reset readies r for a new stream at the same rates, as NewResampler
// would, keeping the memory it has grown.
func (r *Resampler) Reset() {
	r.buf = r.buf[:r.half]
	clear(r.buf)
	r.i, r.phase, r.in, r.out, r.flushed = 0, 0, 0, 0, false
}

// Process resamples src and appends the output to dst.
func (r *Resampler) Process(dst, src []float32) []float32 {
	if r.flushed {
		panic("dsp: Resampler.Process after Flush")
	}
	if r.same {
		r.in += int64(len(src))
		r.out = r.in
		return append(dst, src...)
	}
	r.buf = append(r.buf, src...)
	r.in += int64(len(src))
	return r.drain(dst, r.wanted())
}

// Flush appends the output still held in the filter to dst. The stream has
// then produced ceil(in·outRate/inRate) samples in all. The resampler must
// not be used after Flush.
func (r *Resampler) Flush(dst []float32) []float32 {
	if r.flushed {
		return dst
	}
	r.flushed = true
	if r.same {
		return dst
	}
	r.buf = append(r.buf, make([]float32, 2*r.half)...)
	return r.drain(dst, r.wanted())
}

// wanted returns how many output samples the input read so far accounts for.
func (r *Resampler) wanted() int64 {
	return (r.in*int64(r.up) + int64(r.down) - 1) / int64(r.down)
}

func (r *Resampler) drain(dst []float32, limit int64) []float32 {
	n := 2 * r.half
	dst = slices.Grow(dst, int(limit-r.out)) // once, not doubling
	for r.out < limit && r.i+n < len(r.buf) {
		dst = append(dst, dot(r.buf[r.i+1:r.i+1+n], r.phases[r.phase]))
		r.out++
		r.phase += r.down
		r.i += r.phase / r.up
		r.phase %= r.up
	}
	// Drop input no longer needed by later outputs.
	if r.i > 0 {
		n := copy(r.buf, r.buf[r.i:])
		r.buf = r.buf[:n]
		r.i = 0
	}
	return dst
}

// dot returns the dot product of x and c, which have the same length, in
// four independent sums so the products pipeline.
func dot(x, c []float32) float32 {
	c = c[:len(x)]
	var a0, a1, a2, a3 float32
	k := 0
	for ; k+4 <= len(x); k += 4 {
		xs, cs := x[k:k+4:k+4], c[k:k+4:k+4]
		a0 += xs[0] * cs[0]
		a1 += xs[1] * cs[1]
		a2 += xs[2] * cs[2]
		a3 += xs[3] * cs[3]
	}
	for ; k < len(x); k++ {
		a0 += x[k] * c[k]
	}
	return (a0 + a1) + (a2 + a3)
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// kaiser is the Kaiser window at x in [-1, 1].
func kaiser(x, beta float64) float64 {
	if x < -1 || x > 1 {
		return 0
	}
	return besselI0(beta*math.Sqrt(1-x*x)) / besselI0(beta)
}

// besselI0 is the modified Bessel function of the first kind, order 0.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
