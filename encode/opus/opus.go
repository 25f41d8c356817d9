package opus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/codec/ogg"
	"github.com/voxkit/voxkit/internal/codec/opusenc"
	"github.com/voxkit/voxkit/internal/dsp"
)

// Codec is the opus codec, which importing this package registers in
// encode.DefaultRegistry; add it to registries of your own.
var Codec = encode.Codec{Name: "opus", ContentType: "audio/opus", Extension: "opus", SampleRates: opusRates, NewEncoder: newOpusEncoder}

func init() { encode.Register(Codec) }

// errClosed is returned by an encoder used after Close.
var errClosed = errors.New("opus: encoder used after Close")

// Ogg Opus (RFC 7845) from libopus, one 20 ms packet at a time.
//
// libopus encodes at 8, 12, 16, 24 and 48 kHz. 22050 and 44100 Hz input is
// resampled inside the encoder to 24 and 48 kHz (the OpusHead keeps the
// original rate, as RFC 7845 intends); other rates are refused with
// encode.ErrUnsupportedRate. Decoders output Opus at 48 kHz whatever the input.
var opusRates = []int{8000, 12000, 16000, 22050, 24000, 44100, 48000}

const (
	// opusDefaultBitrate is used when Format.Bitrate is 0 at rates above
	// 16 kHz; rates up to 16 kHz take opusNarrowBitrate.
	// docs/decisions.md has the measurements behind both and behind
	// opusDefaultComplexity.
	opusDefaultBitrate = 48000
	opusNarrowBitrate  = 32000
	// opusDefaultComplexity is used when Format.Level is 0.
	opusDefaultComplexity = 3
	// opusFrameMs is the packet duration.
	opusFrameMs = 20
	// opusSerial is the Ogg stream serial number. Each response is one
	// stream, so a fixed serial keeps output reproducible.
	opusSerial = 0x766f786b // "voxk"
	// Packets per Ogg page: about 100 ms of audio when streaming, one
	// second otherwise (as opusenc's default maximum page delay).
	opusPagePacketsStreaming = 5
	opusPagePackets          = 50
)

type opusEncoder struct {
	ogg    *ogg.Writer
	enc    *opusenc.Encoder
	rs     *dsp.Resampler // nil when libopus takes the rate itself
	rate   int            // libopus's rate
	frame  []int16        // one packet of input at rate
	n      int            // samples in frame
	fl     []float32      // resampler scratch
	rsOut  []float32
	packet []byte
	// comments are Format.Comments, written after ENCODER=voxkit.
	comments []string
	preSkip  int   // at 48 kHz
	la       int   // lookahead at rate
	in       int64 // samples given to libopus (at rate), before padding
	packets  int64
	perPage  int
	inPage   int
	err      error
}

func newOpusEncoder(w io.Writer, f encode.Format) (encode.Encoder, error) {
	if !slices.Contains(opusRates, f.SampleRate) {
		return nil, fmt.Errorf("%w: opus takes %v Hz, not %d", encode.ErrUnsupportedRate, opusRates, f.SampleRate)
	}
	bitrate := f.Bitrate
	if bitrate == 0 {
		bitrate = opusDefaultBitrate
		if f.SampleRate <= 16000 {
			bitrate = opusNarrowBitrate
		}
	}
	if bitrate < 6000 || bitrate > 510000 {
		return nil, fmt.Errorf("%w: opus takes 6000 to 510000 bps, not %d", encode.ErrUnsupportedBitrate, bitrate)
	}
	complexity := f.Level
	if complexity == 0 {
		complexity = opusDefaultComplexity
	}
	if complexity < 1 || complexity > 10 {
		return nil, fmt.Errorf("%w: opus level (complexity) is 1 to 10, not %d", encode.ErrUnsupportedLevel, f.Level)
	}
	e := &opusEncoder{rate: f.SampleRate, perPage: opusPagePackets, comments: f.Comments}
	if f.Streaming {
		e.perPage = opusPagePacketsStreaming
	}
	if r := f.SampleRate; r == 22050 || r == 44100 {
		e.rate = r * 160 / 147 // 24000 or 48000
		rs, err := dsp.NewResampler(r, e.rate)
		if err != nil {
			return nil, fmt.Errorf("opus: %w", err)
		}
		e.rs = rs
	}
	enc, err := opusenc.New(e.rate, opusenc.AppAudio)
	if err != nil {
		return nil, fmt.Errorf("opus: %w", err)
	}
	for _, set := range []func() error{
		func() error { return enc.SetBitrate(bitrate) },
		func() error { return enc.SetComplexity(complexity) },
		func() error { return enc.SetSignal(opusenc.SignalVoice) },
	} {
		if err := set(); err != nil {
			return nil, fmt.Errorf("opus: %w", err)
		}
	}
	if e.la, err = enc.Lookahead(); err != nil {
		return nil, fmt.Errorf("opus: %w", err)
	}
	e.enc = enc
	e.preSkip = e.la * 48000 / e.rate
	e.frame = make([]int16, e.rate*opusFrameMs/1000)
	e.packet = make([]byte, opusenc.MaxPacket)
	e.ogg = ogg.NewWriter(w, opusSerial)
	if err := e.writeHeaders(f.SampleRate); err != nil {
		return nil, err
	}
	return e, nil
}

// writeHeaders writes the OpusHead and OpusTags pages.
func (e *opusEncoder) writeHeaders(inputRate int) error {
	head := []byte("OpusHead")
	head = append(head, 1, 1) // version, channels
	head = binary.LittleEndian.AppendUint16(head, uint16(e.preSkip))
	head = binary.LittleEndian.AppendUint32(head, uint32(inputRate))
	head = binary.LittleEndian.AppendUint16(head, 0) // output gain
	head = append(head, 0)                           // mapping family: mono/stereo
	tags := []byte("OpusTags")
	vendor := opusenc.Version()
	tags = binary.LittleEndian.AppendUint32(tags, uint32(len(vendor)))
	tags = append(tags, vendor...)
	comments := append([]string{"ENCODER=voxkit"}, e.comments...)
	tags = binary.LittleEndian.AppendUint32(tags, uint32(len(comments)))
	for _, c := range comments {
		tags = binary.LittleEndian.AppendUint32(tags, uint32(len(c)))
		tags = append(tags, c...)
	}
	for _, p := range [][]byte{head, tags} {
		if err := e.ogg.WritePacket(p, 0); err != nil {
			return err
		}
		if err := e.ogg.Flush(); err != nil { // each header on its own page
			return err
		}
	}
	return nil
}

func (e *opusEncoder) Encode(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if e.rs != nil {
		e.fl = dsp.AppendFloat32(e.fl[:0], samples)
		e.rsOut = e.rs.Process(e.rsOut[:0], e.fl)
		return e.encodeFloat(e.rsOut)
	}
	e.in += int64(len(samples))
	e.feed(samples)
	return e.err
}

// encodeFloat converts resampled input back to 16 bits and encodes it.
func (e *opusEncoder) encodeFloat(x []float32) error {
	for len(x) > 0 && e.err == nil {
		k := min(len(x), len(e.frame)-e.n)
		conv := dsp.AppendInt16(e.frame[:e.n], x[:k])
		e.n = len(conv)
		x = x[k:]
		e.in += int64(k)
		if e.n == len(e.frame) {
			e.encodeFrame()
		}
	}
	return e.err
}

func (e *opusEncoder) feed(samples []int16) {
	for len(samples) > 0 && e.err == nil {
		k := copy(e.frame[e.n:], samples)
		e.n += k
		samples = samples[k:]
		if e.n == len(e.frame) {
			e.encodeFrame()
		}
	}
}

func (e *opusEncoder) encodeFrame() {
	if e.err != nil {
		return
	}
	n, err := e.enc.Encode(e.frame, e.packet)
	if err != nil {
		e.err = fmt.Errorf("opus: %w", err)
		return
	}
	e.n = 0
	// A full page leaves when the next packet comes, so that the last
	// page, which carries the end trimming, is never empty.
	if e.inPage == e.perPage {
		e.inPage = 0
		if e.err = e.ogg.Flush(); e.err != nil {
			return
		}
	}
	e.packets++
	e.inPage++
	// The granule position counts every decoded sample at 48 kHz, the
	// pre-skip included.
	e.err = e.ogg.WritePacket(e.packet[:n], e.packets*int64(len(e.frame))*48000/int64(e.rate))
}

func (e *opusEncoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.rs != nil {
		e.rsOut = e.rs.Flush(e.rsOut[:0])
		if e.encodeFloat(e.rsOut) != nil {
			return e.err
		}
	}
	// Pad with silence until the lookahead has pushed the last input
	// sample out, then trim the padding with the final granule position.
	for e.packets*int64(len(e.frame)) < e.in+int64(e.la) && e.err == nil {
		clear(e.frame[e.n:])
		e.n = len(e.frame)
		e.encodeFrame()
	}
	if e.err != nil {
		return e.err
	}
	if e.err = e.ogg.CloseAt(int64(e.preSkip) + e.in*48000/int64(e.rate)); e.err != nil {
		return e.err
	}
	e.err = errClosed
	return nil
}
