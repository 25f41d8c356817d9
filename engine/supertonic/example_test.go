package supertonic_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/supertonic"
)

// Load the Supertonic models of a voices directory and speak German with
// one of them.
func ExampleLoad() {
	eng, err := supertonic.Load(context.Background(), supertonic.Options{
		LibraryPath: os.Getenv("ONNXRUNTIME_LIB"), // empty: well-known places
		VoicesDir:   "voices",                     // holds sherpa-onnx-supertonic-3-tts-int8-2026-05-11/
	})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	req := engine.Request{Voice: "sherpa-onnx-supertonic-3-tts-int8-2026-05-11:F1:de", Text: "Guten Morgen.", Seed: 42}
	err = eng.Synthesize(context.Background(), req, func(c engine.Chunk) error {
		fmt.Println(len(c.Samples), "samples at", c.SampleRate, "Hz")
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}

// A directory without Supertonic models loads an engine with none.
func ExampleEngine_Models() {
	dir, err := os.MkdirTemp("", "voices")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	eng, err := supertonic.Load(context.Background(), supertonic.Options{VoicesDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	fmt.Println(len(eng.Models()), "models")
	// Output:
	// 0 models
}
