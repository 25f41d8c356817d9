// Package recording decodes an uploaded recording to mono samples at the
// file's own rate: what a voice is cloned from. It reads
//
//   - WAV (PCM of 8 to 32 bits, or float), as package wavfile reads it;
//   - FLAC of any depth, rate and channels;
//   - MP3 (MPEG-1, 2 and 2.5 Layer III, constant or variable bitrate),
//     with LAME's decoder; an Info tag's encoder delay and padding are
//     trimmed;
//   - Opus in Ogg (what Firefox's MediaRecorder makes) or in WebM
//     (Chromium's), decoded at 48 kHz with libopus; the pre-skip, output
//     gain and end trimming of the container are honoured.
//
// The format is told from the data's first bytes, never from a file name
// or MIME type; an ID3v2 tag before MP3 or FLAC is looked past. Channels
// are mixed down to their mean. Other formats, such as the MP4/AAC that
// Safari records, are an ErrFormat whose message names what is read.
//
// A recording that ends inside a frame, as an interrupted upload does,
// decodes up to its last whole frame when that leaves at least
// minCutSeconds; shorter, it is an ErrFormat saying where it ends.
// MP3 and Opus need the C decoders: in a build without cgo (where the
// server package builds too) they are an ErrFormat saying so.
package recording

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/internal/codec/mp3lame"
	"github.com/voxkit/voxkit/internal/codec/wavfile"
)

// Formats names the formats Decode reads, for messages to users.
const Formats = "WAV, FLAC, MP3, Ogg Opus or WebM Opus"

// ErrFormat is returned (wrapped) for data that is not a recording this
// package decodes, or a damaged one; the error says what is wrong.
var ErrFormat = errors.New("recording: unsupported or damaged recording")

// cutError is the error of a recording that ends inside a frame or an
// element (an upload cut short), returned with the audio before the cut.
type cutError struct{ error }

func (e cutError) Unwrap() error { return e.error }

// minCutSeconds is the least audio a recording cut short must keep to be
// decoded: what a clone needs at least.
const minCutSeconds = 1

// MinRate and MaxRate bound the sample rates decoded: a rate below
// telephone speech's 8 kHz (1 Hz, 7,999 Hz) keeps nothing of a voice and
// is an ErrFormat; between them any rate is read, 44,101 Hz as well as
// 44,100 Hz.
const (
	MinRate = 8000
	MaxRate = 384000
)

// badRate is the ErrFormat of a recording at rate hertz, or nil.
func badRate(rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("%w: a rate of %d Hz (%d to %d Hz are read)", ErrFormat, rate, MinRate, MaxRate)
	}
	return nil
}

// Decode decodes the recording held in data, mixed down to mono (the mean
// of the channels), at its own rate (48 kHz for Opus). Only its first
// maxSeconds are decoded (maxSeconds <= 0 means all of it).
func Decode(data []byte, maxSeconds float64) (wavfile.Audio, error) {
	var (
		a   wavfile.Audio
		err error
	)
	afterID3 := mp3lame.SkipID3v2(data)
	switch {
	case bytes.HasPrefix(data, []byte("RIFF")):
		a, err = wavfile.Parse(data)
		if err != nil {
			err = fmt.Errorf("%w: %w", ErrFormat, err)
		}
	case bytes.HasPrefix(afterID3, []byte("fLaC")):
		a, err = decodeFLAC(afterID3, maxSeconds)
	case len(afterID3) >= 2 && afterID3[0] == 0xFF && afterID3[1]&0xE0 == 0xE0:
		a, err = decodeMP3(data, maxSeconds)
	case bytes.HasPrefix(data, []byte("OggS")):
		a, err = decodeOgg(data, maxSeconds)
	case bytes.HasPrefix(data, ebmlMagic):
		a, err = decodeWebM(data, maxSeconds)
	case len(data) >= 8 && string(data[4:8]) == "ftyp":
		err = fmt.Errorf("%w: an MP4 file (AAC, what Safari records) is not read", ErrFormat)
	default:
		err = fmt.Errorf("%w: the data starts with no header of these", ErrFormat)
	}
	var cut cutError
	if errors.As(err, &cut) && a.SampleRate > 0 && len(a.Samples) >= minCutSeconds*a.SampleRate {
		err = nil // what arrived before the cut is enough
	}
	if err != nil {
		return wavfile.Audio{}, err
	}
	if err := badRate(a.SampleRate); err != nil {
		return wavfile.Audio{}, err
	}
	if n := int(maxSeconds * float64(a.SampleRate)); maxSeconds > 0 && len(a.Samples) > n {
		a.Samples = a.Samples[:n]
	}
	return a, nil
}

// decodeMP3 decodes an MP3 stream's first maxSeconds (all when <= 0).
func decodeMP3(data []byte, maxSeconds float64) (wavfile.Audio, error) {
	d, err := mp3lame.Decode(data, maxSeconds)
	a := wavfile.Audio{Samples: d.Samples, SampleRate: d.SampleRate}
	var cut *mp3lame.CutError
	if errors.As(err, &cut) {
		return a, cutError{fmt.Errorf("%w: %w", ErrFormat, err)}
	}
	if err != nil {
		return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return a, nil
}
