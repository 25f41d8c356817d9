// Package encode writes mono 16-bit PCM audio as wav, mp3, pcm, opus or flac.
//
// An Encoder is built like the standard library's encoders: NewEncoder wraps
// an io.Writer, Encode writes samples as they arrive, and Close flushes the
// tail without closing the underlying writer. No encoder needs to seek, so
// output can stream straight into an http.ResponseWriter. The bytes written
// never depend on how the samples are divided between Encode calls. Use one
// encoder per response: separately encoded mp3 or Ogg pieces glued together
// are not one valid stream.
//
// A Format names the codec and its parameters; its zero-valued fields mean
// the defaults (24 kHz, the codec's usual bitrate). Codecs are kept in a
// Registry; the package-level functions use DefaultRegistry, which holds
// the built-in formats:
//
//   - wav (audio/wav): any rate. A complete clip carries exact sizes and is
//     held until Close; a streaming one starts at once with the size
//     0xFFFFFFFF ("until the end").
//   - pcm (audio/pcm): raw signed 16-bit little-endian samples, any rate.
//   - mp3 (audio/mpeg): Layer III from libmp3lame (LAME 3.100, through
//     cgo), constant bitrate, one continuous stream at 8, 11.025, 12, 16,
//     22.05, 24, 32, 44.1 or 48 kHz (MPEG-2.5, 2 or 1 by rate; 24 kHz
//     gives MPEG-2, the shape OpenAI returns), never resampled. Bitrate
//     defaults to 64 kbps (32 kbps at 12 kHz and below) and must be a
//     Layer III bitrate of the rate's MPEG version (LAME makes MPEG-2.5 up
//     to 64 kbps) whose frames can hold the Info tag, e.g. 24 to 160 kbps
//     at 24 kHz; others are refused with ErrUnsupportedBitrate. Level 1 to
//     10 is 10 minus LAME's -q (default 5, -q 5). The first frame is an
//     Info frame whose LAME tag gives the encoder delay, so ffmpeg,
//     browsers and most players start on the first input sample. A
//     complete clip is held until Close and its Info frame (LAME's own,
//     or at bitrates too low for it a smaller one of ours) also carries
//     the frame count and end padding: it decodes to exactly its input
//     length. A streaming clip is written as LAME produces frames (about
//     two frames behind the input) and decodes to that length plus
//     LAME's end padding less the decoder's delay: 47 samples to a frame
//     and 47 samples of silence (at most 26 ms at 24 kHz).
//   - opus (audio/opus): Ogg Opus (RFC 7845) from libopus, 20 ms packets,
//     with the encoder's own lookahead as pre-skip, OpusTags, granule
//     positions that trim the final padding, and an end-of-stream page.
//     libopus takes 8, 12, 16, 24 and 48 kHz; 22.05 and 44.1 kHz input is
//     resampled inside the encoder to 24 and 48 kHz; other rates are
//     refused with ErrUnsupportedRate. Bitrate defaults to 48 kbps (32 kbps
//     at 16 kHz and below); Level sets the complexity (default 3). Pages
//     hold 100 ms of audio when streaming, one second otherwise.
//   - flac (audio/flac): 4096-sample frames written by github.com/mewkiz/flac
//     with predictors chosen by our own LPC analysis; Level 1 to 8 as the
//     flac command's -1 … -8 (default 5). A complete clip carries its
//     length and MD5; a streaming one leaves them unset, as FLAC allows.
package encode
