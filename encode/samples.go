package encode

import (
	"encoding/binary"
	"io"
	"math"
)

// SampleWriter turns 16-bit little-endian pcm written to it into another
// sample encoding (G.711, 32-bit float), sample by sample, for protocols
// that ask for one.
type SampleWriter struct {
	w            io.Writer
	appendSample func([]byte, int16) []byte
	odd          []byte // the first byte of a sample split between writes
	buf          []byte
}

// NewSampleWriter returns a writer that writes to w what appendSample
// appends for each sample written to it.
func NewSampleWriter(w io.Writer, appendSample func(dst []byte, s int16) []byte) *SampleWriter {
	return &SampleWriter{w: w, appendSample: appendSample}
}

// NewFloat32Writer returns a writer that turns the 16-bit little-endian
// pcm written to it into 32-bit little-endian IEEE floats in [-1, 1).
func NewFloat32Writer(w io.Writer) *SampleWriter {
	return NewSampleWriter(w, AppendFloat32LE)
}

// AppendFloat32LE appends s as a little-endian 32-bit float in [-1, 1).
func AppendFloat32LE(b []byte, s int16) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(s)/32768))
}

// Write converts p's whole samples; a trailing odd byte waits for the
// next Write.
func (sw *SampleWriter) Write(p []byte) (int, error) {
	n := len(p)
	sw.buf = sw.buf[:0]
	if len(sw.odd) == 1 && len(p) > 0 {
		sw.buf = sw.appendSample(sw.buf, int16(uint16(sw.odd[0])|uint16(p[0])<<8))
		sw.odd, p = sw.odd[:0], p[1:]
	}
	for ; len(p) >= 2; p = p[2:] {
		sw.buf = sw.appendSample(sw.buf, int16(binary.LittleEndian.Uint16(p)))
	}
	if len(p) == 1 {
		sw.odd = append(sw.odd[:0], p[0])
	}
	if len(sw.buf) == 0 {
		return n, nil
	}
	if _, err := sw.w.Write(sw.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush flushes the underlying writer when it can (an
// http.ResponseWriter, say), so converted audio is sent as synthesized.
func (sw *SampleWriter) Flush() error { return Flush(sw.w) }

// Flush flushes w if it has a Flush method (with or without an error),
// and does nothing otherwise.
func Flush(w io.Writer) error {
	switch f := w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
