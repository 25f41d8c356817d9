//go:build race

package onnx

// raceEnabled is true under the race detector, whose shadow memory makes
// resident-memory measurements meaningless.
const raceEnabled = true
