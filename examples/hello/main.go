// Command hello writes "Hello world." spoken by the embedded espeak-ng voice
// to hello.wav: the shortest complete voxkit program.
package main

import (
	"context"
	"os"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

func main() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		panic(err)
	}
	defer synth.Close()
	wav, err := synth.Synthesize(context.Background(), "en-us", "Hello world.", encode.WAV)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile("hello.wav", wav, 0o644); err != nil {
		panic(err)
	}
}
