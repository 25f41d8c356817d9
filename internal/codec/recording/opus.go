package recording

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/voxkit/voxkit/internal/codec/ogg"
	"github.com/voxkit/voxkit/internal/codec/opusenc"
	"github.com/voxkit/voxkit/internal/codec/wavfile"
)

// opusHead is what an identification header (RFC 7845, section 5.1)
// says.
type opusHead struct {
	channels int
	preSkip  int // samples at 48 kHz to drop from the start
	gain     int // dB in Q7.8
}

// parseOpusHead reads an OpusHead packet: version 0.x, mono or stereo
// (mapping family 0); the multichannel families are not read.
func parseOpusHead(b []byte) (opusHead, error) {
	if len(b) < 19 || string(b[:8]) != "OpusHead" {
		return opusHead{}, fmt.Errorf("%w: no OpusHead header", ErrFormat)
	}
	if b[8]>>4 != 0 {
		return opusHead{}, fmt.Errorf("%w: Opus header version %d", ErrFormat, b[8])
	}
	h := opusHead{channels: int(b[9]), preSkip: int(binary.LittleEndian.Uint16(b[10:])),
		gain: int(int16(binary.LittleEndian.Uint16(b[16:])))}
	if family := b[18]; family != 0 || h.channels < 1 || h.channels > 2 {
		return opusHead{}, fmt.Errorf("%w: Opus of %d channels in mapping family %d (only mono and stereo are read)", ErrFormat, h.channels, family)
	}
	return h, nil
}

// opusDecoding decodes the packets of one Opus stream.
type opusDecoding struct {
	dec   *opusenc.Decoder
	skip  int // leading samples to drop
	limit int // samples wanted after the skip, -1 for all
	out   []float32
}

// newOpusDecoding starts decoding the stream with the header head,
// dropping skip samples at the start, keeping maxSeconds (all when <= 0).
func newOpusDecoding(head opusHead, skip int, maxSeconds float64) (*opusDecoding, error) {
	dec, err := opusenc.NewDecoder(head.gain)
	if err != nil {
		return nil, err
	}
	o := &opusDecoding{dec: dec, skip: skip, limit: -1}
	if maxSeconds > 0 {
		o.limit = int(maxSeconds * opusenc.DecodeRate)
	}
	return o, nil
}

// decode decodes one packet and reports whether enough is decoded.
func (o *opusDecoding) decode(packet []byte) (enough bool, err error) {
	if len(packet) == 0 {
		return false, fmt.Errorf("%w: an empty Opus packet", ErrFormat)
	}
	if o.out, err = o.dec.Decode(o.out, packet); err != nil {
		return false, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return o.limit >= 0 && len(o.out) >= o.skip+o.limit, nil
}

// audio is what was decoded, less the skip, cut to total samples when
// total >= 0 (the container's end trimming).
func (o *opusDecoding) audio(total int64) wavfile.Audio {
	s := o.out[min(o.skip, len(o.out)):]
	if total >= 0 && int64(len(s)) > total {
		s = s[:total]
	}
	return wavfile.Audio{Samples: s, SampleRate: opusenc.DecodeRate}
}

// decodeOgg decodes the first logical bitstream of an Ogg stream, which
// must be Opus; other bitstreams are ignored. The granule position of its
// last page trims the end.
func decodeOgg(data []byte, maxSeconds float64) (wavfile.Audio, error) {
	r := ogg.NewReader(bytes.NewReader(data))
	first, err := r.ReadPacket()
	if err != nil {
		return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if !bytes.HasPrefix(first.Data, []byte("OpusHead")) {
		return wavfile.Audio{}, fmt.Errorf("%w: an Ogg stream of another codec than Opus (%q)", ErrFormat, first.Data[:min(8, len(first.Data))])
	}
	head, err := parseOpusHead(first.Data)
	if err != nil {
		return wavfile.Audio{}, err
	}
	o, err := newOpusDecoding(head, head.preSkip, maxSeconds)
	if err != nil {
		return wavfile.Audio{}, err
	}
	granule, tags := int64(-1), false
	for {
		p, err := r.ReadPacket()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) && tags {
			return o.audio(-1), cutError{fmt.Errorf("%w: %w", ErrFormat, err)}
		}
		if err != nil {
			return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		if p.Serial != first.Serial {
			continue
		}
		if !tags { // the comment header, OpusTags
			tags = true
			continue
		}
		if p.Granule >= 0 {
			granule = p.Granule
		}
		if enough, err := o.decode(p.Data); enough || err != nil {
			return o.audio(-1), err
		}
		if p.EOS {
			break
		}
	}
	if !tags {
		return wavfile.Audio{}, fmt.Errorf("%w: an Ogg Opus stream without its comment header", ErrFormat)
	}
	total := int64(-1)
	if granule >= 0 {
		total = max(0, granule-int64(head.preSkip))
	}
	return o.audio(total), nil
}
