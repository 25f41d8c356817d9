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
	"github.com/voxkit/voxkit/tts/espeaktts"
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
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		panic(err)
	}
	defer synth.Close()
	if _, err := synth.Prepare(tts.Request{Voice: "xx-nobody", Input: "Hi."}); err != nil {
		fmt.Println(errors.Is(err, engine.ErrUnknownVoice))
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

// Text that arrives in pieces, as a language model writes it, is spoken
// sentence by sentence as each one's end is known; OnSentence reports
// each sentence with its words' timings once its audio is written.
func ExampleSynthesizer_StreamText() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer synth.Close()
	var audio bytes.Buffer
	req := tts.Request{Voice: "en-us", Format: encode.PCM, OnSentence: func(d tts.SentenceDone) {
		for _, w := range d.Words {
			fmt.Printf("sentence %d: %q, characters %d to %d\n", d.Index, w.Word, w.CharStart, w.CharEnd)
		}
	}}
	ts, err := synth.StreamText(context.Background(), &audio, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, token := range []string{"Hel", "lo the", "re. <|pa", "use:200ms|>Bye", " now"} {
		if _, err := ts.WriteString(token); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, err := ts.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Sentences, "sentences")
	// Output:
	// sentence 0: "Hello", characters 0 to 5
	// sentence 0: "there", characters 6 to 11
	// sentence 1: "Bye", characters 28 to 31
	// sentence 1: "now", characters 32 to 35
	// 2 sentences
}

// A language model's tokens arrive on a channel while speech is made:
// Write synthesizes on the caller's goroutine whenever a sentence is
// complete, so the tokens are read on a goroutine of their own and
// handed over through the channel, and a slow sentence never stalls the
// model's stream.
func ExampleTextStream_channel() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer synth.Close()
	tokens := make(chan string, 64) // the model's stream; buffered so it runs ahead
	go func() {
		defer close(tokens)
		for _, t := range []string{"The ", "answer ", "is ", "forty", "-two. ", "Any", " more", "?"} {
			tokens <- t
		}
	}()
	var audio bytes.Buffer
	ts, err := synth.StreamText(context.Background(), &audio, tts.Request{Voice: "en-us", Format: encode.PCM})
	if err != nil {
		fmt.Println(err)
		return
	}
	for t := range tokens {
		if _, err := ts.WriteString(t); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, err := ts.Close() // speaks what is left, the last sentence
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Sentences, "sentences,", audio.Len() > 0)
	// Output: 2 sentences, true
}
