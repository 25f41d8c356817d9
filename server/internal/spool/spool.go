// Package spool holds a complete clip while it is encoded, in memory up to
// a limit and in an unnamed temporary file beyond, then sends it in
// pieces: a slow reader holds a file and a small buffer, never the clip.
package spool

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// MemoryLimit is the most of a clip a Spool holds in memory; Chunk is the
// size of each write of Send.
const (
	MemoryLimit = 1 << 20
	Chunk       = 64 << 10
)

// Spool holds a complete clip while it is encoded: its first MemoryLimit
// bytes in memory (a buffer from spoolBuffers), then all of it in an
// unnamed temporary file (in os.TempDir, removed as soon as it is made).
// It is an io.WriterAt, so the encoders write the clip through and
// rewrite its header at the end instead of holding it (see
// encode.Format.Streaming).
type Spool struct {
	mem  []byte
	buf  *[]byte // mem's pooled buffer
	file *os.File
	size int64
}

// spoolBuffers holds the memory of finished spools (*[]byte, of at most
// MemoryLimit): each clip would otherwise grow its own, doubling, and a
// clip's finishing touches would wait on the collector that this feeds.
// sendBuffers holds the buffers a spool's file is sent through.
var spoolBuffers, sendBuffers sync.Pool

// Write appends p to the clip, moving it to a file once it passes
// MemoryLimit.
func (c *Spool) Write(p []byte) (int, error) {
	if c.buf == nil && c.file == nil {
		if b, ok := spoolBuffers.Get().(*[]byte); ok {
			c.buf, c.mem = b, (*b)[:0]
		} else {
			c.buf = new([]byte)
		}
	}
	if c.file == nil && len(c.mem)+len(p) > MemoryLimit {
		f, err := os.CreateTemp("", "voxkit-clip-*")
		if err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		os.Remove(f.Name()) // the open file lives on, unnamed
		c.file = f
		if _, err := f.Write(c.mem); err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		c.release()
	}
	if c.file != nil {
		n, err := c.file.Write(p)
		c.size += int64(n)
		if err != nil {
			return n, fmt.Errorf("spool: %w", err)
		}
		return n, nil
	}
	c.mem = append(c.mem, p...)
	c.size += int64(len(p))
	return len(p), nil
}

// Size returns how many bytes were written.
func (c *Spool) Size() int64 { return c.size }

// WriteAt rewrites bytes already written.
func (c *Spool) WriteAt(p []byte, off int64) (int, error) {
	if c.file != nil {
		return c.file.WriteAt(p, off)
	}
	if off < 0 || off+int64(len(p)) > int64(len(c.mem)) {
		return 0, errors.New("spool: WriteAt past the end of the clip")
	}
	return copy(c.mem[off:], p), nil
}

// Send writes the clip to w in writes of Chunk bytes: from memory as
// it lies, from the file through a pooled buffer.
func (c *Spool) Send(w io.Writer) error {
	if c.file == nil {
		for b := c.mem; len(b) > 0; {
			n := min(len(b), Chunk)
			if _, err := w.Write(b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		return nil
	}
	buf, ok := sendBuffers.Get().(*[]byte)
	if !ok {
		b := make([]byte, Chunk)
		buf = &b
	}
	defer sendBuffers.Put(buf)
	// CopyBuffer's buffer sets the size of each write: hide the reader's
	// WriteTo, which would write all at once.
	_, err := io.CopyBuffer(w, struct{ io.Reader }{io.NewSectionReader(c.file, 0, c.size)}, *buf)
	return err
}

// release returns the memory buffer to spoolBuffers.
func (c *Spool) release() {
	if c.buf == nil {
		return
	}
	if cap(c.mem) <= MemoryLimit {
		*c.buf = c.mem[:0]
		spoolBuffers.Put(c.buf)
	}
	c.buf, c.mem = nil, nil
}

// Close releases the memory and the file; the spool is not used after.
func (c *Spool) Close() error {
	c.release()
	if c.file == nil {
		return nil
	}
	return c.file.Close()
}
