package server

import (
	"io"
	"net/http"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// What the vendor-compatible APIs (ElevenLabs', Cartesia's) share: how a
// caller is admitted, how an HTTP speech answer runs, and their formats.

// admitVendor admits the caller of a vendor API with the scope need (a
// key of admin scope may do what one of speech scope may): by key, the
// vendor's own header's value, when there is one, else by the
// credentials the OpenAI API takes.
func (s *Server) admitVendor(r *http.Request, key string, need store.Scope) (string, *wire.Error) {
	c, werr := caller{}, (*wire.Error)(nil)
	if key != "" {
		var k store.Key
		k, werr = s.keys.check(r.Context(), key)
		c = caller{k.Account, k.Scope}
	} else {
		c, werr = s.admit(r)
	}
	if werr == nil && c.scope != store.ScopeAdmin && c.scope != need {
		werr = wire.InsufficientScope(c.scope, need)
	}
	if werr != nil {
		return "", werr
	}
	info(r.Context()).account = c.account
	return c.account, nil
}

// vendorSpeak prepares req for a vendor API's HTTP answer, admits it
// and runs speak. An error before anything is sent is returned, for the
// vendor to shape; one after cuts the response short.
func (s *Server) vendorSpeak(w http.ResponseWriter, r *http.Request, req tts.Request, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *wire.Error {
	ri := info(r.Context())
	p, err := s.synth.Prepare(req)
	if err != nil {
		return wire.ToError(err, req.Voice)
	}
	codec, err := s.synth.Codec(req.Format)
	if err != nil {
		return wire.ToError(err, req.Voice)
	}
	ri.format = req.Format.Name
	end, werr := s.admitSpeech(r.Context(), w, req.Account)
	if werr != nil {
		return werr
	}
	defer end()
	start := time.Now()
	res, err := speak(p, codec)
	if err != nil {
		werr := s.synthesisFailed(s.log.With("request_id", ri.id), req.Voice, err)
		if res.Audio == 0 { // nothing sent yet: the error can still be the answer
			return werr
		}
		panic(http.ErrAbortHandler) // cut the response: it stops short
	}
	s.metrics.speech(req.Format.Name, res, time.Since(start))
	return nil
}

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
