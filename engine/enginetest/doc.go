// Package enginetest checks engines against the engine.Engine contract and
// provides Fake, a deterministic engine for testing the layers above.
//
// Every engine's tests call Run, the way file systems call
// testing/fstest.TestFS:
//
//	func TestConformance(t *testing.T) {
//		e, err := espeak.New(espeak.Options{})
//		...
//		enginetest.Run(t, e, "en-us")
//	}
package enginetest
