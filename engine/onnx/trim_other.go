//go:build !linux

package onnx

// trimHeap gives the C heap's free memory back to the system where the
// C library allows it; nothing here.
func trimHeap() {}
