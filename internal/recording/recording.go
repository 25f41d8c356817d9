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
// MP3 and Opus need the C decoders: in a build without cgo (where the
// server package builds too) they are an ErrFormat saying so.
package recording

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/internal/mp3lame"
	"github.com/voxkit/voxkit/internal/wavfile"
)

// Formats names the formats Decode reads, for messages to users.
const Formats = "WAV, FLAC, MP3, Ogg Opus or WebM Opus"

// ErrFormat is returned (wrapped) for data that is not a recording this
// package decodes, or a damaged one; the error says what is wrong.
var ErrFormat = errors.New("recording: unsupported or damaged recording")

// maxRate is the highest sample rate decoded.
const maxRate = 384000

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
	if err != nil {
		return wavfile.Audio{}, err
	}
	if a.SampleRate <= 0 || a.SampleRate > maxRate {
		return wavfile.Audio{}, fmt.Errorf("%w: a rate of %d Hz", ErrFormat, a.SampleRate)
	}
	if n := int(maxSeconds * float64(a.SampleRate)); maxSeconds > 0 && len(a.Samples) > n {
		a.Samples = a.Samples[:n]
	}
	return a, nil
}

// decodeMP3 decodes an MP3 stream's first maxSeconds (all when <= 0).
func decodeMP3(data []byte, maxSeconds float64) (wavfile.Audio, error) {
	d, err := mp3lame.Decode(data, maxSeconds)
	if err != nil {
		return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return wavfile.Audio{Samples: d.Samples, SampleRate: d.SampleRate}, nil
}
