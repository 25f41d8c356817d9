package tts_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// ssmlBreak checks on one voice that an SSML <break time="1s"/> adds
// 1.000 s ± 20 ms of audio.
func ssmlBreak(t *testing.T, s *tts.Synthesizer, voice string) {
	t.Helper()
	length := func(input string) time.Duration {
		var buf bytes.Buffer
		res, err := s.Stream(context.Background(), &buf, tts.Request{Voice: voice, Input: input, Format: encode.PCM})
		if err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		return res.Audio
	}
	with := length(`<speak>Hello there. <break time="1s"/> How are you?</speak>`)
	without := length(`<speak>Hello there. How are you?</speak>`)
	if d := with - without; math.Abs(d.Seconds()-1) > 0.020 {
		t.Errorf("%s: the break added %v, want 1 s ± 20 ms", voice, d)
	}
}

func TestSSMLBreakOnEspeak(t *testing.T) {
	s, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ssmlBreak(t, s, "en-us")
}

func TestSSMLBreakOnPiper(t *testing.T) {
	ssmlBreak(t, toneSynthesizer(t), "en_US-tone-medium")
}

// TestSSMLReachesTheEngine: what the engine is asked to say for SSML
// elements, and what a request reports it left out.
func TestSSMLReachesTheEngine(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{})
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake}, Ahead: -1}) // the engine calls in the text's order: none rendered ahead
	if err != nil {
		t.Fatal(err)
	}
	say := func(input string, format tts.InputFormat) (string, tts.Result) {
		before := len(fake.Requests())
		_, res, err := s.SynthesizeRequest(context.Background(), tts.Request{Voice: "fake", Input: input, InputFormat: format})
		if err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		var texts []string
		for _, r := range fake.Requests()[before:] {
			if r.Prosody.Spell {
				texts = append(texts, "spell("+r.Text+")")
			} else {
				texts = append(texts, r.Text)
			}
		}
		return strings.Join(texts, " | "), res
	}
	for _, c := range []struct{ input, want string }{
		{`<speak>I like <sub alias="World Wide Web">WWW</sub>.</speak>`, "I like World Wide Web."},
		{`<speak>Spell <say-as interpret-as="characters">abc</say-as>.</speak>`, "Spell | A B C."},
		{`<speak>It costs $9.50.</speak>`, "It costs nine dollars and fifty cents."},
		{`<speak>Code <say-as interpret-as="digits">42</say-as>.</speak>`, "Code four two."},
		{`<speak>The <say-as interpret-as="ordinal">2</say-as> time.</speak>`, "The second time."},
	} {
		if got, _ := say(c.input, tts.InputAuto); got != c.want {
			t.Errorf("%s\n the engine read %q, want %q", c.input, got, c.want)
		}
	}
	if got, res := say(`<speak>Hi <audio src="a.wav"/> there <foo>you</foo>.</speak>`, tts.InputAuto); got != "Hi there you." || strings.Join(res.IgnoredTags, ",") != "audio,foo" {
		t.Errorf("ignored elements: engine read %q, ignored %v", got, res.IgnoredTags)
	}
	// InputText reads SSML markup as text (tags stay text too, not tags).
	if got, _ := say(`<speak>Hi</speak>`, tts.InputText); !strings.Contains(got, "speak") {
		t.Errorf("InputText: the engine read %q", got)
	}
	_, _, err = s.SynthesizeRequest(context.Background(), tts.Request{Voice: "fake", Input: "<speak>Hi <prosody>there</speak>"})
	var se *ssml.SyntaxError
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("malformed SSML: %v", err)
	}
	_, _, err = s.SynthesizeRequest(context.Background(), tts.Request{Voice: "fake", Input: "Plain <b>text", InputFormat: tts.InputSSML})
	if !errors.As(err, &se) {
		t.Errorf("InputSSML of text: %v", err)
	}
}
