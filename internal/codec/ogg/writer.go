package ogg

import (
	"encoding/binary"
	"errors"
	"io"
)

// Header type flags of a page.
const (
	flagContinued = 0x01 // the page starts with the rest of a packet
	flagBOS       = 0x02 // first page of the logical bitstream
	flagEOS       = 0x04 // last page of the logical bitstream
)

// maxSegments is the most lacing values one page can hold.
const maxSegments = 255

// headerSize is the size of a page header without its lacing table.
const headerSize = 27

// ErrClosed is returned by a Writer after its end-of-stream page.
var ErrClosed = errors.New("ogg: write after end of stream")

// A Writer writes the packets of one logical bitstream as Ogg pages.
//
// Packets are queued with WritePacket and leave as pages when Flush is
// called, when a page fills (255 lacing values), or at Close. A packet
// longer than a page continues on the next page. Output depends only on
// the packets and the Flush calls, never on timing.
type Writer struct {
	w       io.Writer
	serial  uint32
	seq     uint32
	started bool // the BOS page has been written
	closed  bool

	lacing  []byte // lacing values of the queued page
	body    []byte // body of the queued page
	granule int64  // granule of the last packet that ends in the queue
	ends    bool   // some packet ends in the queued page
	cont    bool   // the queued page starts inside a packet
	page    []byte // scratch for the assembled page
	err     error
}

// NewWriter returns a Writer of the logical bitstream with the given
// serial number.
func NewWriter(w io.Writer, serial uint32) *Writer {
	return &Writer{w: w, serial: serial}
}

// WritePacket queues one packet that ends at granule position granule.
// Full pages are written at once; the rest waits for Flush or Close.
func (o *Writer) WritePacket(p []byte, granule int64) error {
	if o.closed {
		return ErrClosed
	}
	if o.err != nil {
		return o.err
	}
	for first := true; ; first = false {
		if len(o.lacing) == maxSegments {
			// A full page: the packet continues on the next one unless
			// none of it is on this one yet.
			if err := o.writePage(0, !first); err != nil {
				return err
			}
		}
		n := min(len(p), 255)
		o.lacing = append(o.lacing, byte(n))
		o.body = append(o.body, p[:n]...)
		p = p[n:]
		if n < 255 {
			break // a lacing value below 255 ends the packet
		}
	}
	o.granule = granule
	o.ends = true
	return nil
}

// Flush writes the queued packets as a page. It writes nothing when no
// packet is queued, except that the first page is always written so that
// the stream starts with its beginning-of-stream page.
func (o *Writer) Flush() error {
	if o.closed {
		return ErrClosed
	}
	if o.err != nil {
		return o.err
	}
	if len(o.lacing) == 0 && o.started {
		return nil
	}
	return o.writePage(0, false)
}

// Close writes the queued packets as the last page, flagged end of
// stream, with the granule position of the last packet. It does not close
// the underlying writer.
func (o *Writer) Close() error {
	if o.closed {
		return o.err
	}
	if o.err == nil {
		o.err = o.writePage(flagEOS, false)
	}
	o.closed = true
	return o.err
}

// CloseAt is Close with the final granule position set to granule, which
// RFC 7845 uses to trim padding from the end of the last packet.
func (o *Writer) CloseAt(granule int64) error {
	o.granule = granule
	o.ends = true
	return o.Close()
}

// writePage writes the queued page; nextCont says whether the page after
// it starts inside a packet.
func (o *Writer) writePage(flags byte, nextCont bool) error {
	if !o.started {
		flags |= flagBOS
		o.started = true
	}
	if o.cont {
		flags |= flagContinued
	}
	granule := int64(-1) // no packet ends on this page
	if o.ends {
		granule = o.granule
	}
	p := o.page[:0]
	p = append(p, "OggS"...)
	p = append(p, 0, flags)
	p = binary.LittleEndian.AppendUint64(p, uint64(granule))
	p = binary.LittleEndian.AppendUint32(p, o.serial)
	p = binary.LittleEndian.AppendUint32(p, o.seq)
	p = append(p, 0, 0, 0, 0) // CRC, filled in below
	p = append(p, byte(len(o.lacing)))
	p = append(p, o.lacing...)
	p = append(p, o.body...)
	binary.LittleEndian.PutUint32(p[22:], Checksum(p))
	o.page = p
	o.seq++
	o.lacing, o.body, o.ends, o.cont = o.lacing[:0], o.body[:0], false, nextCont
	if _, err := o.w.Write(p); err != nil {
		o.err = err
		return err
	}
	return nil
}
