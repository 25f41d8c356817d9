package recording

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/voxkit/voxkit/internal/codec/opusenc"
	"github.com/voxkit/voxkit/internal/codec/wavfile"
)

// ebmlMagic starts every EBML document: WebM and Matroska.
var ebmlMagic = []byte{0x1A, 0x45, 0xDF, 0xA3}

// Matroska element IDs (with their length marker, as written).
const (
	idEBML           = 0x1A45DFA3
	idDocType        = 0x4282
	idSegment        = 0x18538067
	idCluster        = 0x1F43B675
	idTracks         = 0x1654AE6B
	idTrackEntry     = 0xAE
	idTrackNumber    = 0xD7
	idTrackType      = 0x83
	idCodecID        = 0x86
	idCodecPrivate   = 0x63A2
	idCodecDelay     = 0x56AA
	idSimpleBlock    = 0xA3
	idBlockGroup     = 0xA0
	idBlock          = 0xA1
	idDiscardPadding = 0x75A2
	idCues           = 0x1C53BB6B
	idTags           = 0x1254C367
)

// trackAudio is the TrackType of an audio track.
const trackAudio = 2

// unknownSize is the size of an element whose size field is all ones:
// it lasts until an element that cannot be its child. MediaRecorder
// writes its Segment and Clusters so.
const unknownSize = -1

// element is one EBML element's header.
type element struct {
	id   uint32
	size int64 // unknownSize, or the payload's length
	head int   // bytes of ID and size
}

// errWebMShort is the error of data that ends inside an element's ID or
// size.
var errWebMShort = fmt.Errorf("%w: a WebM element is cut short", ErrFormat)

// vint reads an EBML variable-length integer of at most max bytes at the
// start of b, returning its value without the length marker, its length,
// and whether all its value bits are ones.
func vint(b []byte, max int) (v uint64, n int, ones bool, err error) {
	if len(b) == 0 {
		return 0, 0, false, errWebMShort
	}
	n = bits.LeadingZeros8(b[0]) + 1
	if n > max {
		return 0, 0, false, fmt.Errorf("%w: a WebM number of %d bytes", ErrFormat, n)
	}
	if len(b) < n {
		return 0, 0, false, errWebMShort
	}
	v = uint64(b[0]) & (0xFF >> n)
	for _, c := range b[1:n] {
		v = v<<8 | uint64(c)
	}
	return v, n, v == 1<<(7*n)-1, nil
}

// readElement reads the element header at the start of b and checks that
// a known-size payload is all there.
func readElement(b []byte) (element, error) {
	e, err := readHeader(b)
	if err == nil && e.size > int64(len(b)-e.head) {
		return element{}, fmt.Errorf("%w: a WebM element (%#x) of %d bytes is cut at %d", ErrFormat, e.id, e.size, len(b)-e.head)
	}
	return e, err
}

// readHeader reads the element header at the start of b.
func readHeader(b []byte) (element, error) {
	_, n, _, err := vint(b, 4)
	if err != nil {
		return element{}, err
	}
	var id uint32
	for _, c := range b[:n] {
		id = id<<8 | uint32(c)
	}
	size, m, ones, err := vint(b[n:], 8)
	if err != nil {
		return element{}, err
	}
	e := element{id: id, size: int64(size), head: n + m}
	if ones {
		e.size = unknownSize
	}
	return e, nil
}

// children calls f with each element of b, a master element's payload
// of known size.
func children(b []byte, f func(e element, payload []byte) error) error {
	for len(b) > 0 {
		e, err := readElement(b)
		if err != nil {
			return err
		}
		if e.size == unknownSize {
			return fmt.Errorf("%w: a WebM element (%#x) of unknown size inside one of known size", ErrFormat, e.id)
		}
		if err := f(e, b[e.head:e.head+int(e.size)]); err != nil {
			return err
		}
		b = b[e.head+int(e.size):]
	}
	return nil
}

// uintOf is the value of an unsigned integer element.
func uintOf(b []byte) uint64 {
	var v uint64
	for _, c := range b[:min(len(b), 8)] {
		v = v<<8 | uint64(c)
	}
	return v
}

// intOf is the value of a signed integer element.
func intOf(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	n := min(len(b), 8)
	return int64(uintOf(b)<<(64-8*n)) >> (64 - 8*n)
}

// webmTrack is the Opus track of a WebM file.
type webmTrack struct {
	number uint64
	// head is the track's OpusHead. Its pre-skip is the samples to drop
	// at the start, not the track's CodecDelay: ffmpeg writes a
	// CodecDelay of half the pre-skip when its encoder ran at 24 kHz, and
	// decodes (as libopus's own tools do) with the pre-skip.
	head opusHead
}

// webmDemux walks a WebM file's Opus track.
type webmDemux struct {
	track   *webmTrack
	other   string // the codec of an audio track that is not Opus
	dec     *opusDecoding
	maxSec  float64
	discard int64 // DiscardPadding (ns) of the last block
	enough  bool
}

// decodeWebM decodes the first Opus audio track of a WebM (or Matroska)
// file. Segment and Cluster may be of unknown size; blocks may be laced.
// A last block's DiscardPadding trims the end.
func decodeWebM(data []byte, maxSeconds float64) (wavfile.Audio, error) {
	e, err := readElement(data)
	if err != nil {
		return wavfile.Audio{}, err
	}
	if e.size == unknownSize {
		return wavfile.Audio{}, fmt.Errorf("%w: an EBML header of unknown size", ErrFormat)
	}
	var doc string
	if err := children(data[e.head:e.head+int(e.size)], func(c element, p []byte) error {
		if c.id == idDocType {
			doc = string(p)
		}
		return nil
	}); err != nil {
		return wavfile.Audio{}, err
	}
	if doc != "webm" && doc != "matroska" {
		return wavfile.Audio{}, fmt.Errorf("%w: an EBML document of type %q", ErrFormat, doc)
	}
	d := &webmDemux{maxSec: maxSeconds}
	// The top level, Segment and Cluster are walked as one flat list:
	// their children's IDs are all different, so an element of unknown
	// size simply ends where the next one that is not its child starts.
	// Data that ends inside an element there — a Segment or Cluster of
	// known size, a block, or the Cues and Tags that follow the blocks —
	// is a recording cut short: what came before the cut is decoded. Any
	// other element claiming more than remains is damage.
	for b := data[e.head+int(e.size):]; len(b) > 0 && !d.enough; {
		e, err := readHeader(b)
		if errors.Is(err, errWebMShort) {
			return d.cut(err)
		}
		if err != nil {
			return wavfile.Audio{}, err
		}
		if e.id == idSegment || e.id == idCluster {
			b = b[e.head:]
			continue
		}
		if e.size == unknownSize {
			return wavfile.Audio{}, fmt.Errorf("%w: a WebM element (%#x) of unknown size", ErrFormat, e.id)
		}
		if e.size > int64(len(b)-e.head) && (e.id == idSimpleBlock || e.id == idBlockGroup || e.id == idCues || e.id == idTags) {
			return d.cut(fmt.Errorf("%w: a WebM element (%#x) of %d bytes is cut at %d", ErrFormat, e.id, e.size, len(b)-e.head))
		}
		if e.size > int64(len(b)-e.head) {
			return wavfile.Audio{}, fmt.Errorf("%w: a WebM element (%#x) of %d bytes runs past the end at %d", ErrFormat, e.id, e.size, len(b)-e.head)
		}
		if err := d.element(e, b[e.head:e.head+int(e.size)]); err != nil {
			return wavfile.Audio{}, err
		}
		b = b[e.head+int(e.size):]
	}
	if d.dec == nil {
		return wavfile.Audio{}, fmt.Errorf("%w: a WebM file with no Opus audio track", ErrFormat)
	}
	if d.enough {
		return d.dec.audio(-1), nil
	}
	total := int64(len(d.dec.out) - d.dec.skip)
	const maxDiscard = 10e9 // ns: far more than a frame, and no overflow
	return d.dec.audio(total - min(d.discard, maxDiscard)*opusenc.DecodeRate/1e9), nil
}

// cut is what decodeWebM returns for data that ends inside an element
// (err says which): the audio decoded before, if any.
func (d *webmDemux) cut(err error) (wavfile.Audio, error) {
	if d.dec == nil {
		return wavfile.Audio{}, err
	}
	return d.dec.audio(-1), cutError{err}
}

// element handles one element of the Segment or a Cluster.
func (d *webmDemux) element(e element, p []byte) error {
	switch e.id {
	case idTracks:
		if d.track != nil {
			return fmt.Errorf("%w: a WebM file with a second Tracks element", ErrFormat)
		}
		if err := children(p, func(c element, p []byte) error {
			if c.id == idTrackEntry && d.track == nil {
				return d.trackEntry(p)
			}
			return nil
		}); err != nil {
			return err
		}
		if d.track == nil && d.other != "" {
			return fmt.Errorf("%w: a WebM audio track of codec %s (only Opus is read)", ErrFormat, d.other)
		}
		if d.track != nil {
			var err error
			d.dec, err = newOpusDecoding(d.track.head, d.track.head.preSkip, d.maxSec)
			return err
		}
	case idSimpleBlock:
		ours, err := d.block(p)
		if ours {
			d.discard = 0
		}
		return err
	case idBlockGroup:
		var (
			block   []byte
			discard int64
		)
		if err := children(p, func(c element, p []byte) error {
			switch c.id {
			case idBlock:
				block = p
			case idDiscardPadding:
				discard = max(0, intOf(p)) // negative ones are at the start
			}
			return nil
		}); err != nil {
			return err
		}
		ours, err := d.block(block)
		if ours {
			d.discard = discard
		}
		return err
	}
	return nil
}

// trackEntry reads a TrackEntry: the first Opus audio track is the one.
func (d *webmDemux) trackEntry(p []byte) error {
	var (
		t       webmTrack
		kind    uint64
		codec   string
		private []byte
	)
	if err := children(p, func(c element, p []byte) error {
		switch c.id {
		case idTrackNumber:
			t.number = uintOf(p)
		case idTrackType:
			kind = uintOf(p)
		case idCodecID:
			codec = string(p)
		case idCodecPrivate:
			private = p
		}
		return nil
	}); err != nil {
		return err
	}
	if kind != trackAudio {
		return nil
	}
	if codec != "A_OPUS" {
		d.other = codec
		return nil
	}
	head, err := parseOpusHead(private)
	if err != nil {
		return err
	}
	t.head = head
	d.track = &t
	return nil
}

// block decodes the frames of a Block or SimpleBlock if it is of the
// Opus track, and says whether it was.
func (d *webmDemux) block(p []byte) (ours bool, err error) {
	track, n, _, err := vint(p, 8)
	if err != nil {
		return false, err
	}
	if d.track == nil {
		return false, fmt.Errorf("%w: a WebM block before the Tracks", ErrFormat)
	}
	if track != d.track.number {
		return false, nil
	}
	if len(p) < n+3 {
		return true, fmt.Errorf("%w: a WebM block is cut short", ErrFormat)
	}
	frames, err := unlace(p[n+3:], p[n+2]>>1&3)
	if err != nil {
		return true, err
	}
	for _, f := range frames {
		if d.enough, err = d.dec.decode(f); d.enough || err != nil {
			return true, err
		}
	}
	return true, nil
}

// Lacing of a block's frames (the flags' bits 1 and 2).
const (
	lacingNone  = 0
	lacingXiph  = 1
	lacingFixed = 2
	lacingEBML  = 3
)

// unlace splits a block's payload b into its frames.
func unlace(b []byte, lacing byte) ([][]byte, error) {
	if lacing == lacingNone {
		return [][]byte{b}, nil
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: a laced WebM block is cut short", ErrFormat)
	}
	count := int(b[0]) + 1
	b = b[1:]
	sizes := make([]int, count-1) // the last frame takes the rest
	switch lacing {
	case lacingXiph:
		for i := range sizes {
			for more := true; more; {
				if len(b) == 0 {
					return nil, fmt.Errorf("%w: a laced WebM block is cut short", ErrFormat)
				}
				sizes[i] += int(b[0])
				more, b = b[0] == 255, b[1:]
			}
		}
	case lacingFixed:
		if len(b)%count != 0 {
			return nil, fmt.Errorf("%w: %d bytes in %d fixed-size laced WebM frames", ErrFormat, len(b), count)
		}
		for i := range sizes {
			sizes[i] = len(b) / count
		}
	case lacingEBML:
		for i := range sizes {
			v, n, _, err := vint(b, 8)
			if err != nil {
				return nil, err
			}
			b = b[n:]
			size := int64(v)
			if i > 0 { // a signed difference from the previous size
				size = int64(sizes[i-1]) + int64(v) - (1<<(7*n-1) - 1)
			}
			if size < 0 || size > int64(len(b)) {
				return nil, fmt.Errorf("%w: a laced WebM frame of %d bytes", ErrFormat, size)
			}
			sizes[i] = int(size)
		}
	}
	frames := make([][]byte, 0, count)
	for _, s := range sizes {
		if s > len(b) {
			return nil, fmt.Errorf("%w: a laced WebM frame of %d bytes in %d", ErrFormat, s, len(b))
		}
		frames = append(frames, b[:s])
		b = b[s:]
	}
	return append(frames, b), nil
}
