package encode

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"

	"github.com/voxkit/voxkit/internal/codec/flaclpc"
)

// FLAC frames are written by github.com/mewkiz/flac; which predictor each
// block uses is decided by internal/codec/flaclpc (the library's own analysis
// stops at fixed predictors). The stream header is written here: a
// streaming encoder writes it first with the length and MD5 unknown (both
// allowed by the format), a complete clip carries exact ones: rewritten at
// Close over a placeholder of the same size when the writer is an
// io.WriterAt, else written before the frames held until then.

const (
	flacDefaultLevel = 5
	// flacBlockSize is the samples per frame: 4096 as flac -5, about
	// 170 ms at 24 kHz.
	flacBlockSize = 4096
)

type flacEncoder struct {
	w         io.Writer
	at        io.WriterAt // a complete clip's destination, written through
	streaming bool
	rate      int
	fw        *flac.Encoder // frame writer
	sink      flacSink
	an        *flaclpc.Analyzer
	block     []int32
	sub       frame.Subframe
	parts     []frame.RicePartition // the frame's Rice partitions, reused
	rice      frame.RiceSubframe
	fr        frame.Frame
	md5       hash.Hash
	le        []byte
	samples   uint64
	frameMin  uint32
	frameMax  uint32
	out       bytes.Buffer // frames of a complete clip (without at)
	comments  []string     // Format.Comments
	err       error
}

// flacSink receives the library's output. It drops the stream header the
// library writes when created, passes frames on and measures them. It is
// a plain io.Writer, so the library neither seeks nor closes.
type flacSink struct {
	w    io.Writer
	drop bool
	n    int // bytes of the current frame
	err  error
}

func (s *flacSink) Write(p []byte) (int, error) {
	if s.drop {
		return len(p), nil
	}
	s.n += len(p)
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

func newFLACEncoder(w io.Writer, f Format) (Encoder, error) {
	level := f.Level
	if level == 0 {
		level = flacDefaultLevel
	}
	if level < 1 || level > 8 {
		return nil, fmt.Errorf("%w: flac level is 1 to 8, not %d", ErrUnsupportedLevel, f.Level)
	}
	e := &flacEncoder{
		w:         w,
		at:        WriterAt(w, f),
		streaming: f.Streaming,
		rate:      f.SampleRate,
		an:        flaclpc.NewAnalyzer(16, flaclpc.Level(level)),
		block:     make([]int32, 0, flacBlockSize),
		md5:       md5.New(),
		comments:  f.Comments,
	}
	e.sink = flacSink{w: w, drop: true}
	if !e.streaming && e.at == nil {
		e.sink.w = &e.out
	}
	fw, err := flac.NewEncoder(&e.sink, e.streamInfo())
	if err != nil {
		return nil, fmt.Errorf("encode: flac: %w", err)
	}
	fw.EnablePredictionAnalysis(false)
	e.fw, e.sink.drop = fw, false
	e.fr.Header = frame.Header{
		HasFixedBlockSize: true,
		SampleRate:        uint32(f.SampleRate),
		Channels:          frame.ChannelsMono,
		BitsPerSample:     16,
	}
	e.fr.Subframes = []*frame.Subframe{&e.sub}
	if e.streaming || e.at != nil {
		if _, err := w.Write(e.header()); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *flacEncoder) streamInfo() *meta.StreamInfo {
	return &meta.StreamInfo{
		BlockSizeMin:  flacBlockSize,
		BlockSizeMax:  flacBlockSize,
		FrameSizeMin:  e.frameMin,
		FrameSizeMax:  e.frameMax,
		SampleRate:    uint32(e.rate),
		NChannels:     1,
		BitsPerSample: 16,
		NSamples:      e.samples,
	}
}

// header returns "fLaC", the STREAMINFO block and, with Format.Comments,
// a VORBIS_COMMENT block. Streaming, the sample count, frame sizes and MD5
// are zero, meaning unknown.
func (e *flacEncoder) header() []byte {
	b := []byte("fLaC")
	last := byte(0x80)
	if len(e.comments) > 0 {
		last = 0
	}
	b = append(b, last, 0, 0, 34) // STREAMINFO, 34 bytes
	b = binary.BigEndian.AppendUint16(b, flacBlockSize)
	b = binary.BigEndian.AppendUint16(b, flacBlockSize)
	b = append(b, byte(e.frameMin>>16), byte(e.frameMin>>8), byte(e.frameMin))
	b = append(b, byte(e.frameMax>>16), byte(e.frameMax>>8), byte(e.frameMax))
	// 20 bits rate, 3 bits channels-1, 5 bits bps-1, 36 bits samples.
	v := uint64(e.rate)<<44 | 0<<41 | 15<<36 | e.samples&(1<<36-1)
	b = binary.BigEndian.AppendUint64(b, v)
	if e.streaming {
		b = append(b, make([]byte, md5.Size)...)
	} else {
		b = e.md5.Sum(b)
	}
	if len(e.comments) == 0 {
		return b
	}
	block := binary.LittleEndian.AppendUint32(nil, uint32(len(flacVendor)))
	block = append(block, flacVendor...)
	block = binary.LittleEndian.AppendUint32(block, uint32(len(e.comments)))
	for _, c := range e.comments {
		block = binary.LittleEndian.AppendUint32(block, uint32(len(c)))
		block = append(block, c...)
	}
	n := len(block)                                         // the block's length has 24 bits; Format.Comments are far shorter
	b = append(b, 0x80|4, byte(n>>16), byte(n>>8), byte(n)) // last metadata block, VORBIS_COMMENT
	return append(b, block...)
}

// flacVendor is the vendor string of a FLAC file's VORBIS_COMMENT block.
const flacVendor = "voxkit"

func (e *flacEncoder) Encode(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if !e.streaming {
		e.le = appendS16LE(e.le[:0], samples)
		e.md5.Write(e.le)
	}
	e.samples += uint64(len(samples))
	for _, s := range samples {
		e.block = append(e.block, int32(s))
		if len(e.block) == flacBlockSize {
			if e.writeFrame() != nil {
				return e.err
			}
		}
	}
	return nil
}

// writeFrame codes e.block as one frame.
func (e *flacEncoder) writeFrame() error {
	s := e.an.Analyze(e.block)
	sub := &e.sub
	*sub = frame.Subframe{Samples: e.block, NSamples: len(e.block)}
	sub.Order = s.Order
	switch s.Kind {
	case flaclpc.Constant:
		sub.Pred = frame.PredConstant
	case flaclpc.Verbatim:
		sub.Pred = frame.PredVerbatim
	case flaclpc.Fixed, flaclpc.LPC:
		sub.Pred = frame.PredFixed
		if s.Kind == flaclpc.LPC {
			sub.Pred = frame.PredFIR
			sub.Coeffs = s.Coeffs
			sub.CoeffPrec = uint(s.Precision)
			sub.CoeffShift = int32(s.Shift)
		}
		sub.ResidualCodingMethod = frame.ResidualCodingMethodRice1
		parts := slices.Grow(e.parts[:0], len(s.Params))[:len(s.Params)]
		e.parts = parts
		for i, k := range s.Params {
			parts[i].Param = uint(k)
			if k > 14 {
				sub.ResidualCodingMethod = frame.ResidualCodingMethodRice2
			}
		}
		e.rice = frame.RiceSubframe{PartOrder: s.PartitionOrder, Partitions: parts}
		sub.RiceSubframe = &e.rice
	}
	e.fr.BlockSize = uint16(len(e.block))
	e.sink.n = 0
	if err := e.fw.WriteFrame(&e.fr); err != nil {
		if e.sink.err != nil {
			err = e.sink.err // the writer's own error, not the library's wrapping
		}
		e.err = fmt.Errorf("encode: flac: %w", err)
		return e.err
	}
	n := uint32(e.sink.n)
	if e.frameMin == 0 || n < e.frameMin {
		e.frameMin = n
	}
	e.frameMax = max(e.frameMax, n)
	e.block = e.block[:0]
	return nil
}

func (e *flacEncoder) Close() error {
	putS16(e.le)
	e.le = nil
	if e.err != nil {
		return e.err
	}
	if len(e.block) > 0 && e.writeFrame() != nil {
		return e.err
	}
	switch {
	case e.at != nil:
		if _, e.err = e.at.WriteAt(e.header(), 0); e.err != nil {
			return e.err
		}
	case !e.streaming:
		if _, e.err = e.w.Write(e.header()); e.err == nil {
			_, e.err = e.w.Write(e.out.Bytes())
		}
		if e.err != nil {
			return e.err
		}
	}
	e.err = errClosed
	return nil
}

// flacRates are the rates offered for flac. The format takes any rate up
// to 655350 Hz; these are the common ones the frame header codes directly.
var flacRates = []int{8000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000}
