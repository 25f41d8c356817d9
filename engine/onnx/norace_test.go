//go:build !race

package onnx

const raceEnabled = false
