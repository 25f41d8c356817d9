package pocket

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// TestRescan: a model directory added to the voices directory is served
// after Rescan, and one removed goes, its recordings with it; a clone of
// a removed model is kept (LoadClone takes one then too), refused as an
// engine.UnsupportedVoiceError while the model is gone, and speaks again
// once it is back.
func TestRescan(t *testing.T) {
	dir := t.TempDir()
	e := load(t, Options{VoicesDir: dir})
	link := filepath.Join(dir, testModel)
	add := func() {
		t.Helper()
		if err := os.Symlink(filepath.Join(voicesDir(t), testModel), link); err != nil {
			t.Fatal(err)
		}
	}
	rescan := func(wantChanged bool) {
		t.Helper()
		if changed, err := e.Rescan(context.Background()); err != nil || changed != wantChanged {
			t.Fatalf("Rescan: changed %v, %v; want changed %v", changed, err, wantChanged)
		}
	}
	listed := func() []string {
		vs, _ := e.Voices(context.Background())
		var names []string
		for _, v := range vs {
			names = append(names, v.Name)
		}
		return names
	}
	if len(e.CloneModels()) != 0 || len(listed()) != 0 {
		t.Fatalf("an empty directory: models %v, voices %v", e.CloneModels(), listed())
	}

	add()
	rescan(true)
	rescan(false)
	if !slices.Equal(e.CloneModels(), []string{testModel}) || !slices.Equal(listed(), []string{testModel + ":alto", testModel + ":bass"}) {
		t.Fatalf("after adding the model: models %v, voices %v", e.CloneModels(), listed())
	}
	data, err := e.CloneVoice(context.Background(), engine.CloneRequest{Samples: recording(2, 200), SampleRate: SampleRate})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.LoadClone("mine", data); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(e, "mine"); err != nil {
		t.Fatalf("the clone: %v", err)
	}

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	rescan(true)
	if len(e.CloneModels()) != 0 || len(listed()) != 0 {
		t.Fatalf("after removing the model: models %v, voices %v", e.CloneModels(), listed())
	}
	var unsupported *engine.UnsupportedVoiceError
	if _, err := collect(e, "mine"); !errors.As(err, &unsupported) || !errors.Is(err, ErrUnknownModel) {
		t.Errorf("the clone of a removed model: %v, want an UnsupportedVoiceError", err)
	}
	if _, err := collect(e, testModel+":alto"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("a recording of a removed model: %v, want ErrUnknownVoice", err)
	}
	if err := e.LoadClone("later", data); err != nil {
		t.Errorf("LoadClone while the model is gone: %v", err)
	}

	add()
	rescan(true)
	for _, v := range []string{"mine", "later", testModel + ":alto"} {
		if n, err := collect(e, v); err != nil || n == 0 {
			t.Errorf("%s with the model back: %d samples, %v", v, n, err)
		}
	}
}

// TestRequestSeed: a request's seed replaces the voice's: the same seed
// gives the same audio whatever the voice's, another seed other audio.
func TestRequestSeed(t *testing.T) {
	e := loadGen(t)
	v, err := e.Clone(context.Background(), testModel, recording(2, 200), SampleRate, Settings{Temperature: 0.7, Steps: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	say := func(voiceSeed, seed int64) []float32 {
		t.Helper()
		w := *v
		w.Seed = voiceSeed
		var out []float32
		if err := e.SynthesizeVoice(context.Background(), &w, engine.Request{Text: "Say it the same way.", Seed: seed}, func(c engine.Chunk) error {
			out = append(out, c.Samples...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c, own := say(1, 42), say(0, 42), say(1, 43), say(1, 0)
	if len(a) != len(b) || maxLSB(a, b) != 0 {
		t.Error("seed 42 gave other audio with another voice seed")
	}
	if len(a) == len(c) && maxLSB(a, c) < 1 {
		t.Error("seeds 42 and 43 gave the same audio")
	}
	if len(a) == len(own) && maxLSB(a, own) < 1 {
		t.Error("seed 42 gave the voice's own seed's audio")
	}
}
