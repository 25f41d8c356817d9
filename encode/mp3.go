package encode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/braheezy/shine-mp3/pkg/mp3"
)

// MP3 is encoded by the pure-Go shine encoder (github.com/braheezy/shine-mp3
// v0.1.0), which is wrapped here around four of its faults:
//
//   - It walks the input with unsafe pointer arithmetic and keeps a pointer
//     one sample past the end of each frame. When the frame ends exactly at
//     the end of its allocation that pointer points into another object and
//     the garbage collector dies ("found bad pointer in Go heap"). The frame
//     buffer here has spare capacity, so the pointer stays inside it.
//   - Its Write steps through the input two frames at a time for mono, so
//     every other frame would be lost: it is given exactly one frame per call.
//   - It sizes frames in floating point, which rounds 215.999… slots down and
//     sets the padding bit on frames the decoder then reads as one byte
//     longer. The slot counts are recomputed here in integers.
//   - It never flushes the last bits of its bit writer, so the last frame
//     comes out a few bytes short. Close completes it with zero bytes.
//
// Its coder also overflows the 12-bit part2_3_length when a granule gets
// more than about 504 bytes, so such bitrates are refused.

// mp3Rates are the sample rates of MPEG-1, MPEG-2 and MPEG-2.5 Layer III.
var mp3Rates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// mp3RateIndex lists the rates in header order: three per MPEG version
// (1, 2, 2.5), each at its sample rate index.
var mp3RateIndex = []int{44100, 48000, 32000, 22050, 24000, 16000, 11025, 12000, 8000}

// Layer III bitrates in kbps by bitrate index: MPEG-1, and MPEG-2 / 2.5.
var (
	mp3KbpsV1 = []int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	mp3KbpsV2 = []int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
)

const (
	// mp3DefaultBitrate is used when Format.Bitrate is 0: at 24 kHz it
	// reaches the shine coder's quality ceiling on speech (about 18 dB
	// SNR) in half of its default 128 kbps. Rates up to 12 kHz take
	// 32 kbps.
	mp3DefaultBitrate = 64000
	// mp3MaxGranuleBytes is the most bytes per granule shine codes
	// correctly (504 works, 522 overflows).
	mp3MaxGranuleBytes = 504
	// mp3EncoderDelay is shine's delay in samples before the decoder's
	// own 529: decoded sample k+528+529 is input sample k.
	mp3EncoderDelay = 528
	// mp3DecoderDelay is the delay of a standard Layer III decoder.
	mp3DecoderDelay = 529
	// mp3TagSize is the size of the Info header (with frame count and
	// size) and LAME tag after the side information.
	mp3TagSize = 16 + 36
)

// mp3Params are the frame parameters of one sample rate and bitrate.
type mp3Params struct {
	rate, kbps   int
	version      int // header version bits: 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
	srIndex      int // header sample rate index, 0..2
	brIndex      int
	spf          int // samples per frame
	slots, frac  int // bytes per frame: slots + frac/rate
	sideInfoSize int
}

func newMP3Params(rate, bps int) (mp3Params, error) {
	i := slices.Index(mp3RateIndex, rate)
	if i < 0 {
		return mp3Params{}, fmt.Errorf("%w: mp3 takes %v Hz, not %d", ErrUnsupportedRate, mp3Rates, rate)
	}
	p := mp3Params{rate: rate, srIndex: i % 3, spf: 576, sideInfoSize: 9}
	table := mp3KbpsV2
	switch i / 3 {
	case 0:
		p.version, p.spf, p.sideInfoSize, table = 3, 1152, 17, mp3KbpsV1
	case 1:
		p.version = 2
	case 2:
		p.version = 0
	}
	if bps == 0 {
		bps = mp3DefaultBitrate
		if rate <= 12000 {
			bps = 32000
		}
	}
	p.kbps = bps / 1000
	p.brIndex = slices.Index(table, p.kbps)
	num := p.spf / 8 * p.kbps * 1000
	p.slots, p.frac = num/rate, num%rate
	if bps%1000 != 0 || p.brIndex <= 0 || !p.fits(p.kbps) {
		var ok []int
		for _, k := range table[1:] {
			if p.fits(k) {
				ok = append(ok, k)
			}
		}
		return mp3Params{}, fmt.Errorf("%w: mp3 at %d Hz takes %v kbps, not %d bps", ErrUnsupportedBitrate, rate, ok, bps)
	}
	return p, nil
}

// fits reports whether kbps gives frames that hold the Info frame's tags
// and granules that shine codes correctly.
func (p mp3Params) fits(kbps int) bool {
	bytes := p.spf / 8 * kbps * 1000 / p.rate
	return bytes >= 4+p.sideInfoSize+mp3TagSize && bytes/(p.spf/576) <= mp3MaxGranuleBytes
}

// mp3Encoder writes one continuous MPEG Layer III stream. It starts with
// an Info frame whose LAME tag carries the encoder delay, so decoders that
// read it (ffmpeg, mpg123, most players) drop the delay and the stream
// decodes to the input's length rounded up to a frame; a complete
// (non-streaming) clip also carries the frame count and end padding, and
// decodes to exactly the input's length.
type mp3Encoder struct {
	w         io.Writer
	p         mp3Params
	streaming bool
	enc       *mp3.Encoder
	frame     []int16 // len spf, cap spf+1: see the note on shine above
	n         int     // samples in frame
	samples   int64   // input samples
	frames    int     // audio frames encoded
	want      int64   // bytes the audio frames take
	got       int64   // bytes shine has produced
	out       bytes.Buffer
	err       error
}

func newMP3Encoder(w io.Writer, f Format) (Encoder, error) {
	p, err := newMP3Params(f.SampleRate, f.Bitrate)
	if err != nil {
		return nil, err
	}
	enc := mp3.NewEncoder(p.rate, 1)
	enc.Mpeg.Bitrate = int64(p.kbps)
	enc.Mpeg.BitrateIndex = int64(p.brIndex)
	enc.Mpeg.WholeSlotsPerFrame = int64(p.slots)
	enc.Mpeg.FracSlotsPerFrame = float64(p.frac) / float64(p.rate)
	enc.Mpeg.Slot_lag = -enc.Mpeg.FracSlotsPerFrame
	enc.Mpeg.Padding = 0
	e := &mp3Encoder{w: w, p: p, streaming: f.Streaming, enc: enc, frame: make([]int16, p.spf, p.spf+1)}
	if e.streaming {
		if _, err := w.Write(e.infoFrame(0, 0)); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *mp3Encoder) Encode(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	e.samples += int64(len(samples))
	for len(samples) > 0 {
		k := copy(e.frame[e.n:], samples)
		e.n += k
		samples = samples[k:]
		if e.n == len(e.frame) {
			e.encodeFrame()
		}
	}
	return e.flushOut()
}

// encodeFrame encodes the full frame buffer into e.out.
func (e *mp3Encoder) encodeFrame() {
	before := e.out.Len()
	if err := e.enc.Write(&e.out, e.frame); err != nil {
		e.err = err
	}
	e.got += int64(e.out.Len() - before)
	e.want += int64(e.p.slots) + e.enc.Mpeg.Padding
	e.frames++
	e.n = 0
}

// flushOut passes encoded bytes on when streaming.
func (e *mp3Encoder) flushOut() error {
	if e.err == nil && e.streaming && e.out.Len() > 0 {
		_, e.err = e.w.Write(e.out.Bytes())
		e.out.Reset()
	}
	return e.err
}

func (e *mp3Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	// Encode silence until every input sample has come out of the
	// decoder, then complete the last frame, whose final bytes shine
	// keeps in its bit writer.
	for int64(e.frames*e.p.spf) < e.samples+mp3EncoderDelay+mp3DecoderDelay {
		clear(e.frame[e.n:])
		e.encodeFrame()
	}
	switch short := e.want - e.got; {
	case short < 0:
		// Never seen: the bitrate limits keep shine inside its frames.
		e.err = fmt.Errorf("encode: mp3: encoder overran its frames by %d bytes", -short)
	case short > 0:
		e.out.Write(make([]byte, short))
	}
	if e.err == nil && !e.streaming {
		pad := int64(e.frames*e.p.spf) - mp3EncoderDelay - e.samples
		_, e.err = e.w.Write(e.infoFrame(e.frames, pad))
		e.streaming = true // now pass the frames on
	}
	if e.flushOut() != nil {
		return e.err
	}
	e.err = errClosed
	return nil
}

// infoFrame returns a Layer III frame holding no audio but a Xing "Info"
// header and a LAME tag: the encoder delay and, when frames > 0, the frame
// count, stream size and end padding. Decoders that do not know the tag
// play it as one frame of silence.
func (e *mp3Encoder) infoFrame(frames int, padding int64) []byte {
	p := e.p
	b := make([]byte, p.slots)
	hdr := uint32(0x7ff)<<21 | uint32(p.version)<<19 | 1<<17 | 1<<16 | // layer III, no CRC
		uint32(p.brIndex)<<12 | uint32(p.srIndex)<<10 |
		3<<6 | // mono
		1<<2 // original
	binary.BigEndian.PutUint32(b, hdr)
	t := b[4+p.sideInfoSize : 4+p.sideInfoSize]
	t = append(t, "Info"...)
	if frames > 0 {
		size := uint32(len(b)) + uint32(e.want)
		t = binary.BigEndian.AppendUint32(t, 0x3) // frames and bytes present
		t = binary.BigEndian.AppendUint32(t, uint32(frames))
		t = binary.BigEndian.AppendUint32(t, size)
	} else {
		// Streaming, the size is not known yet. A size field is still
		// given (this frame's) because decoders skip the Info frame only
		// when it has a count or size; without one they play it as a
		// frame of silence.
		t = binary.BigEndian.AppendUint32(t, 0x2)
		t = binary.BigEndian.AppendUint32(t, uint32(len(b)))
	}
	// The LAME tag: the identifier decoders check before trusting the
	// delay fields, then revision 0 and method 1 (constant bitrate).
	t = append(t, "LAME3.100"...)
	t = append(t, 0x01, 0)    // revision/method, lowpass
	t = append(t, 0, 0, 0, 0) // peak amplitude
	t = append(t, 0, 0, 0, 0) // replay gains
	t = append(t, 0, byte(min(p.kbps, 255)))
	d := uint32(mp3EncoderDelay)<<12 | uint32(max(padding, 0))&0xfff
	t = append(t, byte(d>>16), byte(d>>8), byte(d))
	t = append(t, 0, 0, 0, 0) // misc, mp3 gain, preset and surround
	t = append(t, 0, 0, 0, 0) // music length: unknown
	t = append(t, 0, 0)       // music CRC
	crc := crc16ARC(b[:4+p.sideInfoSize+len(t)])
	t = binary.BigEndian.AppendUint16(t, crc)
	return b
}

// crc16ARC is the CRC-16 of the LAME tag: polynomial 0x8005 reflected,
// initial value 0.
func crc16ARC(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xa001
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}
