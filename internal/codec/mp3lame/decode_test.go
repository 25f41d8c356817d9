package mp3lame

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// encode is samples encoded at rate and kbps, with or without the Info
// tag (put in place of its placeholder, as the mp3 codec does).
func encode(t testing.TB, samples []int16, rate, kbps int, tag bool) []byte {
	t.Helper()
	e, err := New(Config{SampleRate: rate, Kbps: kbps, Quality: 5, Tag: tag})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out, err := e.Encode(nil, samples)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = e.Flush(out); err != nil {
		t.Fatal(err)
	}
	tf, err := e.TagFrame()
	if err != nil {
		t.Fatal(err)
	}
	copy(out, tf)
	return out
}

// correlation is the normalized correlation of a and b over their common
// length.
func correlation(a []float32, b []int16) float64 {
	var ab, aa, bb float64
	for i := range min(len(a), len(b)) {
		x, y := float64(a[i]), float64(b[i])/32768
		ab, aa, bb = ab+x*y, aa+x*x, bb+y*y
	}
	return ab / math.Sqrt(aa*bb)
}

// TestDecode: LAME's own output decodes back to its input: the length
// exactly when the Info tag states delay and padding, the waveform
// closely; maxSeconds cuts.
func TestDecode(t *testing.T) {
	for _, c := range []struct{ rate, kbps int }{{8000, 32}, {16000, 64}, {24000, 64}, {44100, 128}, {48000, 96}} {
		in := tone(c.rate, c.rate+77)
		d, err := Decode(encode(t, in, c.rate, c.kbps, true), 0)
		if err != nil {
			t.Fatalf("%d Hz: %v", c.rate, err)
		}
		if d.SampleRate != c.rate || d.Channels != 1 || len(d.Samples) != len(in) {
			t.Errorf("%d Hz: %d samples at %d Hz, %d channels; want %d", c.rate, len(d.Samples), d.SampleRate, d.Channels, len(in))
		}
		if r := correlation(d.Samples, in); r < 0.99 {
			t.Errorf("%d Hz: correlation %.4f with the input", c.rate, r)
		}
		if d, err := Decode(encode(t, in, c.rate, c.kbps, true), 0.5); err != nil || len(d.Samples) != c.rate/2 {
			t.Errorf("%d Hz cut at 0.5 s: %d samples, %v", c.rate, len(d.Samples), err)
		}
	}
}

// TestDecodeErrors: what is not a whole Layer III stream is an ErrStream
// and never reaches the C decoder.
func TestDecodeErrors(t *testing.T) {
	good := encode(t, tone(24000, 24000), 24000, 64, false)
	layer2 := append([]byte{}, good...)
	layer2[1] = layer2[1]&^0x06 | 0x04
	rate := append([]byte{}, good...)
	second := 64 * 72000 / 24000 // the second frame: 16 kHz
	rate[second+2] = rate[second+2]&^0x0c | 0x08
	for name, data := range map[string][]byte{
		"empty":       nil,
		"text":        []byte("not audio at all"),
		"id3 only":    []byte("ID3\x04\x00\x00\x00\x00\x00\x05hello"),
		"cut":         good[:len(good)-10],
		"layer II":    layer2,
		"rate change": rate,
		"free format": {0xFF, 0xFB, 0x00, 0x64, 0, 0, 0, 0},
	} {
		if _, err := Decode(data, 0); !errors.Is(err, ErrStream) {
			t.Errorf("%s: %v, want ErrStream", name, err)
		}
	}
}

// FuzzDecode: any data decodes or fails with ErrStream, without a crash
// in the C decoder.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, tone(24000, 3000), 24000, 32, true))
	f.Add(encode(f, tone(44100, 3000), 44100, 128, false))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data, 1)
		if err != nil && !errors.Is(err, ErrStream) {
			t.Fatalf("error not ErrStream: %v", err)
		}
		if len(d.Samples) > d.SampleRate {
			t.Fatalf("%d samples at %d Hz past 1 s", len(d.Samples), d.SampleRate)
		}
	})
}

// FuzzDecodeFrames: frames whose headers pass but whose side info and
// main data are garbage reach the C decoder; it decodes them or refuses
// them, without a crash. The fuzzed bytes are xored into the bodies of
// a valid stream's frames.
func FuzzDecodeFrames(f *testing.F) {
	const size = 64 * 72000 / 24000 // bytes per frame at 24 kHz, 64 kbps
	valid := encode(f, tone(24000, 6000), 24000, 64, false)
	f.Add([]byte{0xff, 0x12, 0x80})
	f.Fuzz(func(t *testing.T, noise []byte) {
		data := append([]byte{}, valid...)
		for i, b := range noise {
			p := i/(size-4)*size + 4 + i%(size-4)
			if p >= len(data) {
				break
			}
			data[p] ^= b
		}
		if _, err := Decode(data, 0); err != nil && !errors.Is(err, ErrStream) {
			t.Fatalf("error not ErrStream: %v", err)
		}
	})
}

// TestDecodeConcurrent: decoders in several goroutines decode alike
// (mpglib's shared tables made them differ before Decode was
// serialized), and an encoder beside them is not disturbed.
func TestDecodeConcurrent(t *testing.T) {
	data := encode(t, tone(24000, 24000), 24000, 64, true)
	want, err := Decode(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 5)
	go func() { // and an encoder beside them encodes as alone
		for range 5 {
			if !slices.Equal(encode(t, tone(24000, 24000), 24000, 64, true), data) {
				errs <- errors.New("an encoder beside decoders made other bytes")
				return
			}
		}
		errs <- nil
	}()
	for range 4 {
		go func() {
			for range 5 {
				d, err := Decode(data, 0)
				if err == nil && !slices.Equal(d.Samples, want.Samples) {
					err = errors.New("other samples than a lone decoder's")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 5 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
