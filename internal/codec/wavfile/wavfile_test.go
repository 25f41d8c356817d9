package wavfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// wav builds a WAV file of format (1 PCM, 3 float, or extensible with that
// subformat when ext), channels, rate and bits holding data.
func wav(format uint16, ext bool, channels, rate, bits int, data []byte) []byte {
	var fmtChunk []byte
	tag := format
	if ext {
		tag = 0xFFFE
	}
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, tag)
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, uint16(channels))
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, uint32(rate))
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, uint32(rate*channels*bits/8))
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, uint16(channels*bits/8))
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, uint16(bits))
	if ext {
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 22)
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, uint16(bits))
		fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, 0)
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, format)
		fmtChunk = append(fmtChunk, make([]byte, 14)...)
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(fmtChunk)+8+3+8+len(data)))
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	binary.Write(&b, binary.LittleEndian, uint32(len(fmtChunk)))
	b.Write(fmtChunk)
	b.WriteString("LIST") // an odd-sized chunk to skip, with its pad byte
	binary.Write(&b, binary.LittleEndian, uint32(3))
	b.Write([]byte{1, 2, 3, 0})
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

func TestParse(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		name     string
		file     []byte
		want     []float32
		wantRate int
	}{
		{"pcm16 mono", wav(1, false, 1, 24000, 16, le.AppendUint16(le.AppendUint16(nil, 16384), 0x8000)), []float32{0.5, -1}, 24000},
		{"pcm16 stereo", wav(1, false, 2, 44100, 16, le.AppendUint16(le.AppendUint16(nil, 16384), 0)), []float32{0.25}, 44100},
		{"pcm8", wav(1, false, 1, 8000, 8, []byte{128, 192}), []float32{0, 0.5}, 8000},
		{"pcm24", wav(1, false, 1, 48000, 24, []byte{0, 0, 0x40, 0, 0, 0xC0}), []float32{0.5, -0.5}, 48000},
		{"pcm32 extensible", wav(1, true, 1, 16000, 32, le.AppendUint32(nil, 1<<30)), []float32{0.5}, 16000},
		{"float32", wav(3, false, 1, 22050, 32, le.AppendUint32(nil, math.Float32bits(0.25))), []float32{0.25}, 22050},
		{"float64 clipped", wav(3, false, 1, 22050, 64, le.AppendUint64(nil, math.Float64bits(3))), []float32{1}, 22050},
	}
	for _, tc := range tests {
		a, err := Parse(tc.file)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if a.SampleRate != tc.wantRate || len(a.Samples) != len(tc.want) {
			t.Errorf("%s: %d samples at %d Hz", tc.name, len(a.Samples), a.SampleRate)
			continue
		}
		for i := range tc.want {
			if math.Abs(float64(a.Samples[i]-tc.want[i])) > 1e-6 {
				t.Errorf("%s: sample %d = %v, want %v", tc.name, i, a.Samples[i], tc.want[i])
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	good := wav(1, false, 1, 24000, 16, make([]byte, 100))
	for name, file := range map[string][]byte{
		"empty":         nil,
		"not riff":      []byte("OggS and so on, not a wav file"),
		"alaw":          wav(6, false, 1, 8000, 8, make([]byte, 10)),
		"12 bits":       wav(1, false, 1, 8000, 12, make([]byte, 10)),
		"no channels":   wav(1, false, 0, 8000, 16, make([]byte, 10)),
		"no data":       good[:12+8+16],
		"chunk overrun": append(append([]byte{}, good[:12]...), []byte("fmt \xff\x00\x00\x00")...),
	} {
		if _, err := Parse(file); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
	if _, err := Decode(bytes.NewReader(good), 50); !errors.Is(err, ErrFormat) {
		t.Errorf("over the limit: %v", err)
	}
	if a, err := Decode(bytes.NewReader(good), int64(len(good))); err != nil || len(a.Samples) != 50 {
		t.Errorf("at the limit: %d samples, %v", len(a.Samples), err)
	}
}

// FuzzParse: any bytes decode or fail with ErrFormat, never panic.
func FuzzParse(f *testing.F) {
	f.Add(wav(1, false, 1, 24000, 16, make([]byte, 8)))
	f.Add(wav(3, true, 2, 48000, 32, make([]byte, 16)))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEdata\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b)
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error %v is not ErrFormat", err)
		}
		for _, s := range a.Samples {
			if s != s || s < -1 || s > 1 {
				t.Fatalf("sample %v", s)
			}
		}
	})
}
