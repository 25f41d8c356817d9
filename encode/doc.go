// Package encode writes mono 16-bit PCM audio as wav, mp3, pcm, opus or flac.
//
// An Encoder is built like the standard library's encoders: NewEncoder wraps
// an io.Writer, Encode writes samples as they arrive, and Close flushes the
// tail without closing the underlying writer. No encoder needs to seek, so
// output can stream straight into an http.ResponseWriter.
//
// A Format names the codec and its parameters; its zero-valued fields mean
// the defaults (24 kHz, the codec's usual bitrate). Codecs are kept in a
// Registry; the package-level functions use DefaultRegistry, which holds
// the built-in formats.
package encode
