package supertonic

// #cgo LDFLAGS: -lm
// #include <math.h>
import "C"

import "math"

// noise draws the flow's starting latents as sherpa-onnx draws them with a
// seed: one std::mt19937 for a whole Synthesize call, read by a fresh
// std::normal_distribution<float> (libstdc++'s polar method) for each fill.
// A fresh distribution forgets the spare value of its last pair, so an odd
// fill drops one. glibc's logf is called through cgo: math.Log rounded to
// float32 differs from it in about 0.3 % of values, and the samples with it.
type noise struct {
	mt mt19937
}

func newNoise(seed uint32) *noise {
	n := &noise{}
	n.mt.seed(seed)
	return n
}

// fill fills x with standard normal values, as one
// std::normal_distribution<float>(0, 1) filling a buffer would.
func (n *noise) fill(x []float32) {
	var spare float32
	have := false
	for i := range x {
		if have {
			x[i], have = spare, false
			continue
		}
		var u, v, r2 float32
		for {
			u = n.symmetric()
			v = n.symmetric()
			r2 = float32(u*u) + float32(v*v)
			if r2 <= 1 && r2 != 0 {
				break
			}
		}
		mult := float32(math.Sqrt(float64(float32(-2*logf(r2)) / r2)))
		// libstdc++ returns the second value of the pair first and keeps
		// the first.
		spare, have = float32(u*mult), true
		x[i] = float32(v * mult)
	}
}

// symmetric is libstdc++'s 2·U − 1 for a canonical float U: the product
// in float, the difference in double, rounded to float.
func (n *noise) symmetric() float32 {
	return float32(float64(2*n.canonical()) - 1)
}

// canonical is std::generate_canonical<float, 24>(mt19937): one 32-bit
// draw, converted to float (rounded) and divided by 2³², kept below 1.
func (n *noise) canonical() float32 {
	f := float32(n.mt.next()) / 4294967296
	if f >= 1 {
		return 0x1.fffffep-1 // nextafter(1, 0)
	}
	return f
}

func logf(x float32) float32 { return float32(C.logf(C.float(x))) }

// mt19937 is the 32-bit Mersenne Twister of std::mt19937.
type mt19937 struct {
	s [624]uint32
	i int
}

func (m *mt19937) seed(s uint32) {
	m.s[0] = s
	for i := 1; i < len(m.s); i++ {
		p := m.s[i-1]
		m.s[i] = 1812433253*(p^(p>>30)) + uint32(i)
	}
	m.i = len(m.s)
}

func (m *mt19937) next() uint32 {
	const n, k = 624, 397
	if m.i >= n {
		for j := range n {
			y := m.s[j]&0x80000000 | m.s[(j+1)%n]&0x7fffffff
			z := m.s[(j+k)%n] ^ y>>1
			if y&1 != 0 {
				z ^= 0x9908b0df
			}
			m.s[j] = z
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}
