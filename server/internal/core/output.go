package core

import (
	"io"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
)

// Output is audio as a door's API names it (ElevenLabs'
// output_format, Cartesia's): one of voxkit's formats, its samples
// possibly re-encoded on the way out (G.711, 32-bit float) and then
// preceded by a WAV header.
type Output struct {
	Format encode.Format
	// convert re-encodes the pcm of format for the client; nil sends
	// format's bytes as they are.
	convert func(io.Writer) *encode.SampleWriter
	// header is written before the first re-encoded bytes (a WAV header).
	header      []byte
	ContentType string // set when it differs from format's codec's
}

// Companded is f (pcm at its rate) companded to G.711 with compand, in a
// WAV header of the tag when wav says so.
func (f Output) Companded(compand func(int16) byte, tag uint16, wav bool) Output {
	f.Format.Name = "pcm"
	f.convert = func(w io.Writer) *encode.SampleWriter { return encode.NewG711Writer(w, compand) }
	f.ContentType = map[uint16]string{encode.WAVMuLaw: "audio/basic", encode.WAVALaw: "audio/x-alaw-basic"}[tag]
	if wav {
		f.header, f.ContentType = encode.WAVHeader(tag, f.Format.SampleRate, 8, 0xFFFFFFFF), "audio/wav"
	}
	return f
}

// Float32 is f (pcm at its rate) as 32-bit floats, in a WAV header when
// wav says so.
func (f Output) Float32(wav bool) Output {
	f.Format.Name = "pcm"
	f.convert = encode.NewFloat32Writer
	f.ContentType = "audio/pcm"
	if wav {
		f.header, f.ContentType = encode.WAVHeader(encode.WAVFloat, f.Format.SampleRate, 32, 0xFFFFFFFF), "audio/wav"
	}
	return f
}

// Writer wraps w so that it receives the format's bytes.
func (f Output) Writer(w io.Writer) io.Writer {
	if f.convert == nil {
		return w
	}
	if f.header != nil {
		w = &headedWriter{w: w, header: f.header}
	}
	return f.convert(w)
}

// headedWriter writes a header before the first bytes written to it, so
// that nothing is written (an HTTP answer can still be an error) until
// audio is.
type headedWriter struct {
	w      io.Writer
	header []byte
}

func (h *headedWriter) Write(p []byte) (int, error) {
	if h.header != nil {
		if _, err := h.w.Write(h.header); err != nil {
			return 0, err
		}
		h.header = nil
	}
	return h.w.Write(p)
}

// Flush flushes the underlying writer when it can.
func (h *headedWriter) Flush() error { return encode.Flush(h.w) }

// Normalizer returns how the request's voice reads a piece of its
// input, or nil when normalization is off: what an aligner of the
// normalized text needs.
func (c *Core) Normalizer(req tts.Request) func(string) (normalize.Text, bool) {
	if req.Normalize == tts.NormalizeOff {
		return nil
	}
	return func(piece string) (normalize.Text, bool) {
		t, err := c.Synth.NormalizeText(req.Account, req.Voice, piece)
		return t, err == nil
	}
}

// Buffer collects audio between a socket's messages.
type Buffer struct{ b []byte }

func (b *Buffer) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}

// Take returns what was written since the last Take.
func (b *Buffer) Take() []byte {
	out := b.b
	b.b = nil
	return out
}
