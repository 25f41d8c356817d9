package ogg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

func TestChecksum(t *testing.T) {
	// CRC-32 with polynomial 0x04c11db7, init 0, no reflection, no final
	// xor: the check value of "123456789" is the complement of the
	// CRC-32/POSIX check value 0x765e7680.
	if got, want := Checksum([]byte("123456789")), uint32(0x89a1897f); got != want {
		t.Fatalf("Checksum = %#x, want %#x", got, want)
	}
}

// page is one parsed Ogg page.
type page struct {
	flags   byte
	granule int64
	serial  uint32
	seq     uint32
	lacing  []byte
	body    []byte
}

// parsePages splits an Ogg stream into pages, checking each CRC.
func parsePages(t testing.TB, b []byte) []page {
	t.Helper()
	var pages []page
	for len(b) > 0 {
		if len(b) < headerSize || string(b[:4]) != "OggS" || b[4] != 0 {
			t.Fatalf("page %d: bad header % x", len(pages), b[:min(len(b), headerSize)])
		}
		n := int(b[26])
		if len(b) < headerSize+n {
			t.Fatalf("page %d: short lacing table", len(pages))
		}
		size := headerSize + n
		for _, l := range b[headerSize : headerSize+n] {
			size += int(l)
		}
		if len(b) < size {
			t.Fatalf("page %d: short body", len(pages))
		}
		raw := bytes.Clone(b[:size])
		crc := binary.LittleEndian.Uint32(raw[22:])
		clear(raw[22:26])
		if got := Checksum(raw); got != crc {
			t.Fatalf("page %d: crc %#x, computed %#x", len(pages), crc, got)
		}
		pages = append(pages, page{
			flags:   b[5],
			granule: int64(binary.LittleEndian.Uint64(b[6:])),
			serial:  binary.LittleEndian.Uint32(b[14:]),
			seq:     binary.LittleEndian.Uint32(b[18:]),
			lacing:  b[headerSize : headerSize+n],
			body:    b[headerSize+n : size],
		})
		b = b[size:]
	}
	return pages
}

// packet is a packet reassembled from pages, with the granule of the page
// on which it ends.
type packet struct {
	data    []byte
	granule int64
}

// checkStream parses b, checks the page structure and returns the packets.
func checkStream(t testing.TB, b []byte, serial uint32) []packet {
	t.Helper()
	pages := parsePages(t, b)
	if len(pages) == 0 {
		t.Fatal("no pages")
	}
	var (
		out     []packet
		partial []byte
		inside  bool
	)
	for i, p := range pages {
		if p.serial != serial || p.seq != uint32(i) {
			t.Fatalf("page %d: serial %d seq %d", i, p.serial, p.seq)
		}
		if got, want := p.flags&flagBOS != 0, i == 0; got != want {
			t.Fatalf("page %d: BOS %v", i, got)
		}
		if got, want := p.flags&flagEOS != 0, i == len(pages)-1; got != want {
			t.Fatalf("page %d: EOS %v", i, got)
		}
		if got := p.flags&flagContinued != 0; got != inside {
			t.Fatalf("page %d: continued flag %v, want %v", i, got, inside)
		}
		body := p.body
		first := len(out)
		for _, l := range p.lacing {
			partial = append(partial, body[:l]...)
			body = body[l:]
			inside = l == 255
			if !inside {
				out = append(out, packet{data: partial})
				partial = nil
			}
		}
		if first == len(out) && p.granule != -1 {
			t.Fatalf("page %d: no packet ends but granule %d", i, p.granule)
		}
		for j := first; j < len(out); j++ {
			out[j].granule = p.granule
		}
	}
	if inside {
		t.Fatal("stream ends inside a packet")
	}
	return out
}

func TestWriter(t *testing.T) {
	sizes := [][]int{
		{},
		{0},
		{1, 2, 3},
		{254, 255, 256, 510, 511},
		{255 * 255},
		{255*255 + 1, 3},
		{70000, 0, 100000},
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz), func(t *testing.T) {
			var buf bytes.Buffer
			o := NewWriter(&buf, 42)
			for i, n := range sz {
				p := bytes.Repeat([]byte{byte(i + 1)}, n)
				if err := o.WritePacket(p, int64(i+1)*100); err != nil {
					t.Fatal(err)
				}
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			got := checkStream(t, buf.Bytes(), 42)
			if len(got) != len(sz) {
				t.Fatalf("%d packets, want %d", len(got), len(sz))
			}
			for i, n := range sz {
				if !bytes.Equal(got[i].data, bytes.Repeat([]byte{byte(i + 1)}, n)) {
					t.Fatalf("packet %d differs", i)
				}
			}
			if len(sz) > 0 {
				last := parsePages(t, buf.Bytes())
				if g := last[len(last)-1].granule; g != int64(len(sz))*100 {
					t.Fatalf("final granule %d", g)
				}
			}
			if err := o.WritePacket(nil, 0); !errors.Is(err, ErrClosed) {
				t.Fatalf("WritePacket after Close: %v", err)
			}
		})
	}
}

func TestFlushAndCloseAt(t *testing.T) {
	var buf bytes.Buffer
	o := NewWriter(&buf, 7)
	if err := o.Flush(); err != nil { // BOS page even when empty
		t.Fatal(err)
	}
	if err := o.Flush(); err != nil { // nothing queued: no page
		t.Fatal(err)
	}
	for i := range 5 {
		if err := o.WritePacket([]byte{byte(i)}, int64(i+1)*960); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if err := o.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := o.CloseAt(4000); err != nil {
		t.Fatal(err)
	}
	pages := parsePages(t, buf.Bytes())
	var granules []int64
	for _, p := range pages {
		granules = append(granules, p.granule)
	}
	if want := []int64{-1, 3 * 960, 4000}; fmt.Sprint(granules) != fmt.Sprint(want) {
		t.Fatalf("granules %v, want %v", granules, want)
	}
	checkStream(t, buf.Bytes(), 7)
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterError(t *testing.T) {
	o := NewWriter(&failWriter{n: 1}, 1)
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := o.WritePacket([]byte("x"), 1); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err == nil {
		t.Fatal("Flush: no error from a failing writer")
	}
	if err := o.WritePacket([]byte("y"), 2); err == nil {
		t.Fatal("WritePacket after a write error: no error")
	}
	if err := o.Close(); err == nil {
		t.Fatal("Close after a write error: no error")
	}
}

// FuzzWriter writes random packets with random flushes and checks that the
// pages parse back into the same packets.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{3, 0, 255, 1, 0, 7})
	f.Add(bytes.Repeat([]byte{255}, 40))
	f.Fuzz(func(t *testing.T, script []byte) {
		var buf bytes.Buffer
		o := NewWriter(&buf, 9)
		var want [][]byte
		for i, c := range script {
			if c == 0 {
				if err := o.Flush(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			p := bytes.Repeat([]byte{byte(i)}, int(c)*int(c)) // up to 65025 bytes
			want = append(want, p)
			if err := o.WritePacket(p, int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.Close(); err != nil {
			t.Fatal(err)
		}
		got := checkStream(t, buf.Bytes(), 9)
		if len(got) != len(want) {
			t.Fatalf("%d packets, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i].data, want[i]) {
				t.Fatalf("packet %d differs", i)
			}
		}
	})
}
