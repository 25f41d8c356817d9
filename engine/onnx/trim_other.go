//go:build !linux

package onnx

import ort "github.com/yalue/onnxruntime_go"

// trimHeap gives the C heap's free memory back to the system where the
// C library allows it; nothing here.
func trimHeap() {}

// shrinkArena would make the run of o give the arena's unused regions
// back; it is done on Linux only (shrink_linux.go).
func shrinkArena(*ort.RunOptions) error { return nil }
