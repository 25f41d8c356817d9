package engine_test

import (
	"context"
	"fmt"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
)

// An engine delivers audio through a callback, one chunk per sentence;
// optional abilities are found by type assertion.
func Example() {
	var e engine.Engine = enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"demo"}})
	ctx := context.Background()

	if l, ok := e.(engine.VoiceLister); ok {
		vs, _ := l.Voices(ctx)
		fmt.Println("voices:", vs[0].Name)
	}
	req := engine.Request{Voice: "demo", Text: "One sentence. And another."}
	err := e.Synthesize(ctx, req, func(c engine.Chunk) error {
		fmt.Printf("%d samples at %d Hz\n", len(c.Samples), c.SampleRate)
		return nil
	})
	fmt.Println("error:", err)
	// The fake speaks 60 ms (960 samples) per letter and half that per
	// other character: "One sentence." has 11 letters and 2 others.

	// Output:
	// voices: demo
	// 11520 samples at 16000 Hz
	// 10560 samples at 16000 Hz
	// error: <nil>
}
