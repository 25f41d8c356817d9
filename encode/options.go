package encode

import "errors"

// ErrUnsupportedBitrate is returned (wrapped) for a bitrate a codec cannot
// encode at the requested sample rate.
var ErrUnsupportedBitrate = errors.New("encode: unsupported bitrate")

// ErrUnsupportedLevel is returned (wrapped) for a Format.Level outside the
// codec's range.
var ErrUnsupportedLevel = errors.New("encode: unsupported level")

// errClosed is returned by an encoder used after Close.
var errClosed = errors.New("encode: encoder used after Close")
