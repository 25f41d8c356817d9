package tts_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// toneSynthesizer speaks with the engine/onnx "tone" fixture, a
// Piper-format voice whose audio is a sine per phoneme id.
func toneSynthesizer(t *testing.T) *tts.Synthesizer {
	t.Helper()
	eng := onnxtest.Load(t, onnx.Options{Models: []string{filepath.Join("..", "engine", "onnx", "testdata", "voices", "en_US-tone-medium.onnx")}})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "onnx", eng, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": eng}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTagsOnONNX renders tags on a Piper-format voice (the engine/onnx
// "tone" fixture, whose audio is a sine per phoneme id): rate goes through
// length_scale, the rest through the DSP stage.
func TestTagsOnONNX(t *testing.T) {
	ctx := context.Background()
	s := toneSynthesizer(t)
	say := func(input string) []float32 {
		var buf bytes.Buffer
		if _, err := s.Stream(ctx, &buf, tts.Request{Voice: "en_US-tone-medium", Input: input, Format: encode.PCM}); err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		x := make([]float32, buf.Len()/2)
		for i := range x {
			x[i] = float32(int16(binary.LittleEndian.Uint16(buf.Bytes()[2*i:]))) / 32768
		}
		return x
	}
	plain := say(sample)
	d0, r0, p0 := seconds(plain), dsp.RMS(plain), audiotest.Periodicity(plain, pcmRate)
	t.Logf("plain: %.3f s, RMS %.4f, periodicity %.2f", d0, r0, p0)
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("%s: got %.3f, want %.3f ± %.0f%%", what, got, want, tol*100)
		}
	}
	near("slow duration", seconds(say("<|slow|>"+sample))/d0, 1/0.75, 0.02)
	near("rate:2 duration", seconds(say("<|rate:2|>"+sample))/d0, 0.5, 0.02)
	near("volume:0.5 RMS", dsp.RMS(say("<|volume:0.5|>"+sample))/r0, 0.5, 0.02)
	near("loud RMS", dsp.RMS(say("<|loud|>"+sample))/r0, math.Pow(10, 4.0/20), 0.02)
	near("pause duration", seconds(say("One.<|pause:1s|> "+sample))-seconds(say("One. "+sample)), 1, 0.01)
	// Mid-sentence the engine speaks the two parts apart (it renders no
	// breaks): the pause adds its duration to that, within a sample.
	near("mid-sentence pause", seconds(say("Hello <|pause:1s|> world."))-seconds(say("Hello <|pause:0s|> world.")), 1, 0.0001)
	p := audiotest.Periodicity(say("<|whisper|>"+sample), pcmRate)
	t.Logf("whisper: periodicity %.2f → %.2f", p0, p)
	// The fixture's pure sines are the hardest case for LPC whisper (one
	// sharp resonance per phoneme), so the bar is a little lower than for
	// speech.
	if p > 0.5 || p0 < 0.6 {
		t.Errorf("whisper: periodicity %.2f → %.2f", p0, p)
	}
	if added := audiotest.Energy(say("One.<|breath|> Two.")) - audiotest.Energy(say("One. Two.")); added < 0.5*0.02*0.02*0.4*pcmRate {
		t.Errorf("breath added energy %.3f", added)
	}
	// Pitch: the tone voice's sines move up by the shift (PSOLA on a
	// sine of one period per grain).
	hi := say("<|pitch:+5|>" + sample)
	near("pitch duration", seconds(hi)/d0, 1, 0.01)
}
