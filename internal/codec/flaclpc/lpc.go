package flaclpc

import (
	"math"
)

// Kind is a FLAC subframe type.
type Kind int

// Subframe types.
const (
	Constant Kind = iota
	Verbatim
	Fixed
	LPC
)

// Limits of the FLAC format.
const (
	MaxLPCOrder       = 32
	MaxPartitionOrder = 15
	maxRiceParam      = 30 // with 5-bit parameters; 4-bit ones stop at 14
	maxShift          = 15 // the 5-bit shift field is signed; negative is not allowed
)

// Subframe is the coding chosen for a block.
type Subframe struct {
	Kind  Kind
	Order int // predictor order (Fixed, LPC)
	// Coeffs, Precision and Shift are the quantized LPC coefficients
	// (Coeffs[j] weighs sample n-1-j), their precision in bits and the
	// right shift of the prediction.
	Coeffs    []int32
	Precision int
	Shift     int
	// PartitionOrder and Params give the Rice coding of Residual:
	// 2^PartitionOrder partitions with one parameter each.
	PartitionOrder int
	Params         []int
	// Residual has len(samples)-Order prediction errors (Fixed, LPC).
	Residual []int32
	// Bits is the size of the coded subframe in bits, header included.
	Bits int
}

// Options tune the analysis. The zero value is not useful; see Level.
type Options struct {
	MaxOrder          int  // highest LPC order tried; 0: fixed predictors only
	Exhaustive        bool // try every LPC order instead of the estimated best
	Precision         int  // coefficient precision in bits, 0 for a default
	MaxPartitionOrder int
}

// Level returns the options of a compression level from 1 (fastest) to 8
// (smallest), like the flac command's -1 … -8.
func Level(l int) Options {
	switch {
	case l <= 2:
		return Options{MaxOrder: 0, MaxPartitionOrder: 3}
	case l <= 5:
		return Options{MaxOrder: 8, MaxPartitionOrder: 6}
	case l <= 7:
		return Options{MaxOrder: 12, MaxPartitionOrder: 6}
	default:
		return Options{MaxOrder: 12, Exhaustive: true, MaxPartitionOrder: 8}
	}
}

// An Analyzer chooses subframes. It keeps scratch space between blocks and
// is not safe for concurrent use.
type Analyzer struct {
	opt      Options
	bps      int
	window   []float64
	windowed []float64
	autoc    []float64
	lpcs     [][]float64 // lpcs[p-1]: order-p coefficients
	errs     []float64
	res      [2][]int32 // candidate and best residuals
	coefs    [2][]int32
	sums     []uint64
	params   [2][]int // Rice parameters of the residuals in res
	trial    []int    // Rice parameters being tried
	best     Subframe
}

// NewAnalyzer returns an analyzer for samples of bps bits (at most 24).
func NewAnalyzer(bps int, opt Options) *Analyzer {
	opt.MaxOrder = min(max(opt.MaxOrder, 0), MaxLPCOrder)
	opt.MaxPartitionOrder = min(max(opt.MaxPartitionOrder, 0), MaxPartitionOrder)
	if opt.Precision == 0 {
		opt.Precision = 14
	}
	return &Analyzer{opt: opt, bps: bps}
}

// Analyze returns the smallest coding found for x. The result's slices
// belong to the analyzer and are valid until the next call.
func (a *Analyzer) Analyze(x []int32) Subframe {
	n := len(x)
	// Verbatim is always possible.
	best := Subframe{Kind: Verbatim, Bits: 8 + n*a.bps}
	if n == 0 {
		return best
	}
	if constant(x) {
		return Subframe{Kind: Constant, Bits: 8 + a.bps}
	}
	bi := 0 // which residual buffer holds best's residual
	try := func(s Subframe, ri int) {
		if s.Bits < best.Bits {
			best, bi = s, ri
		}
	}
	for order := 0; order <= 4 && order < n; order++ {
		ri := 1 - bi
		r := fixedResidual(a.resBuf(ri, n-order), x, order)
		try(a.rice(Subframe{Kind: Fixed, Order: order, Residual: r}, 8+order*a.bps, n, ri), ri)
	}
	if a.opt.MaxOrder > 0 && n > a.opt.MaxOrder {
		maxOrder := a.opt.MaxOrder
		a.lpcAnalysis(x, maxOrder)
		orders := []int{a.estimateOrder(n, maxOrder)}
		if a.opt.Exhaustive {
			orders = orders[:0]
			for p := 1; p <= maxOrder; p++ {
				orders = append(orders, p)
			}
		}
		for _, p := range orders {
			ri := 1 - bi
			coefs, shift, ok := quantize(a.coefBuf(ri, p), a.lpcs[p-1], a.opt.Precision)
			if !ok {
				continue
			}
			r, ok := lpcResidual(a.resBuf(ri, n-p), x, coefs, shift)
			if !ok {
				continue
			}
			head := 8 + p*a.bps + 4 + 5 + p*a.opt.Precision
			s := Subframe{Kind: LPC, Order: p, Coeffs: coefs, Precision: a.opt.Precision, Shift: shift, Residual: r}
			try(a.rice(s, head, n, ri), ri)
		}
	}
	return best
}

func (a *Analyzer) resBuf(i, n int) []int32 {
	if cap(a.res[i]) < n {
		a.res[i] = make([]int32, n)
	}
	return a.res[i][:n]
}

func (a *Analyzer) coefBuf(i, n int) []int32 {
	if cap(a.coefs[i]) < n {
		a.coefs[i] = make([]int32, MaxLPCOrder)
	}
	return a.coefs[i][:n]
}

func constant(x []int32) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// fixedResidual computes the residual of the fixed predictor of order.
func fixedResidual(r, x []int32, order int) []int32 {
	for i := order; i < len(x); i++ {
		var p int64
		switch order {
		case 0:
		case 1:
			p = int64(x[i-1])
		case 2:
			p = 2*int64(x[i-1]) - int64(x[i-2])
		case 3:
			p = 3*int64(x[i-1]) - 3*int64(x[i-2]) + int64(x[i-3])
		case 4:
			p = 4*int64(x[i-1]) - 6*int64(x[i-2]) + 4*int64(x[i-3]) - int64(x[i-4])
		}
		r[i-order] = int32(int64(x[i]) - p)
	}
	return r
}

// lpcAnalysis fills a.lpcs and a.errs for orders 1..maxOrder from the
// Tukey-windowed autocorrelation of x.
func (a *Analyzer) lpcAnalysis(x []int32, maxOrder int) {
	n := len(x)
	if len(a.window) != n {
		a.window = tukey(a.window[:0], n, 0.5)
		a.windowed = make([]float64, n)
	}
	w := a.windowed
	for i, v := range x {
		w[i] = float64(v) * a.window[i]
	}
	if cap(a.autoc) < maxOrder+1 {
		a.autoc = make([]float64, maxOrder+1)
	}
	r := a.autoc[:maxOrder+1]
	for lag := range r {
		var s float64
		for i := lag; i < n; i++ {
			s += w[i] * w[i-lag]
		}
		r[lag] = s
	}
	if len(a.lpcs) < maxOrder {
		a.lpcs = make([][]float64, maxOrder)
		for p := range a.lpcs {
			a.lpcs[p] = make([]float64, p+1)
		}
		a.errs = make([]float64, maxOrder)
	}
	levinson(a.lpcs, a.errs, r, maxOrder)
}

// levinson runs the Levinson-Durbin recursion on autocorrelation r,
// storing the predictor of every order p (prediction = Σ c[j]·x[n-1-j])
// in lpcs[p-1] and its prediction error in errs[p-1].
func levinson(lpcs [][]float64, errs []float64, r []float64, maxOrder int) {
	var c [MaxLPCOrder]float64
	e := r[0]
	for i := range maxOrder {
		if e <= 0 {
			// Silence or a perfect prediction: higher orders add nothing.
			for p := i; p < maxOrder; p++ {
				copy(lpcs[p], c[:p+1])
				errs[p] = 0
			}
			return
		}
		acc := r[i+1]
		for j := range i {
			acc -= c[j] * r[i-j]
		}
		k := acc / e
		// Update c[0..i-1] symmetrically, then append k.
		for j := range i / 2 {
			cj, cij := c[j], c[i-1-j]
			c[j] = cj - k*cij
			c[i-1-j] = cij - k*cj
		}
		if i%2 == 1 {
			c[i/2] -= k * c[i/2]
		}
		c[i] = k
		e *= 1 - k*k
		copy(lpcs[i], c[:i+1])
		errs[i] = e
	}
}

// estimateOrder picks the order whose prediction error promises the
// fewest bits for residual plus coefficients.
func (a *Analyzer) estimateOrder(n, maxOrder int) int {
	best, bestBits := 1, math.Inf(1)
	scale := 1 / float64(n)
	for p := 1; p <= maxOrder; p++ {
		e := a.errs[p-1] * scale
		bitsPerSample := 0.0
		if e > 0 {
			bitsPerSample = max(0.5*math.Log2(e), 0)
		}
		bits := bitsPerSample*float64(n-p) + float64(p*(a.opt.Precision+a.bps))
		if bits < bestBits {
			best, bestBits = p, bits
		}
	}
	return best
}

// quantize turns lp into integers of precision bits with a common right
// shift, carrying the rounding error from one coefficient to the next.
func quantize(q []int32, lp []float64, precision int) ([]int32, int, bool) {
	cmax := 0.0
	for _, v := range lp {
		cmax = max(cmax, math.Abs(v))
	}
	if cmax == 0 || math.IsNaN(cmax) || math.IsInf(cmax, 0) {
		return nil, 0, false
	}
	_, exp := math.Frexp(cmax) // cmax = frac·2^exp, 0.5 <= frac < 1
	shift := min(precision-1-exp, maxShift)
	if shift < 0 {
		return nil, 0, false
	}
	qmax := int64(1)<<(precision-1) - 1
	qmin := -qmax - 1
	var carry float64
	for i, v := range lp {
		carry += v * float64(int64(1)<<shift)
		c := int64(math.Round(carry))
		c = max(qmin, min(qmax, c))
		carry -= float64(c)
		q[i] = int32(c)
	}
	return q, shift, true
}

// lpcResidual computes x's residual under the quantized predictor. It
// fails if a residual does not fit the 32 bits FLAC allows.
func lpcResidual(r, x, coefs []int32, shift int) ([]int32, bool) {
	p := len(coefs)
	for i := p; i < len(x); i++ {
		var sum int64
		hist := x[i-p : i]
		for j, c := range coefs {
			sum += int64(c) * int64(hist[p-1-j])
		}
		v := int64(x[i]) - sum>>shift
		if v != int64(int32(v)) || v == math.MinInt32 {
			return nil, false
		}
		r[i-p] = int32(v)
	}
	return r, true
}

func tukey(w []float64, n int, alpha float64) []float64 {
	w = w[:0]
	edge := alpha * float64(n-1) / 2
	for i := range n {
		v := 1.0
		fi := float64(i)
		switch {
		case edge <= 0:
		case fi < edge:
			v = 0.5 * (1 - math.Cos(math.Pi*fi/edge))
		case fi > float64(n-1)-edge:
			v = 0.5 * (1 - math.Cos(math.Pi*(float64(n-1)-fi)/edge))
		}
		w = append(w, v)
	}
	return w
}
