// Package opusenc is a small cgo binding to libopus: the encoder, enough
// to make Ogg Opus, including the encoder's real lookahead (the pre-skip
// of RFC 7845), which gopkg.in/hraban/opus.v2 does not expose; and the
// decoder, enough to read recordings (a Decoder). It needs libopus
// (Debian: libopus-dev) and pkg-config at build time.
package opusenc

/*
#cgo pkg-config: opus
#include <opus.h>

static int voxkit_opus_set_int(OpusEncoder *st, int what, opus_int32 v) {
	switch (what) {
	case 0: return opus_encoder_ctl(st, OPUS_SET_BITRATE(v));
	case 1: return opus_encoder_ctl(st, OPUS_SET_COMPLEXITY(v));
	case 2: return opus_encoder_ctl(st, OPUS_SET_SIGNAL(v));
	}
	return OPUS_BAD_ARG;
}

static int voxkit_opus_lookahead(OpusEncoder *st, opus_int32 *v) {
	return opus_encoder_ctl(st, OPUS_GET_LOOKAHEAD(v));
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Applications, as in opus_encoder_init.
const (
	AppVoIP  = C.OPUS_APPLICATION_VOIP
	AppAudio = C.OPUS_APPLICATION_AUDIO
)

// SignalVoice biases the encoder towards speech (OPUS_SIGNAL_VOICE).
const SignalVoice = C.OPUS_SIGNAL_VOICE

// MaxPacket is the largest packet libopus produces for one frame.
const MaxPacket = 1275

// An Encoder is one mono libopus encoder. Its state lives in Go memory, so
// it needs no freeing. It is not safe for concurrent use.
type Encoder struct {
	mem  []byte // the OpusEncoder state
	rate int
}

// New returns a mono encoder at rate (8000, 12000, 16000, 24000 or 48000
// Hz) for the application app.
func New(rate, app int) (*Encoder, error) {
	size := int(C.opus_encoder_get_size(1))
	e := &Encoder{mem: make([]byte, size), rate: rate}
	if rc := C.opus_encoder_init(e.st(), C.opus_int32(rate), 1, C.int(app)); rc != C.OPUS_OK {
		return nil, errorf("init", rc)
	}
	return e, nil
}

func (e *Encoder) st() *C.OpusEncoder { return (*C.OpusEncoder)(unsafe.Pointer(&e.mem[0])) }

func (e *Encoder) set(what int, v int) error {
	if rc := C.voxkit_opus_set_int(e.st(), C.int(what), C.opus_int32(v)); rc != C.OPUS_OK {
		return errorf("ctl", rc)
	}
	return nil
}

// SetBitrate sets the target bitrate in bits per second.
func (e *Encoder) SetBitrate(bps int) error { return e.set(0, bps) }

// SetComplexity sets the computational complexity, 0 to 10.
func (e *Encoder) SetComplexity(c int) error { return e.set(1, c) }

// SetSignal hints the signal type, e.g. SignalVoice.
func (e *Encoder) SetSignal(s int) error { return e.set(2, s) }

// Lookahead returns the encoder's delay in samples at its own rate: the
// number of leading samples a decoder must drop.
func (e *Encoder) Lookahead() (int, error) {
	var v C.opus_int32
	if rc := C.voxkit_opus_lookahead(e.st(), &v); rc != C.OPUS_OK {
		return 0, errorf("lookahead", rc)
	}
	return int(v), nil
}

// Encode encodes one frame (2.5, 5, 10, 20, 40 or 60 ms of samples) into
// out, which should hold MaxPacket bytes, and returns the packet length.
func (e *Encoder) Encode(pcm []int16, out []byte) (int, error) {
	if len(pcm) == 0 || len(out) == 0 {
		return 0, fmt.Errorf("opusenc: empty frame or buffer")
	}
	n := C.opus_encode(e.st(), (*C.opus_int16)(unsafe.Pointer(&pcm[0])), C.int(len(pcm)),
		(*C.uchar)(unsafe.Pointer(&out[0])), C.opus_int32(len(out)))
	if n < 0 {
		return 0, errorf("encode", n)
	}
	return int(n), nil
}

// Version returns the libopus version string.
func Version() string { return C.GoString(C.opus_get_version_string()) }

func errorf(op string, rc C.int) error {
	return fmt.Errorf("opusenc: %s: %s", op, C.GoString(C.opus_strerror(rc)))
}
