// Package ogg writes Ogg pages (RFC 3533) for a single logical bitstream:
// packets go in, pages with lacing values, granule positions and CRCs come
// out. It is the container half of Ogg Opus; it knows nothing of codecs.
package ogg
