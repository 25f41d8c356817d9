//go:build !cgo

package mp3lame

import "fmt"

// Decode, in a build without cgo, has no LAME decoder to decode with.
func Decode(data []byte, maxSeconds float64) (Decoded, error) {
	return Decoded{}, fmt.Errorf("%w: this build of voxkit has no cgo, and so no LAME decoder", ErrStream)
}
