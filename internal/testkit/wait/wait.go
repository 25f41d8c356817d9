// Package wait is the one way tests wait for something that happens on
// another goroutine or process: For polls until a condition holds, Never
// watches that one does not, both at a short fixed interval, instead of
// sleeps of a guessed length.
package wait

import "time"

// interval is how often a condition is polled.
const interval = 5 * time.Millisecond

// For polls cond until it holds, for at most timeout, and reports whether
// it held.
func For(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
	return true
}

// Never polls cond for d and reports whether it never held; it returns
// false as soon as it does. It proves that something does not happen in
// a time it would have happened in.
func Never(d time.Duration, cond func() bool) bool {
	return !For(d, cond)
}
