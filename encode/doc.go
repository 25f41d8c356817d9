// Package encode writes mono 16-bit PCM audio as wav, mp3, pcm, opus or flac.
//
// An Encoder is built like the standard library's encoders: NewEncoder wraps
// an io.Writer, Encode writes samples as they arrive, and Close flushes the
// tail without closing the underlying writer. A stream (Format.Streaming)
// is written as it is made, straight into an http.ResponseWriter; a
// complete wav, mp3 or flac clip needs its length in its header, so it is
// written through and its header rewritten at Close when the writer is
// also an io.WriterAt (see WriterAt), and held until Close otherwise. The bytes written
// never depend on how the samples are divided between Encode calls. Use one
// encoder per response: separately encoded mp3 or Ogg pieces glued together
// are not one valid stream.
//
// A Format names the codec and its parameters; its zero-valued fields mean
// the defaults (24 kHz, the codec's usual bitrate). Codecs are kept in a
// Registry; the package-level functions use DefaultRegistry, which holds
// the built-in formats, written in Go (this package builds without cgo):
//
//   - wav (audio/wav): any rate. A complete clip carries exact sizes and is
//     held until Close; a streaming one starts at once with the size
//     0xFFFFFFFF ("until the end").
//   - pcm (audio/pcm): raw signed 16-bit little-endian samples, any rate.
//   - flac (audio/flac): 4096-sample frames written by github.com/mewkiz/flac
//     with predictors chosen by our own LPC analysis; Level 1 to 8 as the
//     flac command's -1 … -8 (default 5). A complete clip carries its
//     length and MD5; a streaming one leaves them unset, as FLAC allows.
//
// mp3 and opus need C libraries (libmp3lame and libopus, through cgo), so
// they live in packages of their own that register themselves in
// DefaultRegistry when imported, as image/png registers PNG with image:
//
//	import (
//		_ "github.com/voxkit/voxkit/encode/mp3"
//		_ "github.com/voxkit/voxkit/encode/opus"
//	)
//
// Without them, "mp3" and "opus" are unsupported formats (the error says
// which package to import). A program that builds its own Registry adds
// mp3.Codec and opus.Codec to it.
package encode
