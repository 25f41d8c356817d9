package onnx_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
)

// A Piper config turns a sentence's IPA into the ids its model reads.
func ExampleConfig_IDs() {
	cfg, err := onnx.ReadConfig("testdata/configs/en_US-lessac-medium.onnx.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.SampleRate, cfg.EspeakVoice)
	fmt.Println(cfg.IDs(nil, "həlˈoʊ!"))
	// Output:
	// 22050 en-us
	// [1 0 20 0 59 0 24 0 120 0 27 0 100 0 4 0 2]
}

// Load a directory of Piper voices and speak with one of them.
func ExampleLoad() {
	ph, err := espeak.New(espeak.Options{})
	if err != nil {
		log.Fatal(err)
	}
	eng, err := onnx.Load(context.Background(), onnx.Options{
		LibraryPath: os.Getenv("ONNXRUNTIME_LIB"), // empty: well-known places
		Phonemizer:  ph,
		VoicesDir:   "voices",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	err = eng.Synthesize(context.Background(), engine.Request{Voice: "en_GB-vctk-medium:p239", Text: "Hello there."},
		func(c engine.Chunk) error {
			fmt.Println(len(c.Samples), "samples at", c.SampleRate, "Hz")
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
}
