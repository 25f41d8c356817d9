package spool

import (
	"bytes"
	"testing"
)

// chunks records the size of each write.
type chunks struct {
	bytes.Buffer
	sizes []int
}

func (c *chunks) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	return c.Buffer.Write(p)
}

// TestSpool: small clips stay in memory and large ones move to a file;
// either way a header rewritten at the end is sent with the rest, in
// writes of at most Chunk bytes.
func TestSpool(t *testing.T) {
	for _, size := range []int{1000, MemoryLimit, MemoryLimit + 1, 3*MemoryLimit + 17} {
		clip := make([]byte, size)
		for i := range clip {
			clip[i] = byte(i * 7)
		}
		s := new(Spool)
		for b := clip; len(b) > 0; {
			n := min(len(b), 4000)
			if _, err := s.Write(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		copy(clip, "RIFF")
		if _, err := s.WriteAt([]byte("RIFF"), 0); err != nil {
			t.Fatal(err)
		}
		if s.Size() != int64(size) || (s.file != nil) != (size > MemoryLimit) {
			t.Errorf("%d bytes: size %d, in a file %v", size, s.Size(), s.file != nil)
		}
		var out chunks
		if err := s.Send(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), clip) {
			t.Errorf("%d bytes: sent %d bytes, not the clip", size, out.Len())
		}
		for _, n := range out.sizes {
			if n > Chunk {
				t.Errorf("%d bytes: a write of %d bytes", size, n)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := new(Spool).WriteAt([]byte("x"), 5); err == nil {
		t.Error("WriteAt past the end succeeded")
	}
}
