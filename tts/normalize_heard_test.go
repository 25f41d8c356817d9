package tts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// TestNormalizedSpeechHeardRight: a recognizer, choosing between how a
// careful reader says a written form and how espeak-ng's own rules read
// it, hears the careful reading in normalized speech, and (the control)
// mostly not in speech read as written.
func TestNormalizedSpeechHeardRight(t *testing.T) {
	synth := listeningSynthesizer(t)
	cases := []struct{ input, careful, literal string }{
		{"It costs $9.50.", "it costs nine dollars and fifty cents", "it costs dollar nine point five zero"},
		{"Chapter IV begins.", "chapter four begins", "chapter i v begins"},
		{"Read p. 42 first.", "read page forty two first", "read p forty two first"},
		{"The file is 3.5 MB.", "the file is three point five megabytes", "the file is three point five m b"},
		{"It is 12 km away.", "it is twelve kilometers away", "it is twelve k m away"},
		{"Henry VIII was king.", "henry the eighth was king", "henry v i i i was king"},
		{"We open 9am-5pm daily.", "we open nine a m to five p m daily", "we open nine a m dash five p m daily"},
		{"Prices rose 10-15% today.", "prices rose ten to fifteen percent today", "prices rose ten dash fifteen percent today"},
	}
	heardRight := func(mode tts.Normalization) (int, []string) {
		right, notes := 0, []string(nil)
		for _, c := range cases {
			wav, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: c.input, Format: encode.WAV, Normalize: mode})
			if err != nil {
				t.Fatal(err)
			}
			heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), []string{c.careful, c.literal})
			if heard == c.careful {
				right++
			}
			notes = append(notes, fmt.Sprintf("%q heard as %q", c.input, heard))
		}
		return right, notes
	}
	judgeHeard(t, len(cases), heardRight)
}

// judgeHeard checks how many of n sentences heard counts as said the
// careful way, normalized (all but one at least) and read as written (the
// control: fewer, or the test cannot tell), and logs what was heard.
func judgeHeard(t *testing.T, n int, heard func(tts.Normalization) (int, []string)) {
	t.Helper()
	on, onNotes := heard(tts.NormalizeOn)
	off, offNotes := heard(tts.NormalizeOff)
	t.Logf("normalized: %d of %d heard as a careful reader says them\n%s", on, n, strings.Join(onNotes, "\n"))
	t.Logf("as written: %d of %d\n%s", off, n, strings.Join(offNotes, "\n"))
	if on < n-1 {
		t.Errorf("normalized: only %d of %d heard as a careful reader says them", on, n)
	}
	if off >= on {
		t.Errorf("as written, %d of %d heard the careful way too: the test cannot tell", off, n)
	}
}

// listeningSynthesizer returns an espeak-ng synthesizer for a test that
// listens with the recognizer, skipping it in -short runs and where the
// recognizer is missing.
func listeningSynthesizer(t *testing.T) *tts.Synthesizer {
	t.Helper()
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	return synth
}

// TestDrawnLettersHeard: letters and digits drawn as symbols are heard
// as those letters and digits, not as espeak-ng's reading of their code
// points in hexadecimal ("letter 2 4 d 0").
func TestDrawnLettersHeard(t *testing.T) {
	synth := listeningSynthesizer(t)
	cases := []struct{ input, drawn, hex string }{
		{"ⓐ ⓑ ⓒ", "a b c", "letter two four d zero letter two four d one letter two four d two"},
		{"Ｈｅｌｌｏ", "hello", "letter f f two eight letter f f four five letter f f four c letter f f four c letter f f four f"},
	}
	for _, c := range cases {
		wav, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: c.input, Format: encode.WAV})
		if err != nil {
			t.Fatal(err)
		}
		if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), []string{c.drawn, c.hex}); heard != c.drawn {
			t.Errorf("%q heard as %q, want %q", c.input, heard, c.drawn)
		}
	}
}
