package dsp

import (
	"errors"
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
//
// Any two rates can be converted as long as the input rate is at most
// MaxDecimation times the output rate. When the ratio between them needs
// few filter phases (every pair of the usual rates, 8 to 48 kHz) the
// resampler holds one phase per output position; for a ratio that would
// need more than maxExactBytes of them (44,101 → 24,000 Hz needs 24,000)
// it holds interpolatedPhases phases and interpolates linearly between the
// two nearest, which keeps the same stopband: its table is at most a few
// MB whatever the rates.
type Resampler struct {
	same     bool      // equal rates: pass the samples through
	up, down int       // rational ratio out/in = up/down, reduced
	half     int       // taps on each side of the centre
	k        *kernel   // the filter's phases, shared between resamplers
	buf      []float32 // input, offset so buf[half] is the next unread sample position base
	i, phase int       // position of the next output: input index i + phase/up, relative to buf[half]
	in, out  int64     // samples read and written so far
	flushed  bool
}

// kernel is a filter's phases: exact, phases[p] is the filter at the
// fraction p/up between input samples; otherwise phases[j] is the filter
// at j/steps, j from 0 to steps (the last is the first one sample later),
// for interpolation.
type kernel struct {
	phases [][]float32
	steps  int
	exact  bool
}

// bytes is the memory k takes: its coefficients, their slices' headers
// and about what a cache entry of it costs.
func (k *kernel) bytes() int { return len(k.phases)*(len(k.phases[0])*4+24) + 128 }

const stopbandDB = 70

// MaxDecimation is how many times the output rate the input rate may be at
// most: its filter's length grows with the ratio (384 kHz to 8 kHz is 48).
const MaxDecimation = 64

const (
	// maxExactBytes bounds the table of a ratio resampled with one phase
	// per output position (11,025 → 48,000 Hz, the largest of the usual
	// pairs, takes 118 KB).
	maxExactBytes = 256 << 10
	// interpolatedPhases is the number of phases of the other ratios:
	// linear interpolation between them errs by about (π/256)²/8 of the
	// filter's peak, -94 dB, far under its 70 dB stopband.
	interpolatedPhases = 256
)

// ErrRates is returned (wrapped) by NewResampler for rates it cannot
// convert between: not positive, or the input more than MaxDecimation
// times the output.
var ErrRates = errors.New("dsp: sample rates not resampled")

// NewResampler returns a resampler from inRate to outRate hertz.
func NewResampler(inRate, outRate int) (*Resampler, error) {
	if inRate <= 0 || outRate <= 0 {
		return nil, fmt.Errorf("%w: %d → %d Hz", ErrRates, inRate, outRate)
	}
	if inRate == outRate {
		return &Resampler{same: true, up: 1, down: 1}, nil
	}
	if float64(inRate) > MaxDecimation*float64(outRate) {
		return nil, fmt.Errorf("%w: %d → %d Hz is a reduction of more than %d times", ErrRates, inRate, outRate, MaxDecimation)
	}
	g := gcd(inRate, outRate)
	up, down := outRate/g, inRate/g
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
	if k := kernels.get(key); k != nil {
		r.k = k
		return r, nil
	}
	k := newKernel(up, half, cutoff, beta, up*2*half*4 > maxExactBytes)
	r.k = k
	kernels.put(key, k)
	return r, nil
}

// newKernel computes the phases of a filter of 2·half taps: up of them
// (exact), or interpolatedPhases+1 to interpolate between (interpolate).
func newKernel(up, half int, cutoff, beta float64, interpolate bool) *kernel {
	k := &kernel{steps: up, exact: true}
	n := up
	if interpolate {
		k = &kernel{steps: interpolatedPhases}
		n = interpolatedPhases + 1
	}
	k.phases = make([][]float32, n)
	vals := make([]float64, 2*half)
	for p := range n {
		c := make([]float32, 2*half)
		frac := float64(p) / float64(k.steps)
		var sum float64
		for j := range vals {
			tau := frac + float64(half-1-j) // distance from the output instant
			v := 2 * cutoff * sinc(2*cutoff*tau) * kaiser(tau/float64(half), beta)
			vals[j] = v
			sum += v
		}
		for j, v := range vals {
			c[j] = float32(v / sum) // unity gain at DC for every phase
		}
		k.phases[p] = c
	}
	return k
}

// kernels caches the filter phases of recently used rate pairs: they take
// far longer to compute than a sentence takes to resample, and are only
// read once made.
var kernels = kernelCache{max: maxCachedBytes}

// maxCachedBytes bounds the kernels kept for later resamplers, whatever
// rates are asked for (a recording's rate is its uploader's choice).
const maxCachedBytes = 4 << 20

// kernelCache keeps kernels of rate pairs ([2]int{in, out}) up to max
// bytes in all, dropping the least recently used.
type kernelCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	clock uint64
	held  map[[2]int]*cachedKernel
}

type cachedKernel struct {
	k    *kernel
	used uint64
}

func (c *kernelCache) get(key [2]int) *kernel {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.held[key]
	if e == nil {
		return nil
	}
	c.clock++
	e.used = c.clock
	return e.k
}

func (c *kernelCache) put(key [2]int, k *kernel) {
	size := k.bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max || c.held[key] != nil {
		return
	}
	if c.held == nil {
		c.held = map[[2]int]*cachedKernel{}
	}
	for c.bytes+size > c.max {
		var oldest [2]int
		var least *cachedKernel
		for key, e := range c.held {
			if least == nil || e.used < least.used {
				oldest, least = key, e
			}
		}
		c.bytes -= least.k.bytes()
		delete(c.held, oldest)
	}
	c.clock++
	c.held[key] = &cachedKernel{k: k, used: c.clock}
	c.bytes += size
}

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
		x := r.buf[r.i+1 : r.i+1+n]
		if r.k.exact {
			dst = append(dst, dot(x, r.k.phases[r.phase]))
		} else {
			// The two phases either side of phase/up, weighted by
			// nearness.
			pos := r.phase * r.k.steps
			j := pos / r.up
			w := float32(pos-j*r.up) / float32(r.up)
			a := dot(x, r.k.phases[j])
			dst = append(dst, a+w*(dot(x, r.k.phases[j+1])-a))
		}
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
