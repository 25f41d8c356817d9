package mp3lame

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrStream is returned (wrapped) for data that is not a whole MPEG-1, 2
// or 2.5 Layer III stream; the error says what is wrong.
var ErrStream = errors.New("mp3lame: not a decodable MP3 stream")

// CutError is the error of a stream that ends inside a frame, as an
// upload cut short does: Decode returns it with the samples of the frames
// before the cut. It is an ErrStream.
type CutError struct{ Have, Want int } // bytes of the last frame

func (e *CutError) Error() string {
	return fmt.Sprintf("%v: the stream ends inside a frame (%d of %d bytes)", ErrStream, e.Have, e.Want)
}

func (e *CutError) Unwrap() error { return ErrStream }

// Decoded is a decoded MP3 stream.
type Decoded struct {
	Samples    []float32 // mono (the mean of the channels), in [-1, 1)
	SampleRate int
	Channels   int // of the stream
}

// Layer III bitrates in kbps by bitrate index 1…14: MPEG-1, and MPEG-2
// and 2.5. LAME 3.100 takes MPEG-2.5 only up to 64 kbps.
var (
	kbpsV1 = []int{32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	kbpsV2 = []int{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
)

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
// frame's header, skipping tags around them. A stream that ends inside a
// frame is a *CutError, returned with the whole frames before it.
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
			return frames, first, &CutError{Have: len(b), Want: h.size}
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
