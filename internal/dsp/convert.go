package dsp

import "math"

// AppendInt16 converts samples in [-1, 1] to 16-bit integers, rounding and
// clipping, and appends them to dst.
func AppendInt16(dst []int16, x []float32) []int16 {
	for _, v := range x {
		f := math.Round(float64(v) * 32768)
		if f != f { // NaN
			f = 0
		}
		dst = append(dst, int16(max(-32768, min(32767, f))))
	}
	return dst
}

// AppendFloat32 converts 16-bit samples to [-1, 1] and appends them to dst.
func AppendFloat32(dst []float32, x []int16) []float32 {
	for _, v := range x {
		dst = append(dst, float32(v)/32768)
	}
	return dst
}
