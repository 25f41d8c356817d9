package pocket_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
)

// Load the PocketTTS models of a voices directory, clone a voice from a
// recording and speak with it.
func ExampleEngine_Clone() {
	eng, err := pocket.Load(context.Background(), pocket.Options{
		LibraryPath: os.Getenv("ONNXRUNTIME_LIB"), // empty: well-known places
		VoicesDir:   "voices",                     // holds sherpa-onnx-pocket-tts-int8-2026-01-26/
	})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	var recording []float32 // 5 to 10 s of one speaker, here at 48 kHz
	voice, err := eng.Clone(context.Background(), "sherpa-onnx-pocket-tts-int8-2026-01-26", recording, 48000, pocket.DefaultSettings())
	if err != nil {
		log.Fatal(err)
	}
	err = eng.SynthesizeVoice(context.Background(), voice, engine.Request{Text: "Hello there."},
		func(c engine.Chunk) error {
			fmt.Println(len(c.Samples), "samples at", c.SampleRate, "Hz")
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
}

// A voice is stored as bytes and read back.
func ExampleVoice_MarshalBinary() {
	v := &pocket.Voice{Model: "pocket", Frames: 2, Dim: 2, Latents: []float32{0.5, -1, 0.25, 0},
		Settings: pocket.Settings{Temperature: 0.7, Steps: 5, Seed: 42}}
	b, err := v.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	var w pocket.Voice
	if err := w.UnmarshalBinary(b); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(b), "bytes:", w.Model, w.Frames, w.Latents, w.Settings)
	// Output:
	// 114 bytes: pocket 2 [0.5 -1 0.25 0] {0.7 5 42}
}
