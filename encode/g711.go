package encode

import (
	"encoding/binary"
	"io"
)

// G.711 companding (ITU-T G.711), the telephony formats: one byte per
// sample, μ-law in North America and Japan, A-law elsewhere, headerless
// and usually at 8 kHz. They are not registered formats: a caller that
// speaks a telephony protocol asks for pcm and companding it with
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

// G711Writer turns 16-bit little-endian pcm written to it into one
// companded byte per sample written to the underlying writer.
type G711Writer struct {
	w       io.Writer
	compand func(int16) byte
	odd     []byte // the first byte of a sample split between writes
	buf     []byte
}

// NewG711Writer returns a writer companding pcm to w with compand
// (MuLaw or ALaw).
func NewG711Writer(w io.Writer, compand func(int16) byte) *G711Writer {
	return &G711Writer{w: w, compand: compand}
}

// Write compands p's whole samples; a trailing odd byte waits for the
// next Write.
func (g *G711Writer) Write(p []byte) (int, error) {
	n := len(p)
	g.buf = g.buf[:0]
	if len(g.odd) == 1 && len(p) > 0 {
		g.buf = append(g.buf, g.compand(int16(uint16(g.odd[0])|uint16(p[0])<<8)))
		g.odd, p = g.odd[:0], p[1:]
	}
	for ; len(p) >= 2; p = p[2:] {
		g.buf = append(g.buf, g.compand(int16(binary.LittleEndian.Uint16(p))))
	}
	if len(p) == 1 {
		g.odd = append(g.odd[:0], p[0])
	}
	if len(g.buf) == 0 {
		return n, nil
	}
	if _, err := g.w.Write(g.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush flushes the underlying writer when it can (an
// http.ResponseWriter, say), so companded audio is sent as synthesized.
func (g *G711Writer) Flush() error {
	switch f := g.w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
