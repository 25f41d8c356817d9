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

// A budget for loaded voices, as a server's -voice-memory flag takes it.
func ExampleParseSize() {
	for _, s := range []string{"512MB", "2GB", "1.5GiB"} {
		n, err := onnx.ParseSize(s)
		fmt.Println(n, err)
	}
	// Output:
	// 512000000 <nil>
	// 2000000000 <nil>
	// 1610612736 <nil>
}

// Hold a voice for the sentences of one request: its model loads on
// first use and stays loaded, under Options.MemoryBudget, until released.
func ExampleEngine_HoldVoice() {
	ph, err := espeak.New(espeak.Options{})
	if err != nil {
		log.Fatal(err)
	}
	eng, err := onnx.Load(context.Background(), onnx.Options{Phonemizer: ph, VoicesDir: "voices", MemoryBudget: 512e6})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	release, took, err := eng.HoldVoice(context.Background(), "en_US-lessac-medium")
	if err != nil {
		log.Fatal(err)
	}
	defer release()
	fmt.Println("loaded in", took, "; loaded now:", eng.Residency().Models)
	for _, text := range []string{"First sentence.", "Second sentence."} {
		err := eng.Synthesize(context.Background(), engine.Request{Voice: "en_US-lessac-medium", Text: text}, func(engine.Chunk) error { return nil })
		if err != nil {
			log.Fatal(err)
		}
	}
}
