// Package mp3lame is a small cgo binding to the LAME MP3 encoder
// (libmp3lame): mono 16-bit input, constant bitrate, output at the input's
// sample rate, and the encoder delay, end padding and Xing/LAME Info frame
// that exact-length decoding needs. It needs libmp3lame and its header
// (Debian: libmp3lame-dev) at build time.
package mp3lame

/*
#cgo LDFLAGS: -lmp3lame
#include <stdarg.h>
#include <stdlib.h>
#include <lame/lame.h>

// voxkit_lame_quiet swallows LAME's messages, which it would otherwise
// print to stderr.
static void voxkit_lame_quiet(const char *format, va_list ap) {
	(void)format;
	(void)ap;
}

static void voxkit_lame_silence(lame_global_flags *gfp) {
	lame_set_errorf(gfp, voxkit_lame_quiet);
	lame_set_debugf(gfp, voxkit_lame_quiet);
	lame_set_msgf(gfp, voxkit_lame_quiet);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Config sets up an Encoder.
type Config struct {
	// SampleRate is the input and output rate in hertz: 8000, 11025 or
	// 12000 (MPEG-2.5), 16000, 22050 or 24000 (MPEG-2), 32000, 44100 or
	// 48000 (MPEG-1). LAME never resamples here.
	SampleRate int
	// Kbps is the constant bitrate in kilobits per second; it must be one
	// of the Layer III bitrates of the rate's MPEG version (Bitrates).
	Kbps int
	// Quality is LAME's algorithm quality, 0 (best, slowest) to 9
	// (fastest), as lame's -q.
	Quality int
	// Tag makes LAME start the stream with a placeholder frame for the
	// Xing/LAME Info tag, which TagFrame returns after Flush. LAME leaves
	// the placeholder out when the tag (169 bytes for MPEG-2 and 2.5, 177
	// for MPEG-1) does not fit in one frame at Kbps, e.g. below 64 kbps at
	// 24 kHz.
	Tag bool
}

// ErrConfig is returned (wrapped) for a configuration LAME cannot encode.
var ErrConfig = errors.New("mp3lame: unsupported configuration")

// initMu serializes lame_init and lame_init_params, which fill some of
// libmp3lame's static tables on first use. Encoding needs no lock.
var initMu sync.Mutex

// handle owns the LAME state; it is freed by Close or, failing that, when
// the Encoder is garbage collected.
type handle struct {
	gfp *C.lame_global_flags
}

func (h *handle) free() {
	if h.gfp != nil {
		C.lame_close(h.gfp)
		h.gfp = nil
	}
}

// An Encoder is one LAME encoder. It is not safe for concurrent use.
type Encoder struct {
	h       *handle
	spf     int    // samples per frame
	buf     []byte // output scratch
	flushed bool
	delay   int
	padding int // known after Flush
	frames  int // as of the last Frames call
}

// blockSamples bounds the samples given to LAME per call, and so the
// output scratch buffer (LAME asks for 1.25·n + 7200 bytes).
const blockSamples = 8192

// New returns an encoder for c. Close frees it.
func New(c Config) (*Encoder, error) {
	version, ok := versionOf(c.SampleRate)
	if !ok {
		return nil, fmt.Errorf("%w: %d Hz", ErrConfig, c.SampleRate)
	}
	if !validKbps(version, c.Kbps) {
		return nil, fmt.Errorf("%w: %d kbps at %d Hz", ErrConfig, c.Kbps, c.SampleRate)
	}
	if c.Quality < 0 || c.Quality > 9 {
		return nil, fmt.Errorf("%w: quality %d", ErrConfig, c.Quality)
	}
	initMu.Lock()
	defer initMu.Unlock()
	gfp := C.lame_init()
	if gfp == nil {
		return nil, errors.New("mp3lame: lame_init failed")
	}
	h := &handle{gfp: gfp}
	C.voxkit_lame_silence(gfp)
	rc := C.lame_set_num_channels(gfp, 1) |
		C.lame_set_mode(gfp, C.MONO) |
		C.lame_set_in_samplerate(gfp, C.int(c.SampleRate)) |
		C.lame_set_out_samplerate(gfp, C.int(c.SampleRate)) |
		C.lame_set_VBR(gfp, C.vbr_off) |
		C.lame_set_brate(gfp, C.int(c.Kbps)) |
		C.lame_set_quality(gfp, C.int(c.Quality)) |
		C.lame_set_bWriteVbrTag(gfp, boolInt(c.Tag))
	C.lame_set_write_id3tag_automatic(gfp, 0)
	if rc != 0 || C.lame_init_params(gfp) < 0 {
		h.free()
		return nil, fmt.Errorf("%w: lame_init_params refused %d Hz at %d kbps", ErrConfig, c.SampleRate, c.Kbps)
	}
	// LAME picks the nearest rate and bitrate it can do; insist on the
	// ones asked for.
	if int(C.lame_get_out_samplerate(gfp)) != c.SampleRate || int(C.lame_get_brate(gfp)) != c.Kbps {
		got := fmt.Sprintf("%d Hz at %d kbps", C.lame_get_out_samplerate(gfp), C.lame_get_brate(gfp))
		h.free()
		return nil, fmt.Errorf("%w: asked for %d Hz at %d kbps, LAME would make %s", ErrConfig, c.SampleRate, c.Kbps, got)
	}
	e := &Encoder{h: h, spf: int(C.lame_get_framesize(gfp)), delay: int(C.lame_get_encoder_delay(gfp))}
	runtime.AddCleanup(e, func(h *handle) { h.free() }, h)
	return e, nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// errClosed is returned by an Encoder used after Close.
var errClosed = errors.New("mp3lame: encoder used after Close")

// Encode appends to dst the MP3 bytes that samples complete and returns
// the extended slice. LAME holds back about two frames of input, so the
// output runs behind the input; the bytes are the same however the input
// is divided between calls.
func (e *Encoder) Encode(dst []byte, samples []int16) ([]byte, error) {
	if e.h.gfp == nil || e.flushed {
		return dst, errClosed
	}
	for len(samples) > 0 {
		n := min(len(samples), blockSamples)
		need := n + n/4 + 7200
		if len(e.buf) < need {
			e.buf = make([]byte, need)
		}
		pcm := (*C.short)(unsafe.Pointer(&samples[0]))
		k := C.lame_encode_buffer(e.h.gfp, pcm, pcm, C.int(n),
			(*C.uchar)(unsafe.Pointer(&e.buf[0])), C.int(len(e.buf)))
		if k < 0 {
			return dst, fmt.Errorf("mp3lame: lame_encode_buffer: error %d", int(k))
		}
		dst = append(dst, e.buf[:k]...)
		samples = samples[n:]
	}
	runtime.KeepAlive(e)
	return dst, nil
}

// Flush encodes the held-back input, pads the last frame with silence and
// appends the remaining bytes to dst. The encoder takes no input after it.
func (e *Encoder) Flush(dst []byte) ([]byte, error) {
	if e.h.gfp == nil || e.flushed {
		return dst, errClosed
	}
	e.flushed = true
	// lame_encode_flush wants at least 7200 bytes; it encodes up to two
	// frames of padding through the same path as Encode.
	need := 2*blockSamples + 7200
	if len(e.buf) < need {
		e.buf = make([]byte, need)
	}
	k := C.lame_encode_flush(e.h.gfp, (*C.uchar)(unsafe.Pointer(&e.buf[0])), C.int(len(e.buf)))
	e.padding = int(C.lame_get_encoder_padding(e.h.gfp))
	runtime.KeepAlive(e)
	if k < 0 {
		return dst, fmt.Errorf("mp3lame: lame_encode_flush: error %d", int(k))
	}
	return append(dst, e.buf[:k]...), nil
}

// TagFrame returns the Xing/LAME Info frame that replaces the placeholder
// LAME put at the start of the stream: frame count, byte count, seek
// table, encoder delay and end padding. It is nil when Config.Tag was
// false or the tag did not fit. Call it after Flush.
func (e *Encoder) TagFrame() ([]byte, error) {
	if e.h.gfp == nil || !e.flushed {
		return nil, errors.New("mp3lame: TagFrame before Flush or after Close")
	}
	n := C.lame_get_lametag_frame(e.h.gfp, nil, 0)
	if n == 0 {
		return nil, nil
	}
	b := make([]byte, n)
	if got := C.lame_get_lametag_frame(e.h.gfp, (*C.uchar)(unsafe.Pointer(&b[0])), n); got != n {
		return nil, fmt.Errorf("mp3lame: lame_get_lametag_frame gave %d bytes, not %d", got, n)
	}
	runtime.KeepAlive(e)
	return b, nil
}

// Delay returns the encoder delay: the decoder's output, once it drops
// its own 529 samples, starts with this many samples of silence before
// the first input sample.
func (e *Encoder) Delay() int { return e.delay }

// Padding returns the samples of silence after the last input sample in
// the final frames, once Flush has run.
func (e *Encoder) Padding() int { return e.padding }

// Frames returns the number of frames encoded so far, not counting the
// Info tag placeholder.
func (e *Encoder) Frames() int {
	if e.h.gfp != nil {
		e.frames = int(C.lame_get_frameNum(e.h.gfp))
		runtime.KeepAlive(e)
	}
	return e.frames
}

// FrameSamples returns the samples per frame: 1152 for MPEG-1, 576 for
// MPEG-2 and 2.5.
func (e *Encoder) FrameSamples() int { return e.spf }

// Close frees the encoder. It may be called more than once; Delay,
// Padding, Frames and FrameSamples still answer after it.
func (e *Encoder) Close() {
	e.Frames()
	e.h.free()
}

// Version returns libmp3lame's version, e.g. "3.100".
func Version() string { return C.GoString(C.get_lame_version()) }

// versionOf returns the MPEG version of rate: 1 for MPEG-1, 2 for MPEG-2,
// 25 for MPEG-2.5.
func versionOf(rate int) (int, bool) {
	switch rate {
	case 32000, 44100, 48000:
		return 1, true
	case 16000, 22050, 24000:
		return 2, true
	case 8000, 11025, 12000:
		return 25, true
	}
	return 0, false
}

const maxKbpsV25 = 64

func validKbps(version, kbps int) bool { return slices.Contains(table(version), kbps) }

func table(version int) []int {
	switch version {
	case 1:
		return kbpsV1
	case 25:
		return kbpsV2[:slices.Index(kbpsV2, maxKbpsV25)+1]
	}
	return kbpsV2
}

// Bitrates returns the constant bitrates in kbps LAME encodes at rate, in
// the order of the frame header's bitrate index (the first is index 1),
// or nil for a rate MP3 does not have.
func Bitrates(rate int) []int {
	v, ok := versionOf(rate)
	if !ok {
		return nil
	}
	return slices.Clone(table(v))
}
