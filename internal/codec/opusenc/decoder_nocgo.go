//go:build !cgo

package opusenc

import "errors"

// A Decoder, in a build without cgo, has no libopus to decode with.
type Decoder struct{}

// errNoLibopus is NewDecoder's error in a build without cgo.
var errNoLibopus = errors.New("opusenc: this build of voxkit has no cgo, and so no libopus decoder")

// NewDecoder, in a build without cgo, fails.
func NewDecoder(gain int) (*Decoder, error) { return nil, errNoLibopus }

// Decode, in a build without cgo, fails.
func (d *Decoder) Decode(dst []float32, packet []byte) ([]float32, error) { return dst, errNoLibopus }
