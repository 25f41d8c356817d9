package ogg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// readAll reads every packet of b.
func readAll(b []byte) ([]Packet, error) {
	r := NewReader(bytes.NewReader(b))
	var out []Packet
	for {
		p, err := r.ReadPacket()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

// TestReader: what the Writer writes reads back packet for packet, with
// the granule of the page each last packet ends on, BOS and EOS.
func TestReader(t *testing.T) {
	for _, sz := range [][]int{{0}, {1, 2, 3}, {254, 255, 256, 510, 511}, {255 * 255}, {255*255 + 1, 3}, {70000, 0, 100000}} {
		t.Run(fmt.Sprint(sz), func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, 7)
			for i, n := range sz {
				if err := w.WritePacket(bytes.Repeat([]byte{byte(i + 1)}, n), int64(i+1)*100); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := readAll(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(sz) {
				t.Fatalf("%d packets, want %d", len(got), len(sz))
			}
			for i, p := range got {
				if len(p.Data) != sz[i] || len(p.Data) > 0 && p.Data[0] != byte(i+1) || p.Serial != 7 {
					t.Errorf("packet %d: %d bytes of %v, serial %d", i, len(p.Data), p.Data[:min(1, len(p.Data))], p.Serial)
				}
			}
			last := got[len(got)-1]
			if !last.EOS || last.Granule != int64(len(sz))*100 || !got[0].BOS {
				t.Errorf("last packet: EOS %v granule %d; first BOS %v", last.EOS, last.Granule, got[0].BOS)
			}
		})
	}
}

// TestReaderInterleaved: pages of two bitstreams, one packet continued
// across pages while the other's pages come between, read apart.
func TestReaderInterleaved(t *testing.T) {
	var a, b bytes.Buffer
	wa, wb := NewWriter(&a, 1), NewWriter(&b, 2)
	wa.WritePacket(bytes.Repeat([]byte{'a'}, 255*255+10), 10) // two pages
	wb.WritePacket([]byte("bb"), 20)
	wa.Close()
	wb.Close()
	pa := parsePages(t, a.Bytes())
	first := headerSize + len(pa[0].lacing) + len(pa[0].body)
	var mixed []byte
	mixed = append(mixed, a.Bytes()[:first]...)
	mixed = append(mixed, b.Bytes()...)
	mixed = append(mixed, a.Bytes()[first:]...)
	got, err := readAll(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Serial != 2 || string(got[0].Data) != "bb" || got[1].Serial != 1 || len(got[1].Data) != 255*255+10 {
		t.Fatalf("got %d packets: %+v", len(got), got)
	}
}

// TestReaderErrors: what is not a whole intact stream is an ErrCorrupt.
func TestReaderErrors(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 7)
	w.WritePacket(bytes.Repeat([]byte{1}, 70000), 100)
	w.Close()
	good := buf.Bytes()
	flipped := bytes.Clone(good)
	flipped[100] ^= 1
	pages := parsePages(t, good)
	secondPage := good[headerSize+len(pages[0].lacing)+len(pages[0].body):]
	for name, data := range map[string][]byte{
		"empty":          nil,
		"not ogg":        []byte("RIFF this is not an Ogg stream at all"),
		"short header":   good[:20],
		"cut in body":    good[:len(good)-5],
		"crc":            flipped,
		"ends in packet": good[:len(good)-len(secondPage)],
		"no first part":  secondPage,
	} {
		if _, err := readAll(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}
