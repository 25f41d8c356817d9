package tts_test

import (
	"context"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

func Example() {
	ctx := context.Background()
	// Any engine.Engine works here; espeak.New gives the embedded voices.
	eng := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"demo"}})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(ctx, "fake", eng, time.Now()); err != nil {
		fmt.Println(err)
		return
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": eng}, Voices: cat})
	if err != nil {
		fmt.Println(err)
		return
	}
	wav, err := synth.Synthesize(ctx, "demo", "Hello world.", encode.WAV)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, %d bytes\n", wav[:4], len(wav))

	_, err = synth.Synthesize(ctx, "nobody", "Hello world.", encode.WAV)
	fmt.Println(err)
	// Output:
	// RIFF, 31724 bytes
	// tts: unknown voice "nobody"
}
