package encode

import (
	"cmp"
	"encoding/binary"
	"io"
	"slices"
	"sync"
)

// wavHeaderSize is the size of the canonical 44-byte RIFF/WAVE header.
const wavHeaderSize = 44

// wavEncoder writes 16-bit mono RIFF/WAVE. Streaming, it writes the header
// at once with unknown sizes (0xFFFFFFFF, which decoders read as "until
// end of stream"). A complete clip carries exact sizes: written through to
// an io.WriterAt whose header is rewritten at Close, else held until Close.
type wavEncoder struct {
	w         io.Writer
	at        io.WriterAt // a complete clip's destination, written through
	rate      int
	streaming bool
	buf       []byte // pending output
	held      []byte // samples held back until Close (complete, no at)
	size      int    // bytes of samples written through
	err       error
}

func newWAVEncoder(w io.Writer, f Format) (Encoder, error) {
	e := &wavEncoder{w: w, rate: f.SampleRate, streaming: f.Streaming, at: WriterAt(w, f)}
	if e.streaming || e.at != nil {
		_, e.err = w.Write(e.header(0xFFFFFFFF))
	}
	return e, e.err
}

func (e *wavEncoder) header(dataSize uint32) []byte {
	return WAVHeader(WAVPCM, e.rate, 16, dataSize)
}

// WAV format tags: the encoding of the samples, as a WAV header names it.
const (
	WAVPCM   = 1 // signed integers (16-bit here)
	WAVFloat = 3 // IEEE floats
	WAVALaw  = 6 // G.711 A-law, 8-bit
	WAVMuLaw = 7 // G.711 μ-law, 8-bit
)

// WAVHeader returns the 44-byte RIFF/WAVE header of mono audio at rate
// whose samples are bits wide in the encoding tag (WAVPCM, WAVFloat,
// WAVALaw, WAVMuLaw), with dataSize bytes of samples to follow;
// 0xFFFFFFFF says the size is unknown (a stream), which decoders read
// as "until end of stream".
func WAVHeader(tag uint16, rate, bits int, dataSize uint32) []byte {
	riffSize := uint32(0xFFFFFFFF)
	if dataSize != 0xFFFFFFFF {
		riffSize = dataSize + wavHeaderSize - 8
	}
	block := bits / 8
	h := make([]byte, 0, wavHeaderSize)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, riffSize)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16) // fmt chunk size
	h = binary.LittleEndian.AppendUint16(h, tag)
	h = binary.LittleEndian.AppendUint16(h, 1) // channels
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*block)) // bytes per second
	h = binary.LittleEndian.AppendUint16(h, uint16(block))      // block align
	h = binary.LittleEndian.AppendUint16(h, uint16(bits))
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, dataSize)
	return h
}

func (e *wavEncoder) Encode(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if !e.streaming && e.at == nil {
		e.held = appendS16LE(e.held, samples)
		return nil
	}
	e.buf = appendS16LE(e.buf[:0], samples)
	_, e.err = e.w.Write(e.buf)
	e.size += len(e.buf)
	return e.err
}

// Close ends the clip; used again, it fails and writes nothing.
func (e *wavEncoder) Close() error {
	if e.err != nil {
		return e.err
	}
	err := e.finish()
	e.err = cmp.Or(err, errClosed)
	return err
}

func (e *wavEncoder) finish() error {
	putS16(e.buf)
	e.buf = nil
	if e.streaming {
		return nil
	}
	n := e.size + len(e.held)
	size := uint32(n)
	if n > 0xFFFFFFFF-wavHeaderSize {
		size = 0xFFFFFFFF // too long for exact sizes
	}
	if e.at != nil {
		_, err := e.at.WriteAt(e.header(size), 0)
		return err
	}
	_, err := e.w.Write(e.header(size))
	if err == nil {
		_, err = e.w.Write(e.held)
	}
	putS16(e.held)
	e.held = nil
	return err
}

// pcmEncoder writes raw signed 16-bit little-endian samples.
type pcmEncoder struct {
	w      io.Writer
	buf    []byte
	closed bool
}

func newPCMEncoder(w io.Writer, _ Format) (Encoder, error) { return &pcmEncoder{w: w}, nil }

func (e *pcmEncoder) Encode(samples []int16) error {
	if e.closed {
		return errClosed
	}
	e.buf = appendS16LE(e.buf[:0], samples)
	_, err := e.w.Write(e.buf)
	return err
}

func (e *pcmEncoder) Close() error {
	if e.closed {
		return errClosed
	}
	e.closed = true
	putS16(e.buf)
	e.buf = nil
	return nil
}

// appendS16LE appends samples as 16-bit little-endian bytes, growing b
// once. A nil b is taken from s16Buffers.
func appendS16LE(b []byte, samples []int16) []byte {
	if b == nil {
		b = getS16()
	}
	b = slices.Grow(b, 2*len(samples))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s)) // faster than indexing
	}
	return b
}

// s16Buffers holds the conversion buffers of closed encoders (*[]byte):
// a request's encoder would otherwise grow its own to its longest
// sentence. maxS16Buffer is the largest kept, 20 s at 24 kHz.
var s16Buffers sync.Pool

const maxS16Buffer = 1 << 20

func getS16() []byte {
	if b, ok := s16Buffers.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// putS16 gives b to s16Buffers; its owner does not use it after.
func putS16(b []byte) {
	if cap(b) == 0 || cap(b) > maxS16Buffer {
		return
	}
	b = b[:0]
	s16Buffers.Put(&b)
}
