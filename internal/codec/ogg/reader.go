package ogg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrCorrupt is returned (wrapped) by a Reader for input that is not a
// whole, intact Ogg stream; the error says what is wrong.
var ErrCorrupt = errors.New("ogg: corrupt stream")

// A Packet is one packet read from an Ogg stream.
type Packet struct {
	Data   []byte
	Serial uint32 // of its logical bitstream
	// Granule is the granule position of the page the packet ends on
	// when it is the last packet to end there, and -1 otherwise: the
	// position of a packet in the middle of a page is not written.
	Granule int64
	BOS     bool // the packet starts on its bitstream's first page
	EOS     bool // the packet is the last of its bitstream
}

// A Reader reads the packets of the Ogg pages in its input, in order,
// whatever logical bitstreams they belong to. Each page's CRC is checked
// and packets are joined across pages.
type Reader struct {
	r       io.Reader
	partial map[uint32]Packet // packets continued on a later page
	queue   []Packet          // the rest of the last page's packets
	head    [headerSize + maxSegments]byte
	pages   int
}

// NewReader returns a Reader of the Ogg stream r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, partial: map[uint32]Packet{}}
}

// ReadPacket returns the next packet. It returns io.EOF at the end of a
// stream that ends on a page boundary with no packet unfinished, and an
// ErrCorrupt for anything else that is not a valid stream; for a stream
// that ends inside a page or a packet, that error is also an
// io.ErrUnexpectedEOF.
func (o *Reader) ReadPacket() (Packet, error) {
	for len(o.queue) == 0 {
		if err := o.readPage(); err != nil {
			return Packet{}, err
		}
	}
	p := o.queue[0]
	o.queue = o.queue[1:]
	return p, nil
}

// readPage reads one page and queues the packets that end on it.
func (o *Reader) readPage() error {
	h := o.head[:headerSize]
	if _, err := io.ReadFull(o.r, h); err != nil {
		if err == io.EOF && o.pages > 0 {
			for serial := range o.partial {
				return fmt.Errorf("%w: bitstream %d ends inside a packet: %w", ErrCorrupt, serial, io.ErrUnexpectedEOF)
			}
			return io.EOF
		}
		return o.corrupt(err)
	}
	if string(h[:4]) != "OggS" || h[4] != 0 {
		return fmt.Errorf("%w: page %d has no Ogg page header", ErrCorrupt, o.pages)
	}
	n := int(h[26])
	lacing := o.head[headerSize : headerSize+n]
	if _, err := io.ReadFull(o.r, lacing); err != nil {
		return o.corrupt(err)
	}
	size := 0
	for _, l := range lacing {
		size += int(l)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(o.r, body); err != nil {
		return o.corrupt(err)
	}
	want := binary.LittleEndian.Uint32(h[22:])
	clear(h[22:26])
	crc := update(update(0, o.head[:headerSize+n]), body)
	if crc != want {
		return fmt.Errorf("%w: page %d fails its CRC check", ErrCorrupt, o.pages)
	}
	o.pages++

	flags, serial := h[5], binary.LittleEndian.Uint32(h[14:])
	granule := int64(binary.LittleEndian.Uint64(h[6:]))
	p, inside := o.partial[serial]
	if !inside {
		p = Packet{Serial: serial, Granule: -1, BOS: flags&flagBOS != 0}
	}
	if continued := flags&flagContinued != 0; continued != inside {
		return fmt.Errorf("%w: page %d of bitstream %d: continued flag %v, a packet open %v", ErrCorrupt, o.pages-1, serial, continued, inside)
	}
	delete(o.partial, serial)
	first := len(o.queue)
	open := inside
	for _, l := range lacing {
		p.Data = append(p.Data, body[:l]...)
		body = body[l:]
		open = l == 255
		if !open {
			o.queue = append(o.queue, p)
			p = Packet{Serial: serial, Granule: -1, BOS: flags&flagBOS != 0}
		}
	}
	if open {
		o.partial[serial] = p
	}
	if last := len(o.queue) - 1; last >= first {
		o.queue[last].Granule = granule
		o.queue[last].EOS = flags&flagEOS != 0 && !open
	}
	return nil
}

func (o *Reader) corrupt(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: page %d: %w", ErrCorrupt, o.pages, err)
}
