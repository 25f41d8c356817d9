package opusenc

import "errors"

// DecodeRate is the rate a Decoder decodes at: Opus's own, whatever the
// rate the encoder was given.
const DecodeRate = 48000

// MaxFrame is the most samples one packet decodes to at DecodeRate
// (120 ms).
const MaxFrame = DecodeRate * 120 / 1000

// ErrPacket is returned (wrapped) for a packet libopus cannot decode.
var ErrPacket = errors.New("opusenc: corrupt Opus packet")
