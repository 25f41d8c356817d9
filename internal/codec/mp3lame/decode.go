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
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

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

// Decode decodes the MP3 stream in data with LAME's decoder, mixed down
// to mono: an ID3v2 tag before it and an ID3v1 or APE tag after it are
// skipped. When a Xing/LAME Info frame states the encoder delay and
// padding, those are trimmed, so the output has the encoder's input
// length. At most maxSeconds are decoded (all when <= 0).
//
// The frames are found and checked here, in Go, before any byte reaches
// the C decoder: every frame must be a Layer III frame with the first
// frame's version, rate and channel count. What does not pass is an
// ErrStream. A stream that ends inside a frame decodes up to that frame
// (without the Info tag's padding, which belongs to the missing end) and
// returns a *CutError with the samples, unless maxSeconds came first.
func Decode(data []byte, maxSeconds float64) (Decoded, error) {
	frames, h, err := splitFrames(data)
	var cut *CutError
	if err != nil && !errors.As(err, &cut) {
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
	if cut != nil {
		return d, cut
	}
	if end := int(padding) - decoderDelay; skip > 0 && end > 0 {
		d.Samples = d.Samples[:max(0, len(d.Samples)-end)]
	}
	return d, nil
}
