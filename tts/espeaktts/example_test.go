package espeaktts_test

import (
	"context"
	"fmt"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// The shortest way to speech: a Synthesizer on the embedded voices.
func ExampleNew() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		panic(err)
	}
	defer synth.Close()
	wav, err := synth.Synthesize(context.Background(), "en-us", "Hello world.", encode.WAV)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(wav[:4]), string(wav[8:12]), len(wav) > 24000)
	// Output: RIFF WAVE true
}
