package encode

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// DefaultSampleRate is the sample rate used when Format.SampleRate is 0:
// 24 kHz, the rate OpenAI-compatible clients assume for raw pcm.
const DefaultSampleRate = 24000

// Format is an audio format and its parameters. The zero value of every
// field other than Name means that field's default.
type Format struct {
	// Name is the codec: "wav", "mp3", "pcm", "opus" or "flac"; empty
	// means "wav".
	Name string
	// SampleRate is in hertz; 0 means DefaultSampleRate.
	SampleRate int
	// Bitrate is in bits per second for lossy codecs; 0 means the codec's
	// default. Lossless codecs ignore it.
	Bitrate int
	// Level is the encoder's effort, trading speed for size or quality;
	// 0 means the codec's default. flac takes 1 to 8 (default 5), opus 1
	// to 10 (its complexity, default 3), mp3 1 to 10 (10 minus LAME's
	// -q, default 5); other codecs ignore it.
	Level int
	// Streaming says the output is consumed while it is written, so the
	// encoder must not hold audio back to learn its total length. A
	// streaming wav header carries the size 0xFFFFFFFF; a complete wav
	// carries exact sizes.
	//
	// A complete clip (Streaming false) of wav, mp3 or flac needs its
	// length in its header. When the writer is also an io.WriterAt, whose
	// offset 0 is the encoder's first byte (a new file, say; see WriterAt),
	// the encoder writes the audio through and rewrites the header at Close;
	// otherwise it holds the encoded clip in memory until Close.
	Streaming bool
	// Comments are Vorbis comments ("NAME=value", as CHAPTER001=00:00:00.000
	// and CHAPTER001NAME=Title mark chapters) that an Ogg Opus file carries
	// in its OpusTags and a FLAC file in a VORBIS_COMMENT block; other
	// codecs ignore them.
	Comments []string
}

// WriterAt returns w as an io.WriterAt when f is a complete clip
// (Streaming false) and w takes one, else nil. An encoder whose header
// holds the clip's length writes the clip through to it and rewrites the
// header at Close instead of holding the clip.
//
// A writer that is also an io.Seeker (an *os.File) is taken only when it
// stands at offset 0 and takes WriteAt there: a pipe (a program's standard
// output piped on), a file opened with O_APPEND or one that holds bytes
// before the clip gets the clip held and written in order instead.
func WriterAt(w io.Writer, f Format) io.WriterAt {
	at, ok := w.(io.WriterAt)
	if !ok || f.Streaming {
		return nil
	}
	if s, ok := w.(io.Seeker); ok {
		if off, err := s.Seek(0, io.SeekCurrent); err != nil || off != 0 {
			return nil
		}
		if _, err := at.WriteAt(nil, 0); err != nil {
			return nil // O_APPEND
		}
	}
	return at
}

// The built-in formats with default parameters.
var (
	WAV  = Format{Name: "wav"}
	MP3  = Format{Name: "mp3"}
	PCM  = Format{Name: "pcm"}
	Opus = Format{Name: "opus"}
	FLAC = Format{Name: "flac"}
)

// Rate returns the sample rate, DefaultSampleRate when SampleRate is 0.
func (f Format) Rate() int {
	if f.SampleRate == 0 {
		return DefaultSampleRate
	}
	return f.SampleRate
}

// Encoder writes mono 16-bit samples at the format's sample rate.
type Encoder interface {
	// Encode writes samples. Any block size is allowed; the output does
	// not depend on how the samples are divided between calls.
	Encode(samples []int16) error
	// Close writes what remains (last frame, trailer) and does not close
	// the underlying writer. An encoder must not be used after Close.
	Close() error
}

// Codec describes one registered format.
type Codec struct {
	// Name is the Format.Name it serves, e.g. "mp3".
	Name string
	// ContentType is the HTTP media type, e.g. "audio/mpeg".
	ContentType string
	// Extension is the usual file extension without the dot.
	Extension string
	// SampleRates lists the rates the codec accepts; nil means any.
	SampleRates []int
	// NewEncoder returns an encoder writing f to w. f.SampleRate is
	// already resolved to a concrete rate from SampleRates.
	NewEncoder func(w io.Writer, f Format) (Encoder, error)
}

// ErrUnknownFormat is returned (wrapped) for a format name that is not
// registered.
var ErrUnknownFormat = errors.New("encode: unknown format")

// ErrUnsupportedRate is returned (wrapped) for a sample rate a codec cannot
// encode.
var ErrUnsupportedRate = errors.New("encode: unsupported sample rate")

// A Registry maps format names to codecs. The zero value is an empty
// registry ready to use. It is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	codecs map[string]Codec
}

// Register adds c. It panics if c has no name or constructor, or if the
// name is already registered, like sql.Register.
func (r *Registry) Register(c Codec) {
	if c.Name == "" || c.NewEncoder == nil {
		panic("encode: Register of a codec without name or NewEncoder")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.codecs[c.Name]; dup {
		panic("encode: Register called twice for " + c.Name)
	}
	if r.codecs == nil {
		r.codecs = make(map[string]Codec)
	}
	r.codecs[c.Name] = c
}

// Lookup returns the codec registered under name ("" means "wav").
func (r *Registry) Lookup(name string) (Codec, error) {
	if name == "" {
		name = WAV.Name
	}
	r.mu.RLock()
	c, ok := r.codecs[name]
	r.mu.RUnlock()
	if !ok {
		if name == "mp3" || name == "opus" {
			return Codec{}, fmt.Errorf("%w %q (import github.com/voxkit/voxkit/encode/%s to register it)", ErrUnknownFormat, name, name)
		}
		return Codec{}, fmt.Errorf("%w %q", ErrUnknownFormat, name)
	}
	return c, nil
}

// Names returns the registered format names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.codecs))
	for n := range r.codecs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Check reports whether f can be encoded: its name is registered and the
// codec accepts its sample rate.
func (r *Registry) Check(f Format) error {
	c, err := r.Lookup(f.Name)
	if err != nil {
		return err
	}
	return c.checkRate(f.Rate())
}

// NewEncoder returns an encoder writing f to w.
func (r *Registry) NewEncoder(w io.Writer, f Format) (Encoder, error) {
	c, err := r.Lookup(f.Name)
	if err != nil {
		return nil, err
	}
	f.SampleRate = f.Rate()
	if err := c.checkRate(f.SampleRate); err != nil {
		return nil, err
	}
	return c.NewEncoder(w, f)
}

func (c Codec) checkRate(rate int) error {
	if c.SampleRates != nil && !slices.Contains(c.SampleRates, rate) {
		return fmt.Errorf("%w: %s takes %v Hz, not %d", ErrUnsupportedRate, c.Name, c.SampleRates, rate)
	}
	if rate < 1000 || rate > 192000 {
		return fmt.Errorf("%w: %d Hz", ErrUnsupportedRate, rate)
	}
	return nil
}

// DefaultRegistry holds the built-in formats (wav, pcm, flac) and those
// registered by imported codec packages (encode/mp3, encode/opus). The
// package-level functions use it.
var DefaultRegistry = NewBuiltinRegistry()

// NewBuiltinRegistry returns a new registry holding the built-in formats
// (wav, pcm, flac), for callers that want one of their own to extend.
func NewBuiltinRegistry() *Registry {
	r := new(Registry)
	r.Register(Codec{Name: "wav", ContentType: "audio/wav", Extension: "wav", NewEncoder: newWAVEncoder})
	r.Register(Codec{Name: "pcm", ContentType: "audio/pcm", Extension: "pcm", NewEncoder: newPCMEncoder})
	r.Register(Codec{Name: "flac", ContentType: "audio/flac", Extension: "flac", SampleRates: flacRates, NewEncoder: newFLACEncoder})
	return r
}

// Register adds c to DefaultRegistry.
func Register(c Codec) { DefaultRegistry.Register(c) }

// Lookup returns the codec registered under name in DefaultRegistry.
func Lookup(name string) (Codec, error) { return DefaultRegistry.Lookup(name) }

// NewEncoder returns an encoder from DefaultRegistry writing f to w.
func NewEncoder(w io.Writer, f Format) (Encoder, error) { return DefaultRegistry.NewEncoder(w, f) }
