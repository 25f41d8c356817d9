package mp3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/codec/mp3lame"
)

// Codec is the mp3 codec, which importing this package registers in
// encode.DefaultRegistry; add it to registries of your own.
var Codec = encode.Codec{Name: "mp3", ContentType: "audio/mpeg", Extension: "mp3", SampleRates: mp3Rates, NewEncoder: newMP3Encoder}

func init() { encode.Register(Codec) }

// errClosed is returned by an encoder used after Close.
var errClosed = errors.New("mp3: encoder used after Close")

// mp3Rates are the sample rates of MPEG-1, MPEG-2 and MPEG-2.5 Layer III.
var mp3Rates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// mp3RateIndex lists the rates in header order: three per MPEG version
// (1, 2, 2.5), each at its sample rate index.
var mp3RateIndex = []int{44100, 48000, 32000, 22050, 24000, 16000, 11025, 12000, 8000}

const (
	// mp3DefaultBitrate is used when Format.Bitrate is 0 above 12 kHz;
	// rates up to 12 kHz take mp3NarrowBitrate. docs/decisions.md has
	// the measurements behind both and behind mp3DefaultLevel.
	mp3DefaultBitrate = 64000
	mp3NarrowBitrate  = 32000
	// mp3DefaultLevel is used when Format.Level is 0: LAME's -q 5
	// (Level is 10 − q).
	mp3DefaultLevel = 5
	// mp3TagSize is the size of our Info header (with frame count and
	// size) and LAME tag after the side information.
	mp3TagSize = 16 + 36
)

// mp3Params are the frame parameters of one sample rate and bitrate.
type mp3Params struct {
	rate, kbps   int
	quality      int // LAME's, 0 (best) … 9
	version      int // header version bits: 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
	srIndex      int // header sample rate index, 0..2
	brIndex      int
	spf          int // samples per frame
	slots        int // bytes per frame without the padding byte
	sideInfoSize int
}

func newMP3Params(f encode.Format) (mp3Params, error) {
	rate, bps := f.SampleRate, f.Bitrate
	i := slices.Index(mp3RateIndex, rate)
	if i < 0 {
		return mp3Params{}, fmt.Errorf("%w: mp3 takes %v Hz, not %d", encode.ErrUnsupportedRate, mp3Rates, rate)
	}
	p := mp3Params{rate: rate, srIndex: i % 3, spf: 576, sideInfoSize: 9}
	switch i / 3 {
	case 0:
		p.version, p.spf, p.sideInfoSize = 3, 1152, 17
	case 1:
		p.version = 2
	case 2:
		p.version = 0
	}
	level := f.Level
	if level == 0 {
		level = mp3DefaultLevel
	}
	if level < 1 || level > 10 {
		return mp3Params{}, fmt.Errorf("%w: mp3 takes 1 to 10, not %d", encode.ErrUnsupportedLevel, f.Level)
	}
	p.quality = 10 - level
	if bps == 0 {
		bps = mp3DefaultBitrate
		if rate <= 12000 {
			bps = mp3NarrowBitrate
		}
	}
	table := mp3lame.Bitrates(rate)
	p.kbps = bps / 1000
	p.brIndex = slices.Index(table, p.kbps) + 1
	p.slots = p.frameBytes(p.kbps)
	if bps%1000 != 0 || p.brIndex <= 0 || !p.fits(p.kbps) {
		var ok []int
		for _, k := range table {
			if p.fits(k) {
				ok = append(ok, k)
			}
		}
		return mp3Params{}, fmt.Errorf("%w: mp3 at %d Hz takes %v kbps, not %d bps", encode.ErrUnsupportedBitrate, rate, ok, bps)
	}
	return p, nil
}

// frameBytes returns the size of a frame at kbps without the padding byte.
func (p mp3Params) frameBytes(kbps int) int { return p.spf / 8 * kbps * 1000 / p.rate }

// fits reports whether frames at kbps hold our Info frame's tags.
func (p mp3Params) fits(kbps int) bool {
	return p.frameBytes(kbps) >= 4+p.sideInfoSize+mp3TagSize
}

// mp3Encoder writes one continuous MPEG Layer III stream that starts with
// an Info frame: for a complete clip LAME's own (frame and byte counts,
// seek table, encoder delay and end padding) or, where that does not fit
// in a frame at the bitrate, ours with the same counts; when streaming,
// ours with the encoder delay only, as the length is not known yet. A
// complete clip written to an io.WriterAt goes through as it is encoded,
// starting with a placeholder of our Info frame that Close rewrites with
// the counts.
type mp3Encoder struct {
	w         io.Writer
	at        io.WriterAt // a complete clip's destination, written through
	p         mp3Params
	streaming bool // written through: streaming or at
	enc       *mp3lame.Encoder
	out       []byte // the whole stream for a complete clip, else scratch
	size      int    // bytes written through, less the first Info frame
	err       error
}

func newMP3Encoder(w io.Writer, f encode.Format) (encode.Encoder, error) {
	p, err := newMP3Params(f)
	if err != nil {
		return nil, err
	}
	at := encode.WriterAt(w, f)
	enc, err := mp3lame.New(mp3lame.Config{SampleRate: p.rate, Kbps: p.kbps, Quality: p.quality, Tag: !f.Streaming && at == nil})
	if err != nil {
		return nil, fmt.Errorf("mp3: %w", err)
	}
	e := &mp3Encoder{w: w, at: at, p: p, streaming: f.Streaming || at != nil, enc: enc}
	if e.streaming {
		if _, err := w.Write(e.infoFrame(0, 0, 0)); err != nil {
			enc.Close()
			return nil, err
		}
	}
	return e, nil
}

func (e *mp3Encoder) Encode(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if e.streaming {
		e.out = e.out[:0]
	}
	e.out, e.err = e.enc.Encode(e.out, samples)
	return e.writeOut()
}

// writeOut passes encoded bytes on when streaming.
func (e *mp3Encoder) writeOut() error {
	if e.err == nil && e.streaming && len(e.out) > 0 {
		_, e.err = e.w.Write(e.out)
		e.size += len(e.out)
	}
	if e.err != nil {
		e.enc.Close()
	}
	return e.err
}

func (e *mp3Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.streaming {
		e.out = e.out[:0]
	}
	e.out, e.err = e.enc.Flush(e.out)
	if e.err == nil && !e.streaming {
		e.err = e.prependInfo()
		e.streaming = true // now pass the stream on
	}
	if e.writeOut() != nil {
		return e.err
	}
	if e.at != nil {
		if _, e.err = e.at.WriteAt(e.infoFrame(e.enc.Frames(), e.size, e.enc.Padding()), 0); e.err != nil {
			e.enc.Close()
			return e.err
		}
	}
	e.enc.Close()
	e.out = nil
	e.err = errClosed
	return nil
}

// prependInfo puts the Info frame at the start of the complete stream in
// e.out: LAME's in place of the placeholder it wrote there, or ours.
func (e *mp3Encoder) prependInfo() error {
	tag, err := e.enc.TagFrame()
	if err != nil {
		return fmt.Errorf("mp3: %w", err)
	}
	if tag == nil {
		e.out = slices.Insert(e.out, 0, e.infoFrame(e.enc.Frames(), len(e.out), e.enc.Padding())...)
		return nil
	}
	// The placeholder is a frame header followed by zeros.
	if len(e.out) < len(tag) || binary.BigEndian.Uint32(e.out)>>21 != 0x7ff || e.out[len(tag)-1] != 0 {
		return errors.New("mp3: no Info placeholder at the start of LAME's stream")
	}
	copy(e.out, tag)
	return nil
}

// infoFrame returns a Layer III frame holding no audio but a Xing "Info"
// header and a LAME tag: the encoder delay and, when frames > 0, the
// frame count, stream size (the audio's plus this frame's) and end
// padding. Decoders that do not know the tag play it as one frame of
// silence.
func (e *mp3Encoder) infoFrame(frames, audioBytes, padding int) []byte {
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
		t = binary.BigEndian.AppendUint32(t, 0x3) // frames and bytes present
		t = binary.BigEndian.AppendUint32(t, uint32(frames))
		t = binary.BigEndian.AppendUint32(t, uint32(len(b)+audioBytes))
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
	d := uint32(e.enc.Delay())<<12 | uint32(max(padding, 0))&0xfff
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
