package encode

import "io"

// G.711 companding (ITU-T G.711), the telephony formats: one byte per
// sample, μ-law in North America and Japan, A-law elsewhere, headerless
// and usually at 8 kHz. They are not registered formats: a caller that
// speaks a telephony protocol asks for pcm and compands it with
// NewG711Writer.

// MuLaw returns the G.711 μ-law byte of a 16-bit sample.
func MuLaw(s int16) byte {
	const bias, clip = 0x84, 32635
	x := int(s)
	sign := byte(0)
	if x < 0 {
		x, sign = -x, 0x80
	}
	x = min(x, clip) + bias
	exp := segment(x >> 7) // x is at least 2^7
	mantissa := byte(x>>(exp+3)) & 0x0F
	return ^(sign | exp<<4 | mantissa)
}

// ALaw returns the G.711 A-law byte of a 16-bit sample.
func ALaw(s int16) byte {
	x := int(s) >> 3 // A-law codes 13 bits
	sign := byte(0x80)
	if x < 0 {
		x, sign = -x-1, 0
	}
	x = min(x, 0xFFF)
	var code byte
	if x < 32 {
		code = byte(x >> 1)
	} else {
		exp := segment(x>>5) + 1 // 1 to 7
		code = exp<<4 | byte(x>>exp)&0x0F
	}
	return (sign | code) ^ 0x55
}

// segment returns the position of the highest set bit of x (1 to 255):
// 0 for 1, 1 for 2 or 3, … 7 for 128 to 255.
func segment(x int) byte {
	var n byte
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

// NewG711Writer returns a writer that compands the 16-bit little-endian
// pcm written to it to w with compand (MuLaw or ALaw), one byte per
// sample.
func NewG711Writer(w io.Writer, compand func(int16) byte) *SampleWriter {
	return NewSampleWriter(w, func(b []byte, s int16) []byte { return append(b, compand(s)) })
}
