package pocket

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
)

// TestFirstChunkEarly: a piece's first chunk (15 frames) is passed on as
// soon as its frames exist, while the rest of the piece is made, and the
// chunks together are the piece.
func TestFirstChunkEarly(t *testing.T) {
	e := loadGen(t)
	v := cloneFile(t, e, filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav"), Settings{Steps: 4})
	// The frame after the first chunk's waits until that chunk is heard:
	// a runtime that decodes only whole pieces never gets there.
	var made atomic.Int64
	heard := make(chan struct{})
	frameMade = func() {
		if made.Add(1) == chunkFrames+1 {
			select {
			case <-heard:
			case <-time.After(time.Minute):
				t.Error("no audio while the frames after the first chunk were made")
			}
		}
	}
	t.Cleanup(func() { frameMade = nil })
	var chunks, total int
	err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: parityTexts[0]}, func(c engine.Chunk) error {
		if chunks == 0 {
			if len(c.Samples) != chunkFrames*1920 {
				t.Errorf("first chunk: %d samples, want %d", len(c.Samples), chunkFrames*1920)
			}
			close(heard)
		}
		chunks++
		total += len(c.Samples)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	frames := made.Load()
	if frames <= chunkFrames+1 || chunks < 2 {
		t.Errorf("%d frames in %d chunks", frames, chunks)
	}
	if total != int(frames)*1920 {
		t.Errorf("%d samples for %d frames", total, frames)
	}
}

func TestSeed(t *testing.T) {
	e := loadGen(t)
	wav := filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav")
	say := func(s Settings) []float32 { return speak(t, e, cloneFile(t, e, wav, s), parityTexts[0]) }
	a := say(Settings{Temperature: 0.7, Steps: 3, Seed: 42})
	b := say(Settings{Temperature: 0.7, Steps: 3, Seed: 42})
	c := say(Settings{Temperature: 0.7, Steps: 3, Seed: 43})
	cold := say(Settings{Steps: 3})
	if len(a) != len(b) || maxLSB(a, b) != 0 {
		t.Error("the same seed gave other audio")
	}
	if len(a) == len(c) && maxLSB(a, c) < 1 {
		t.Error("seeds 42 and 43 gave the same audio")
	}
	if len(a) == len(cold) && maxLSB(a, cold) < 1 {
		t.Error("temperature 0.7 gave temperature 0's audio")
	}
}

// TestInt8Layout: a directory of the int8 release's names loads and speaks
// as the full one does.
func TestInt8Layout(t *testing.T) {
	src := filepath.Join(voicesDir(t), testModel)
	dir := filepath.Join(t.TempDir(), "pocket-int8")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"text_conditioner.onnx", "encoder.onnx", "lm_main.onnx", "lm_flow.onnx", "decoder.onnx", "vocab.json", "token_scores.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "lm_main.onnx" || f == "lm_flow.onnx" || f == "decoder.onnx" {
			f = strings.TrimSuffix(f, ".onnx") + ".int8.onnx"
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := load(t, Options{Models: []string{dir, src}})
	if got := e.Models(); len(got) != 2 || got[0] != "pocket-gen" || got[1] != "pocket-int8" {
		t.Fatalf("models %v", got)
	}
	rec := recording(2, 180)
	var audio [2][]float32
	for i, m := range []string{testModel, "pocket-int8"} {
		v, err := e.Clone(context.Background(), m, rec, SampleRate, Settings{Steps: 2})
		if err != nil {
			t.Fatal(err)
		}
		audio[i] = speak(t, e, v, "Both layouts say the same thing.")
	}
	if len(audio[0]) == 0 || len(audio[0]) != len(audio[1]) || maxLSB(audio[0], audio[1]) != 0 {
		t.Error("the int8 layout speaks otherwise")
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lm_main.onnx"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), Options{LibraryPath: onnxtest.Library(t), Models: []string{dir}})
	if err == nil {
		t.Error("a broken model directory loaded")
	}
	// A voices directory without models loads nothing, and is no error.
	e := load(t, Options{VoicesDir: t.TempDir()})
	if len(e.Models()) != 0 {
		t.Errorf("models %v", e.Models())
	}
}

func TestCloneErrors(t *testing.T) {
	e := loadGen(t)
	ctx := context.Background()
	rec := recording(2, 200)
	if _, err := e.Clone(ctx, "nope", rec, SampleRate, Settings{}); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := e.Clone(ctx, testModel, rec[:100], SampleRate, Settings{}); !errors.Is(err, ErrRecording) {
		t.Errorf("too short: %v", err)
	}
	if _, err := e.Clone(ctx, testModel, rec, 0, Settings{}); !errors.Is(err, ErrRecording) {
		t.Errorf("rate 0: %v", err)
	}
	for _, s := range []Settings{{Temperature: -1}, {Steps: MaxSteps + 1}, {Steps: -1}} {
		if _, err := e.Clone(ctx, testModel, rec, SampleRate, s); !errors.Is(err, ErrSettings) {
			t.Errorf("settings %+v: %v", s, err)
		}
	}
	// A 48 kHz recording is resampled: its clone is near the 24 kHz one's.
	r, err := dsp.NewResampler(SampleRate, 48000)
	if err != nil {
		t.Fatal(err)
	}
	hi := r.Flush(r.Process(nil, rec))
	a, err := e.Clone(ctx, testModel, rec, SampleRate, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Clone(ctx, testModel, hi, 48000, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Frames != b.Frames {
		t.Errorf("48 kHz: %d frames, 24 kHz: %d", b.Frames, a.Frames)
	}
	// Only the first MaxReference seconds count.
	long := recording(MaxReference+3, 200)
	c, err := e.Clone(ctx, testModel, long, SampleRate, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Frames != MaxReference*SampleRate/1920 {
		t.Errorf("a %d s recording: %d frames, want %d", MaxReference+3, c.Frames, MaxReference*SampleRate/1920)
	}
}

func TestVoiceBinary(t *testing.T) {
	e := loadGen(t)
	v, err := e.Clone(context.Background(), testModel, recording(2, 150), SampleRate, Settings{Temperature: 0.5, Steps: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var w Voice
	if err := w.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if w.Model != v.Model || w.Frames != v.Frames || w.Dim != v.Dim || w.Settings != v.Settings || len(w.Latents) != len(v.Latents) {
		t.Fatalf("round trip: %+v", w.Settings)
	}
	for i := range w.Latents {
		if w.Latents[i] != v.Latents[i] {
			t.Fatalf("latent %d: %v, want %v", i, w.Latents[i], v.Latents[i])
		}
	}
	nan := bytes.Clone(b) // its last latent NaN, which the model would speak as silence
	binary.LittleEndian.PutUint32(nan[len(nan)-4:], math.Float32bits(float32(math.NaN())))
	for _, bad := range [][]byte{nil, []byte("hello"), b[:len(b)-1], bytes.Replace(b, []byte(`"frames"`), []byte(`"framez"`), 1), nan} {
		if err := new(Voice).UnmarshalBinary(bad); err == nil {
			t.Errorf("%d bytes of a damaged voice decoded", len(bad))
		}
	}
	// An added voice speaks by name and is listed; removed, it is gone.
	if err := e.AddVoice("mine", &w); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(e, "mine"); err != nil {
		t.Fatal(err)
	}
	bad := w
	bad.Dim, bad.Frames = 2*w.Dim, w.Frames/2
	bad.Latents = w.Latents[:bad.Dim*bad.Frames]
	if err := e.AddVoice("odd", &bad); err == nil {
		t.Error("a voice of latents the model does not take was added")
	}
	e.RemoveVoice("mine")
	if _, err := collect(e, "mine"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("removed voice: %v", err)
	}
}

func collect(e *Engine, voice string) (int, error) {
	n := 0
	err := e.Synthesize(context.Background(), engine.Request{Voice: voice, Text: "Say it."}, func(c engine.Chunk) error {
		n += len(c.Samples)
		return nil
	})
	return n, err
}

func TestWords(t *testing.T) {
	e := loadGen(t)
	text := "Words come with times. The second sentence has words too, and more of them."
	var samples int
	var ws []engine.Word
	err := e.Synthesize(context.Background(), engine.Request{Voice: testModel + ":alto", Text: text, Words: true}, func(c engine.Chunk) error {
		for _, w := range c.Words {
			if w.From < samples || w.From >= samples+len(c.Samples) {
				t.Errorf("word %q from %d is not in its chunk [%d, %d)", text[w.Start:w.End], w.From, samples, samples+len(c.Samples))
			}
		}
		samples += len(c.Samples)
		ws = append(ws, c.Words...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(text)
	if len(ws) != len(fields) {
		t.Fatalf("%d words, want %d", len(ws), len(fields))
	}
	for i, w := range ws {
		if text[w.Start:w.End] != fields[i] || !w.Estimated || w.To < w.From || (i > 0 && w.From < ws[i-1].To) || w.To > samples {
			t.Errorf("word %d: %+v (%q)", i, w, text[w.Start:w.End])
		}
	}
}

// TestCloner: engine.Cloner's bytes load under a name of the caller's,
// which speaks and is not listed, until unloaded.
func TestCloner(t *testing.T) {
	e := loadGen(t)
	ctx := context.Background()
	var c engine.Cloner = e
	if got := c.CloneModels(); len(got) != 1 || got[0] != testModel {
		t.Fatalf("models %v", got)
	}
	zero := 0.0
	data, err := c.CloneVoice(ctx, engine.CloneRequest{Samples: recording(2, 170), SampleRate: SampleRate, Temperature: &zero, Steps: 3})
	if err != nil {
		t.Fatal(err)
	}
	var v Voice
	if err := v.UnmarshalBinary(data); err != nil || v.Model != testModel || v.Settings != (Settings{Steps: 3}) {
		t.Fatalf("clone: %+v, %v", v.Settings, err)
	}
	if _, err := c.CloneVoice(ctx, engine.CloneRequest{Samples: recording(2, 170), SampleRate: SampleRate, Steps: -2}); !errors.Is(err, engine.ErrCloneSettings) {
		t.Errorf("steps -2: %v", err)
	}
	if _, err := c.CloneVoice(ctx, engine.CloneRequest{Samples: recording(0.01, 170), SampleRate: SampleRate}); !errors.Is(err, engine.ErrRecording) {
		t.Errorf("10 ms: %v", err)
	}
	if err := c.LoadClone("acct/mine", data); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadClone("broken", data[:10]); err == nil {
		t.Error("damaged bytes loaded")
	}
	if n, err := collect(e, "acct/mine"); err != nil || n == 0 {
		t.Fatalf("speaking the loaded clone: %d samples, %v", n, err)
	}
	vs, _ := e.Voices(ctx)
	for _, v := range vs {
		if v.Name == "acct/mine" {
			t.Error("a loaded clone is listed")
		}
	}
	c.UnloadClone("acct/mine")
	if _, err := collect(e, "acct/mine"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("unloaded: %v", err)
	}
}

// TestStoredStepsBounded: a voice stored with 100 flow steps (when the
// bound was 100) still loads, and speaks as the same voice of 10 steps
// does, at a tenth of the flow's cost; a clone of more than 10 steps is
// refused.
func TestStoredStepsBounded(t *testing.T) {
	e := loadGen(t)
	ctx := context.Background()
	if _, err := e.Clone(ctx, testModel, recording(2, 160), SampleRate, Settings{Steps: 11}); !errors.Is(err, ErrSettings) {
		t.Errorf("a clone of 11 steps: %v", err)
	}
	v, err := e.Clone(ctx, testModel, recording(2, 160), SampleRate, Settings{Steps: 10})
	if err != nil {
		t.Fatal(err)
	}
	ten, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	hundred := bytes.Replace(ten, []byte(`"steps":10`), []byte(`"steps":100`), 1)
	if bytes.Equal(hundred, ten) {
		t.Fatal("no steps in the stored header")
	}
	say := func(name string, data []byte) []float32 {
		t.Helper()
		if err := e.LoadClone(name, data); err != nil {
			t.Fatalf("loading %s: %v", name, err)
		}
		var out []float32
		err := e.Synthesize(ctx, engine.Request{Voice: name, Text: "Say it twice."}, func(c engine.Chunk) error {
			out = append(out, c.Samples...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := say("ten", ten), say("hundred", hundred)
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("the voice stored with 100 steps speaks otherwise than with 10 (%d and %d samples)", len(b), len(a))
	}
}
