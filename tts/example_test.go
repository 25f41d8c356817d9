package tts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
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

// A server prepares a request to answer its mistakes before it starts a
// response, then runs it without checking it again.
func ExampleSynthesizer_Prepare() {
	synth, err := espeak.NewSynthesizer(espeak.Options{})
	if err != nil {
		panic(err)
	}
	defer synth.Close()
	if _, err := synth.Prepare(tts.Request{Voice: "xx-nobody", Input: "Hi."}); err != nil {
		fmt.Println(errors.Is(err, tts.ErrUnknownVoice))
	}
	p, err := synth.Prepare(tts.Request{Voice: "en-US", Input: "Hello <|wink|> there."})
	if err != nil {
		panic(err)
	}
	var clip bytes.Buffer
	res, err := p.WriteClip(context.Background(), &clip)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Voice().ID, res.IgnoredTags, string(clip.Bytes()[:4]))
	// Output:
	// true
	// en-us [wink] RIFF
}
