package opusenc

/*
#include <opus.h>

static int voxkit_opus_set_gain(OpusDecoder *st, opus_int32 v) {
	return opus_decoder_ctl(st, OPUS_SET_GAIN(v));
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// A Decoder is one libopus decoder with mono output at DecodeRate: a
// stereo stream is mixed down. Its state lives in Go memory, so it needs
// no freeing. It is not safe for concurrent use.
type Decoder struct {
	mem []byte // the OpusDecoder state
}

// NewDecoder returns a mono decoder that applies gain, in dB as Q7.8
// fixed point (the output gain of an Ogg Opus or Matroska header).
func NewDecoder(gain int) (*Decoder, error) {
	size := int(C.opus_decoder_get_size(1))
	d := &Decoder{mem: make([]byte, size)}
	if rc := C.opus_decoder_init(d.st(), DecodeRate, 1); rc != C.OPUS_OK {
		return nil, errorf("decoder init", rc)
	}
	if rc := C.voxkit_opus_set_gain(d.st(), C.opus_int32(gain)); rc != C.OPUS_OK {
		return nil, errorf("gain", rc)
	}
	return d, nil
}

func (d *Decoder) st() *C.OpusDecoder { return (*C.OpusDecoder)(unsafe.Pointer(&d.mem[0])) }

// Decode decodes one packet and appends its samples to dst. An empty
// packet is a lost one: libopus conceals it with one 20 ms frame.
func (d *Decoder) Decode(dst []float32, packet []byte) ([]float32, error) {
	var out [MaxFrame]float32
	var p *C.uchar
	if len(packet) > 0 {
		p = (*C.uchar)(unsafe.Pointer(&packet[0]))
	}
	frame := C.int(MaxFrame)
	if p == nil {
		frame = DecodeRate / 50
	}
	n := C.opus_decode_float(d.st(), p, C.opus_int32(len(packet)), (*C.float)(&out[0]), frame, 0)
	if n < 0 {
		return dst, fmt.Errorf("%w: %s", ErrPacket, C.GoString(C.opus_strerror(n)))
	}
	return append(dst, out[:n]...), nil
}
