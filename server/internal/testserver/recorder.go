package testserver

import (
	"encoding/binary"
	"math"
)

// pcmRMS is the level of s16le samples, from 0 to 1.
func PCMRMS(pcm []byte) float64 {
	var sum float64
	n := len(pcm) / 2
	for i := range n {
		v := float64(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
		sum += v * v
	}
	return math.Sqrt(sum / float64(max(n, 1)))
}
