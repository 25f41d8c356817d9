package flaclpc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar2 generates a second-order autoregressive signal
// x[n] = a1·x[n-1] + a2·x[n-2] + noise.
func ar2(n int, a1, a2, noise float64) []int32 {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]int32, n)
	var y1, y2 float64
	for i := range x {
		y := a1*y1 + a2*y2 + noise*rng.NormFloat64()
		x[i] = int32(math.Round(y))
		y2, y1 = y1, y
	}
	return x
}

func TestLevinsonRecoversAR2(t *testing.T) {
	const a1, a2 = 1.6, -0.8
	x := ar2(8192, a1, a2, 300)
	a := NewAnalyzer(16, Options{MaxOrder: 4})
	a.lpcAnalysis(x, 4)
	c := a.lpcs[1] // order 2
	if math.Abs(c[0]-a1) > 0.05 || math.Abs(c[1]-a2) > 0.05 {
		t.Fatalf("order-2 predictor %v, want [%v %v]", c, a1, a2)
	}
	// Higher orders add next to nothing to an AR(2) process.
	if c4 := a.lpcs[3]; math.Abs(c4[2]) > 0.05 || math.Abs(c4[3]) > 0.05 {
		t.Fatalf("order-4 predictor %v", c4)
	}
	if a.errs[0] <= a.errs[1] {
		t.Fatalf("errors %v do not fall from order 1 to 2", a.errs)
	}
}

func TestQuantize(t *testing.T) {
	lp := []float64{1.6, -0.8, 0.01}
	q, shift, ok := quantize(make([]int32, 3), lp, 14)
	if !ok {
		t.Fatal("quantize failed")
	}
	for i, v := range lp {
		if got := float64(q[i]) / float64(int(1)<<shift); math.Abs(got-v) > 1.0/float64(int(1)<<shift) {
			t.Errorf("coefficient %d: %v, want %v", i, got, v)
		}
		if q[i] >= 1<<13 || q[i] < -(1<<13) {
			t.Errorf("coefficient %d = %d exceeds 14 bits", i, q[i])
		}
	}
	if _, _, ok := quantize(make([]int32, 1), []float64{0}, 14); ok {
		t.Error("quantize of zeros succeeded")
	}
}

func TestRiceParam(t *testing.T) {
	for _, c := range []struct {
		sum   uint64
		cnt   int
		wantK int
	}{
		{0, 10, 0},
		{10, 10, 0},
		{80, 10, 3},
		{1 << 20, 16, 16},
	} {
		k, bits := riceParam(c.sum, c.cnt)
		if k != c.wantK {
			t.Errorf("riceParam(%d, %d) = %d, want %d", c.sum, c.cnt, k, c.wantK)
		}
		if want := c.cnt*(k+1) + int(c.sum>>k); bits != want {
			t.Errorf("riceParam(%d, %d) bits %d, want %d", c.sum, c.cnt, bits, want)
		}
	}
	for v, want := range map[int32]uint32{0: 0, -1: 1, 1: 2, -2: 3, 2: 4, math.MaxInt32: math.MaxUint32 - 1} {
		if got := fold(v); got != want {
			t.Errorf("fold(%d) = %d, want %d", v, got, want)
		}
	}
}

// predict reconstructs samples from a subframe, as a decoder would.
func predict(t *testing.T, s Subframe, x []int32) {
	t.Helper()
	for i := s.Order; i < len(x); i++ {
		var p int64
		switch s.Kind {
		case Fixed:
			coef := [][]int64{{}, {1}, {2, -1}, {3, -3, 1}, {4, -6, 4, -1}}[s.Order]
			for j, c := range coef {
				p += c * int64(x[i-1-j])
			}
		case LPC:
			for j, c := range s.Coeffs {
				p += int64(c) * int64(x[i-1-j])
			}
			p >>= s.Shift
		}
		if got := p + int64(s.Residual[i-s.Order]); got != int64(x[i]) {
			t.Fatalf("sample %d: prediction plus residual %d, want %d", i, got, x[i])
		}
	}
}

func TestAnalyze(t *testing.T) {
	sine := make([]int32, 4096)
	for i := range sine {
		sine[i] = int32(math.Round(10000 * math.Sin(float64(i)*0.05)))
	}
	noise := make([]int32, 4096)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range noise {
		noise[i] = int32(rng.IntN(65536) - 32768)
	}
	cases := []struct {
		name string
		x    []int32
		opt  Options
		want Kind
	}{
		{"constant", make([]int32, 4096), Level(5), Constant},
		{"noise", noise, Level(5), Verbatim},
		{"sine/fixed", sine, Level(1), Fixed},
		{"sine/lpc", sine, Level(5), LPC},
		{"ar2/lpc", ar2(4096, 1.6, -0.8, 300), Level(8), LPC},
		{"short", sine[:20], Level(8), Fixed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewAnalyzer(16, c.opt).Analyze(c.x)
			if s.Kind != c.want {
				t.Fatalf("kind %v order %d, want %v", s.Kind, s.Order, c.want)
			}
			if s.Kind == Fixed || s.Kind == LPC {
				predict(t, s, c.x)
				if len(s.Params) != 1<<s.PartitionOrder {
					t.Fatalf("%d Rice parameters for partition order %d", len(s.Params), s.PartitionOrder)
				}
				if s.Bits >= 8+16*len(c.x) {
					t.Fatalf("%d bits: no better than verbatim", s.Bits)
				}
			}
		})
	}
}
