// Package opus writes Ogg Opus through libopus (through cgo) and registers
// the "opus" format in encode.DefaultRegistry when imported:
//
//	import _ "github.com/voxkit/voxkit/encode/opus"
//
// Its content type is audio/opus: Ogg Opus (RFC 7845), 20 ms packets,
// with the encoder's own lookahead as pre-skip, OpusTags (ENCODER=voxkit
// and encode.Format.Comments), granule
// positions that trim the final padding, and an end-of-stream page.
// libopus takes 8, 12, 16, 24 and 48 kHz; 22.05 and 44.1 kHz input is
// resampled inside the encoder to 24 and 48 kHz; other rates are
// refused with encode.ErrUnsupportedRate. Bitrate defaults to 48 kbps (32 kbps
// at 16 kHz and below); Level sets the complexity (default 3). Pages
// hold 100 ms of audio when streaming, one second otherwise.
package opus
