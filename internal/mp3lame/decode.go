package mp3lame

/*
#include <stdarg.h>
#include <lame/lame.h>

static void voxkit_hip_quiet(const char *format, va_list ap) {
	(void)format;
	(void)ap;
}

static void voxkit_hip_silence(hip_t hip) {
	hip_set_errorf(hip, voxkit_hip_quiet);
	hip_set_debugf(hip, voxkit_hip_quiet);
	hip_set_msgf(hip, voxkit_hip_quiet);
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// ErrStream is returned (wrapped) for data that is not a whole MPEG-1, 2
// or 2.5 Layer III stream; the error says what is wrong.
var ErrStream = errors.New("mp3lame: not a decodable MP3 stream")

// decoderDelay is the delay of LAME's decoder (mpglib) in samples: with
// an Info tag's encoder delay it is what gapless decoding drops.
const decoderDelay = 529

// frameOut is room for one frame's samples per channel from
// hip_decode1_headersB: at most 1152, with a margin.
const frameOut = 2 * 1152

// decodeMu serializes decoding: mpglib, LAME's decoder, keeps state in
// static tables that hip_decode_init rebuilds and decoders share (two
// decoders in step gave other samples than one alone, measured).
var decodeMu sync.Mutex

// Decoded is a decoded MP3 stream.
type Decoded struct {
	Samples    []float32 // mono (the mean of the channels), in [-1, 1)
	SampleRate int
	Channels   int // of the stream
}

// Decode decodes the MP3 stream in data with LAME's decoder, mixed down
// to mono: an ID3v2 tag before it and an ID3v1 or APE tag after it are
// skipped. When a Xing/LAME Info frame states the encoder delay and
// padding, those are trimmed, so the output has the encoder's input
// length. At most maxSeconds are decoded (all when <= 0).
//
// The frames are found and checked here, in Go, before any byte reaches
// the C decoder: every frame must be a Layer III frame with the first
// frame's version, rate and channel count, and the stream may not end
// inside a frame. What does not pass is an ErrStream.
func Decode(data []byte, maxSeconds float64) (Decoded, error) {
	frames, h, err := splitFrames(data)
	if err != nil {
		return Decoded{}, err
	}
	d := Decoded{SampleRate: h.rate, Channels: h.channels}
	limit := -1
	if maxSeconds > 0 {
		limit = int(maxSeconds * float64(h.rate))
	}
	decodeMu.Lock()
	defer decodeMu.Unlock()
	initMu.Lock() // as lame_init, it fills static tables
	hip := C.hip_decode_init()
	initMu.Unlock()
	if hip == nil {
		return Decoded{}, errors.New("mp3lame: hip_decode_init failed")
	}
	defer C.hip_decode_exit(hip)
	C.voxkit_hip_silence(hip)

	var (
		left, right    [frameOut]C.short
		info           C.mp3data_struct
		delay, padding C.int
		skip, decoded  int
		scale          = float32(1) / 32768 / float32(h.channels)
	)
	delay, padding = -1, -1 // until an Info tag says
	for _, f := range frames {
		// Each frame goes in alone; then whatever it completes comes out,
		// one frame per call, until the decoder needs more.
		in, n := (*C.uchar)(unsafe.Pointer(&f[0])), C.size_t(len(f))
		for {
			k := int(C.hip_decode1_headersB(hip, in, n, &left[0], &right[0], &info, &delay, &padding))
			in, n = nil, 0
			if k < 0 {
				return Decoded{}, fmt.Errorf("%w: the decoder refused a frame", ErrStream)
			}
			if k == 0 {
				break
			}
			if decoded == 0 && delay >= 0 {
				// The Info tag, if any, was the first frame.
				skip = int(delay) + decoderDelay
			}
			if k > frameOut {
				return Decoded{}, fmt.Errorf("%w: a frame of %d samples", ErrStream, k)
			}
			for i := range k {
				if decoded++; decoded <= skip {
					continue
				}
				s := float32(left[i])
				if h.channels == 2 {
					s += float32(right[i])
				}
				d.Samples = append(d.Samples, s*scale)
			}
			if limit >= 0 && len(d.Samples) >= limit {
				d.Samples = d.Samples[:limit]
				return d, nil
			}
		}
	}
	if end := int(padding) - decoderDelay; skip > 0 && end > 0 {
		d.Samples = d.Samples[:max(0, len(d.Samples)-end)]
	}
	return d, nil
}

// header is what a Layer III frame header says.
type header struct {
	version  int // 1, 2 or 25 (MPEG-2.5)
	rate     int
	channels int
	size     int // bytes, header included
}

// Sample rates by version and rate index.
var rates = map[int][3]int{1: {44100, 48000, 32000}, 2: {22050, 24000, 16000}, 25: {11025, 12000, 8000}}

// parseHeader reads the frame header at the start of b.
func parseHeader(b []byte) (header, bool) {
	if len(b) < 4 {
		return header{}, false
	}
	v := binary.BigEndian.Uint32(b)
	if v>>21 != 0x7ff || v>>17&3 != 1 { // sync, Layer III
		return header{}, false
	}
	var h header
	switch v >> 19 & 3 {
	case 3:
		h.version = 1
	case 2:
		h.version = 2
	case 0:
		h.version = 25
	default:
		return header{}, false
	}
	bi, ri := int(v>>12&15), int(v>>10&3)
	if bi == 0 || bi == 15 || ri == 3 { // free format, bad, reserved
		return header{}, false
	}
	h.rate = rates[h.version][ri]
	kbps := kbpsV2[bi-1]
	perFrame := 72000 // bytes per kbps·Hz⁻¹ of a 576-sample frame
	if h.version == 1 {
		kbps, perFrame = kbpsV1[bi-1], 144000
	}
	h.size = perFrame*kbps/h.rate + int(v>>9&1)
	h.channels = 2
	if v>>6&3 == 3 {
		h.channels = 1
	}
	return h, true
}

// splitFrames returns the frames of the stream in data and the first
// frame's header, skipping tags around them.
func splitFrames(data []byte) ([][]byte, header, error) {
	b := SkipID3v2(data)
	first, ok := parseHeader(b)
	if !ok {
		return nil, header{}, fmt.Errorf("%w: no Layer III frame header at byte %d", ErrStream, len(data)-len(b))
	}
	var frames [][]byte
	for len(b) > 0 {
		h, ok := parseHeader(b)
		if !ok {
			if isTrailingTag(b) {
				break
			}
			return nil, header{}, fmt.Errorf("%w: no frame header at byte %d", ErrStream, len(data)-len(b))
		}
		if h.version != first.version || h.rate != first.rate || h.channels != first.channels {
			return nil, header{}, fmt.Errorf("%w: a frame at byte %d changes the rate or channels", ErrStream, len(data)-len(b))
		}
		if h.size > len(b) {
			return nil, header{}, fmt.Errorf("%w: the stream ends inside a frame (%d of %d bytes)", ErrStream, len(b), h.size)
		}
		frames = append(frames, b[:h.size])
		b = b[h.size:]
	}
	return frames, first, nil
}

// SkipID3v2 returns data after the ID3v2 tag it starts with (any stream
// may carry one: MP3, FLAC), or data itself when it starts with none.
func SkipID3v2(data []byte) []byte {
	if len(data) < 10 || string(data[:3]) != "ID3" {
		return data
	}
	size := 10
	for i, c := range data[6:10] {
		size += int(c&0x7f) << (7 * (3 - i)) // syncsafe
	}
	if data[5]&0x10 != 0 { // footer
		size += 10
	}
	return data[min(size, len(data)):]
}

// isTrailingTag reports whether b starts with a tag that may follow the
// last frame: ID3v1, APE or Lyrics3.
func isTrailingTag(b []byte) bool {
	for _, tag := range []string{"TAG", "APETAGEX", "LYRICS"} {
		if len(b) >= len(tag) && string(b[:len(tag)]) == tag {
			return true
		}
	}
	return false
}
