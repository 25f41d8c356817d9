package server

import (
	"io"

	"github.com/voxkit/voxkit/encode"
)

// vendorFormat is audio as a vendor's API names it (ElevenLabs'
// output_format, Cartesia's): one of voxkit's formats, its samples
// possibly re-encoded on the way out (G.711, 32-bit float) and then
// preceded by a WAV header.
type vendorFormat struct {
	format encode.Format
	// convert re-encodes the pcm of format for the client; nil sends
	// format's bytes as they are.
	convert func(io.Writer) *encode.SampleWriter
	// header is written before the first re-encoded bytes (a WAV header).
	header      []byte
	contentType string // set when it differs from format's codec's
}

// companded is f (pcm at its rate) companded to G.711 with compand, in a
// WAV header of the tag when wav says so.
func (f vendorFormat) companded(compand func(int16) byte, tag uint16, wav bool) vendorFormat {
	f.format.Name = "pcm"
	f.convert = func(w io.Writer) *encode.SampleWriter { return encode.NewG711Writer(w, compand) }
	f.contentType = map[uint16]string{encode.WAVMuLaw: "audio/basic", encode.WAVALaw: "audio/x-alaw-basic"}[tag]
	if wav {
		f.header, f.contentType = encode.WAVHeader(tag, f.format.SampleRate, 8, 0xFFFFFFFF), "audio/wav"
	}
	return f
}

// float32 is f (pcm at its rate) as 32-bit floats, in a WAV header when
// wav says so.
func (f vendorFormat) float32(wav bool) vendorFormat {
	f.format.Name = "pcm"
	f.convert = encode.NewFloat32Writer
	f.contentType = "audio/pcm"
	if wav {
		f.header, f.contentType = encode.WAVHeader(encode.WAVFloat, f.format.SampleRate, 32, 0xFFFFFFFF), "audio/wav"
	}
	return f
}

// writer wraps w so that it receives the format's bytes.
func (f vendorFormat) writer(w io.Writer) io.Writer {
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
