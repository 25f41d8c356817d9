// Package mp3 writes mp3 through libmp3lame (LAME 3.100, through cgo) and
// registers the "mp3" format in encode.DefaultRegistry when imported:
//
//	import _ "github.com/voxkit/voxkit/encode/mp3"
//
// Its content type is audio/mpeg: Layer III at a constant bitrate, one continuous stream at 8, 11.025, 12, 16,
// 22.05, 24, 32, 44.1 or 48 kHz (MPEG-2.5, 2 or 1 by rate; 24 kHz
// gives MPEG-2, the shape OpenAI returns), never resampled. Bitrate
// defaults to 64 kbps (32 kbps at 12 kHz and below) and must be a
// Layer III bitrate of the rate's MPEG version (LAME makes MPEG-2.5 up
// to 64 kbps) whose frames can hold the Info tag, e.g. 24 to 160 kbps
// at 24 kHz; others are refused with encode.ErrUnsupportedBitrate. Level 1 to
// 10 is 10 minus LAME's -q (default 5, -q 5). The first frame is an
// Info frame whose LAME tag gives the encoder delay, so ffmpeg,
// browsers and most players start on the first input sample. A
// complete clip is held until Close (or written through to an
// io.WriterAt, see encode.WriterAt) and its Info frame (LAME's own,
// or at bitrates too low for it a smaller one of ours) also carries
// the frame count and end padding: it decodes to exactly its input
// length. A streaming clip is written as LAME produces frames (about
// two frames behind the input) and decodes to that length plus
// LAME's end padding less the decoder's delay: 47 samples to a frame
// and 47 samples of silence (at most 26 ms at 24 kHz).
package mp3
