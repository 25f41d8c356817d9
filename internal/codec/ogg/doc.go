// Package ogg writes and reads Ogg pages (RFC 3533). A Writer makes the
// pages of a single logical bitstream: packets go in, pages with lacing
// values, granule positions and CRCs come out. A Reader takes pages of
// any bitstreams apart again into packets, checking every CRC. It is the
// container half of Ogg Opus; it knows nothing of codecs.
package ogg
