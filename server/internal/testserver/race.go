//go:build cgo && race

package testserver

// RaceEnabled is true under the race detector, whose shadow memory and
// slowdown make memory measurements meaningless.
const RaceEnabled = true
