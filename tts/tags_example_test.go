package tts_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Audio tags style the speech; tags that cannot be applied are dropped and
// reported, or rejected with StrictTags.
func ExampleSynthesizer_Stream_tags() {
	ctx := context.Background()
	eng := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"ann", "bob"}})
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
	req := tts.Request{
		Voice:  "ann",
		Input:  "<|slow|>Hello.<|pause:1s|> <|voice:bob|><|wink|>Hi Ann!",
		Format: encode.PCM,
	}
	var audio bytes.Buffer
	res, err := synth.Stream(ctx, &audio, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f s, ignored %q\n", res.Audio.Seconds(), res.IgnoredTags)
	for _, r := range eng.Requests() {
		fmt.Printf("%s says %q at rate %g\n", r.Voice, r.Text, r.Prosody.Rate)
	}

	req.StrictTags = true
	_, err = synth.Stream(ctx, &audio, req)
	fmt.Println(err)
	// Output:
	// 1.92 s, ignored ["wink"]
	// ann says "Hello." at rate 0.75
	// bob says "Hi Ann!" at rate 0.75
	// tts: bad audio tags: tags: unknown tag <|wink|> at 40
}
