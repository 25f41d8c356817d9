// Package wavfile decodes WAV (RIFF WAVE) audio: PCM of 8, 16, 24 or 32
// bits and IEEE float of 32 or 64 bits, plain or WAVE_FORMAT_EXTENSIBLE,
// any rate and channel count, mixed down to mono.
package wavfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrFormat is returned (wrapped) for data that is not WAV audio this
// package decodes; the error says what is wrong.
var ErrFormat = errors.New("wavfile: not a supported WAV file")

// Audio is decoded mono audio.
type Audio struct {
	Samples    []float32 // in [-1, 1]
	SampleRate int
}

// Decode reads a WAV file from r and returns its audio mixed to mono
// (the mean of the channels). It reads at most limit bytes of r; more
// fails (limit <= 0 means no limit).
func Decode(r io.Reader, limit int64) (Audio, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return Audio{}, fmt.Errorf("wavfile: %w", err)
	}
	if limit > 0 && int64(len(data)) > limit {
		return Audio{}, fmt.Errorf("%w: longer than %d bytes", ErrFormat, limit)
	}
	return Parse(data)
}

// Parse decodes a whole WAV file held in data, as Decode does.
func Parse(data []byte) (Audio, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return Audio{}, fmt.Errorf("%w: no RIFF WAVE header", ErrFormat)
	}
	var (
		format, channels, bits uint16
		rate                   uint32
		haveFmt                bool
	)
	for p := 12; p+8 <= len(data); {
		id := string(data[p : p+4])
		size := int(binary.LittleEndian.Uint32(data[p+4 : p+8]))
		body := data[p+8:]
		if size < 0 || size > len(body) {
			if id != "data" {
				return Audio{}, fmt.Errorf("%w: chunk %q runs past the end", ErrFormat, id)
			}
			size = len(body) // a streamed file's data size is often wrong
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return Audio{}, fmt.Errorf("%w: fmt chunk of %d bytes", ErrFormat, size)
			}
			format = binary.LittleEndian.Uint16(body[0:2])
			channels = binary.LittleEndian.Uint16(body[2:4])
			rate = binary.LittleEndian.Uint32(body[4:8])
			bits = binary.LittleEndian.Uint16(body[14:16])
			if format == 0xFFFE && size >= 26 {
				format = binary.LittleEndian.Uint16(body[24:26]) // the subformat GUID's first two bytes
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return Audio{}, fmt.Errorf("%w: data before fmt", ErrFormat)
			}
			return decodeData(body, format, channels, bits, rate)
		}
		p += 8 + size + size%2
	}
	return Audio{}, fmt.Errorf("%w: no data chunk", ErrFormat)
}

func decodeData(body []byte, format, channels, bits uint16, rate uint32) (Audio, error) {
	if channels == 0 || rate == 0 || rate > 1<<20 {
		return Audio{}, fmt.Errorf("%w: %d channels at %d Hz", ErrFormat, channels, rate)
	}
	var sample func([]byte) float64
	switch {
	case format == 1 && bits == 8:
		sample = func(b []byte) float64 { return (float64(b[0]) - 128) / 128 }
	case format == 1 && bits == 16:
		sample = func(b []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(b))) / 32768 }
	case format == 1 && bits == 24:
		sample = func(b []byte) float64 {
			return float64(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) / (1 << 23)
		}
	case format == 1 && bits == 32:
		sample = func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31) }
	case format == 3 && bits == 32:
		sample = func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	case format == 3 && bits == 64:
		sample = func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	default:
		return Audio{}, fmt.Errorf("%w: format %d with %d bits per sample", ErrFormat, format, bits)
	}
	width := int(bits / 8)
	frame := width * int(channels)
	n := len(body) / frame
	out := make([]float32, n)
	for i := range n {
		var sum float64
		for c := range int(channels) {
			sum += sample(body[i*frame+c*width:])
		}
		v := sum / float64(channels)
		if math.IsNaN(v) {
			v = 0
		}
		out[i] = float32(max(-1, min(1, v)))
	}
	return Audio{Samples: out, SampleRate: int(rate)}, nil
}
