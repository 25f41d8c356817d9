//go:build cgo

package espeaktts_test

import (
	"context"
	"errors"
	"flag"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

var unguarded = flag.Bool("espeak.unguarded", false,
	"fuzz libespeak-ng without the engine's guard, to see what crashes it")

var (
	fuzzOnce  sync.Once
	fuzzSynth *tts.Synthesizer
	fuzzErr   error
)

// FuzzSpeak runs text through the whole path a request takes:
// normalization, audio tags or SSML, libespeak-ng (in its engine
// processes) and an encoder. A crash of the library is contained and
// reported as engine.ErrCrashed, which fails the target: every text must
// speak or be refused. The text is repeated, since every known crash of
// libespeak-ng 1.51 is a run of something ordinary ("a." a hundred
// times), which a fuzzer finds by repeating a short input far sooner than
// by growing a long one. Run with -args -espeak.unguarded to see the
// library's crashes themselves.
func FuzzSpeak(f *testing.F) {
	for _, seed := range []struct {
		text   string
		repeat uint8
		ssml   bool
	}{
		{"Hello world. ", 0, false},
		{"a. ", 120, false},
		{"u.s ", 60, false},
		{"www.", 30, false},
		{"Call 555-0142 or mail bob@example.com at https://example.com/a/b. ", 0, false},
		{"<|phoneme:həˈloʊ|>hello ", 1, false},
		{`<speak>Hi <break time="300ms"/> <say-as interpret-as="characters">abc</say-as></speak>`, 0, true},
		{"$9.50 on 2024-05-01, 3 km. ", 2, false},
	} {
		f.Add(seed.text, seed.repeat, seed.ssml)
	}
	f.Fuzz(func(t *testing.T, text string, repeat uint8, ssml bool) {
		input := strings.Repeat(text, 1+int(repeat))
		if len(input) > 1024 || strings.TrimSpace(input) == "" {
			return
		}
		if ssml {
			input = "<speak>" + input + "</speak>"
		}
		fuzzOnce.Do(func() { fuzzSynth, fuzzErr = espeaktts.New(espeak.Options{Unguarded: *unguarded}) })
		if fuzzErr != nil {
			t.Fatal(fuzzErr)
		}
		format := tts.InputText
		if ssml {
			format = tts.InputSSML
		}
		_, _, err := fuzzSynth.SynthesizeRequest(context.Background(), tts.Request{
			Voice: "en-us", Input: input, Format: encode.PCM, InputFormat: format})
		if errors.Is(err, engine.ErrCrashed) {
			t.Fatalf("%q: %v", input, err)
		}
	})
}
