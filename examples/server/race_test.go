//go:build race

package main

// raceEnabled is true under the race detector, whose shadow memory and
// slowdown make memory measurements meaningless.
const raceEnabled = true
