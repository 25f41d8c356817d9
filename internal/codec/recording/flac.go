package recording

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"

	"github.com/voxkit/voxkit/internal/codec/wavfile"
)

// decodeFLAC decodes a FLAC stream's first maxSeconds (all when <= 0).
// A malformed stream the FLAC library panics on is an ErrFormat.
func decodeFLAC(data []byte, maxSeconds float64) (a wavfile.Audio, err error) {
	defer func() {
		if p := recover(); p != nil {
			a, err = wavfile.Audio{}, fmt.Errorf("%w: malformed FLAC (%v)", ErrFormat, p)
		}
	}()
	s, err := flac.New(bytes.NewReader(data))
	if err != nil {
		return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	rate := int(s.Info.SampleRate)
	if err := badRate(rate); err != nil {
		return wavfile.Audio{}, err
	}
	limit := -1
	if maxSeconds > 0 {
		limit = int(maxSeconds * float64(rate))
	}
	a.SampleRate = rate
	for limit < 0 || len(a.Samples) < limit {
		f, err := s.ParseNext()
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return a, cutError{fmt.Errorf("%w: a FLAC frame is cut short (%w)", ErrFormat, err)}
		}
		if err != nil {
			return wavfile.Audio{}, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		if len(f.Subframes) == 0 || int(f.SampleRate) != 0 && int(f.SampleRate) != rate {
			return wavfile.Audio{}, fmt.Errorf("%w: a frame of %d channels at %d Hz in a stream at %d Hz", ErrFormat, len(f.Subframes), f.SampleRate, rate)
		}
		bits := cmp.Or(f.BitsPerSample, s.Info.BitsPerSample) // 0: the stream's
		scale := 1 / float64(int64(1)<<(max(bits, 1)-1)) / float64(len(f.Subframes))
		for i := range f.Subframes[0].Samples {
			var sum float64
			for _, sub := range f.Subframes {
				if i < len(sub.Samples) {
					sum += float64(sub.Samples[i])
				}
			}
			a.Samples = append(a.Samples, float32(max(-1, min(1, sum*scale))))
		}
	}
	if limit >= 0 && len(a.Samples) > limit {
		a.Samples = a.Samples[:limit]
	}
	return a, nil
}
