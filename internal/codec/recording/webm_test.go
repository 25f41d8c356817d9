package recording_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/opus"
	"github.com/voxkit/voxkit/internal/codec/ogg"
	"github.com/voxkit/voxkit/internal/codec/opusenc"
	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// opusPackets is n 20 ms packets of speech encoded at 48 kHz and bps
// bits per second (160 kbps: about 400 bytes each), and the encoder's
// lookahead.
func opusPackets(t testing.TB, n, bps int) ([][]byte, int) {
	t.Helper()
	e, err := opusenc.New(48000, opusenc.AppAudio)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetBitrate(bps); err != nil {
		t.Fatal(err)
	}
	la, _ := e.Lookahead()
	pcm := speech(n * 960)
	var packets [][]byte
	for i := 0; i < len(pcm); i += 960 {
		buf := make([]byte, opusenc.MaxPacket)
		k, err := e.Encode(pcm[i:i+960], buf)
		if err != nil {
			t.Fatal(err)
		}
		packets = append(packets, buf[:k])
	}
	return packets, la
}

// opusHead is an OpusHead of one channel.
func opusHead(preSkip int) []byte {
	h := []byte("OpusHead\x01\x01\x00\x00\x80\xbb\x00\x00\x00\x00\x00")
	binary.LittleEndian.PutUint16(h[10:], uint16(preSkip))
	return h
}

// el is an EBML element of known size (written in 8 bytes).
func el(id uint32, payload ...[]byte) []byte {
	b := idBytes(id)
	var n int
	for _, p := range payload {
		n += len(p)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(n)|1<<56)
	for _, p := range payload {
		b = append(b, p...)
	}
	return b
}

// unknown is an EBML element of unknown size.
func unknown(id uint32, payload ...[]byte) []byte {
	b := append(idBytes(id), 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	for _, p := range payload {
		b = append(b, p...)
	}
	return b
}

func idBytes(id uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, id)
	for b[0] == 0 {
		b = b[1:]
	}
	return b
}

func uintEl(id uint32, v uint64) []byte { return el(id, binary.BigEndian.AppendUint64(nil, v)) }

// Lacing of a block, as the flags' bits 1–2 hold it.
const (
	noLacing    = 0
	xiphLacing  = 1
	fixedLacing = 2
	ebmlLacing  = 3
)

// simpleBlock is a SimpleBlock of track with frames laced as lacing.
func simpleBlock(track byte, lacing byte, frames ...[]byte) []byte {
	return el(0xA3, block(track, lacing, frames...))
}

// block is the payload of a Block or SimpleBlock.
func block(track byte, lacing byte, frames ...[]byte) []byte {
	b := []byte{0x80 | track, 0, 0, 0x80 | lacing<<1}
	if lacing != noLacing {
		b = append(b, byte(len(frames)-1))
	}
	last := len(frames) - 1
	switch lacing {
	case xiphLacing:
		for _, f := range frames[:last] {
			n := len(f)
			for ; n >= 255; n -= 255 {
				b = append(b, 255)
			}
			b = append(b, byte(n))
		}
	case ebmlLacing:
		for i, f := range frames[:last] {
			if i == 0 {
				b = binary.BigEndian.AppendUint16(b, 0x4000|uint16(len(f)))
				continue
			}
			b = binary.BigEndian.AppendUint16(b, 0x4000|uint16(len(f)-len(frames[i-1])+(1<<13-1)))
		}
	}
	for _, f := range frames {
		b = append(b, f...)
	}
	return b
}

// webmOf is a WebM of an Opus track (number 1, pre-skip preSkip) and a
// Vorbis track (2), Segment and Clusters of unknown size as MediaRecorder
// writes them, around clusters.
func webmOf(preSkip int, clusters ...[]byte) []byte {
	head := el(0x1A45DFA3, el(0x4282, []byte("webm")))
	tracks := el(0x1654AE6B,
		el(0xAE, uintEl(0xD7, 1), uintEl(0x83, 2), el(0x86, []byte("A_OPUS")), el(0x63A2, opusHead(preSkip))),
		el(0xAE, uintEl(0xD7, 2), uintEl(0x83, 2), el(0x86, []byte("A_VORBIS"))))
	seg := [][]byte{el(0x1549A966, uintEl(0x2AD7B1, 1000000)), tracks}
	for _, c := range clusters {
		seg = append(seg, unknown(0x1F43B675, uintEl(0xE7, 0), c))
	}
	seg = append(seg, el(0x1C53BB6B, el(0xBB, uintEl(0xB3, 0)))) // Cues
	return append(head, unknown(0x18538067, seg...)...)
}

// oggOf is an Ogg Opus stream of packets (960 samples each) with the
// pre-skip preSkip, its end granule trimming trim samples.
func oggOf(t testing.TB, packets [][]byte, preSkip, trim int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := ogg.NewWriter(&b, 1)
	w.WritePacket(opusHead(preSkip), 0)
	w.Flush()
	w.WritePacket([]byte("OpusTags\x00\x00\x00\x00\x00\x00\x00\x00"), 0)
	w.Flush()
	for i, p := range packets {
		w.WritePacket(p, int64(i+1)*960)
	}
	if err := w.CloseAt(int64(len(packets)*960 - trim)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDecodeWebM: a WebM with unknown-size Segment and Clusters, Xiph,
// EBML and fixed lacing, blocks of another track between, and a last
// BlockGroup whose DiscardPadding trims the end, decodes to exactly what
// the same packets in order decode to from Ogg, trimmed by its granule.
func TestDecodeWebM(t *testing.T) {
	p, la := opusPackets(t, 24, 160000)
	const discard = 100 // samples: about 2 ms
	data := webmOf(la,
		append(append(append(append(
			simpleBlock(2, noLacing, []byte("vorbis")),
			simpleBlock(1, xiphLacing, p[0], p[1], p[2])...),
			simpleBlock(1, ebmlLacing, p[3], p[4], p[5], p[6])...),
			simpleBlock(1, fixedLacing, p[7], p[7])...),
			simpleBlock(1, noLacing, p[8])...),
		append(append(
			simpleBlock(1, noLacing, p[9]),
			simpleBlock(1, xiphLacing, p[10:22]...)...),
			el(0xA0, el(0xA1, block(1, noLacing, p[22])), el(0x75A2, binary.BigEndian.AppendUint32(nil, discard*1_000_000_000/48000+1)))...))
	if len(p[0]) < 255 {
		t.Fatalf("packets of %d bytes test no long Xiph lacing", len(p[0]))
	}
	order := append(append([][]byte{}, p[:8]...), p[7])
	order = append(order, p[8:23]...)
	want, err := recording.Decode(oggOf(t, order, la, discard), 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := recording.Decode(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(order)*960 - la - discard; a.SampleRate != 48000 || len(a.Samples) != n || len(want.Samples) != n {
		t.Fatalf("%d samples at %d Hz (from Ogg %d), want %d at 48000", len(a.Samples), a.SampleRate, len(want.Samples), n)
	}
	for i := range want.Samples {
		if a.Samples[i] != want.Samples[i] {
			t.Fatalf("sample %d: %v, from Ogg %v", i, a.Samples[i], want.Samples[i])
		}
	}
	if a, err := recording.Decode(data, 0.1); err != nil || len(a.Samples) != 4800 {
		t.Errorf("cut at 0.1 s: %d samples, %v", len(a.Samples), err)
	}

	// Refused clearly: cut inside a block; a laced block whose sizes
	// overrun it; Opus of three channels; no Opus track.
	bad := map[string][]byte{
		"cut":            data[:len(data)/2],
		"lacing overrun": webmOf(la, el(0xA3, []byte{0x81, 0, 0, 0x80 | xiphLacing<<1, 1, 200, 1, 2, 3})),
		"no opus track":  append(el(0x1A45DFA3, el(0x4282, []byte("webm"))), unknown(0x18538067, el(0x1654AE6B, el(0xAE, uintEl(0xD7, 1), uintEl(0x83, 2), el(0x86, []byte("A_VORBIS")))))...),
		"matroska only":  el(0x1A45DFA3, el(0x4282, []byte("mkv?"))),
	}
	for name, data := range bad {
		_, err := recording.Decode(data, 0)
		if !errors.Is(err, recording.ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestDecodeOggOpus: voxkit's own Ogg Opus (24 kHz in, pre-skip and end
// granule set) decodes to exactly twice the samples at 48 kHz, in step
// with its input.
func TestDecodeOggOpus(t *testing.T) {
	in := speech(24000*2 + 123)
	a, err := recording.Decode(audiotest.Encoded(t, encode.Format{Name: "opus", SampleRate: 24000}, in), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != 48000 || len(a.Samples) != 2*len(in) {
		t.Fatalf("%d samples at %d Hz, want %d at 48000", len(a.Samples), a.SampleRate, 2*len(in))
	}
	var ab, aa, bb float64
	for i, s := range in {
		x, y := float64(a.Samples[2*i]), float64(s)/32768
		ab, aa, bb = ab+x*y, aa+x*x, bb+y*y
	}
	if r := ab / math.Sqrt(aa*bb); r < 0.9 {
		t.Errorf("correlation %.3f with the input", r)
	}
}
