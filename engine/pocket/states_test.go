package pocket

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
)

// kvModel generates a model whose lm_main has the published export's
// state layout, a KV cache written whole by every run (gen/pocket.py --kv:
// one layer, a 2 MB cache), into a directory of its own, once per test
// binary (engines only read it).
func kvModel(t *testing.T) string {
	t.Helper()
	root, err := kvShared.Dir("pocket-kv-", func(root string) error {
		dir := filepath.Join(root, "pocket-kv")
		if out, err := exec.Command("/usr/bin/python3", "testdata/gen/pocket.py", "--kv", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("%w\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	return filepath.Join(root, "pocket-kv")
}

// kvShared is kvModel's directory, removed by TestMain.
var kvShared onnxtest.Shared

// kvCacheBytes is the size of the --kv model's cache: [2, 1, 2000, 2, 64]
// float32.
const kvCacheBytes = 2 * 2000 * 2 * 64 * 4

// TestParityKVCache: a model whose states are a KV cache, which voxkit's
// runs write in place, speaks a piece as sherpa-onnx speaks it; and since
// each piece's first run only reads the voice's primed states, a text of
// several pieces is the pieces spoken one by one.
func TestParityKVCache(t *testing.T) {
	p := findPeer(t)
	dir := kvModel(t)
	e := load(t, Options{Models: []string{dir}, Threads: 1})
	wav := filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav")
	text := parityTexts[0]
	want := p.run(t, peerRequest{Model: dir, Threads: 1, Reference: wav, Texts: []string{text}, Steps: 4})[0]
	v := cloneFileWith(t, e, "pocket-kv", wav, Settings{Steps: 4})
	if got := speak(t, e, v, text); len(got) != len(want) {
		t.Errorf("%q: %d samples, sherpa-onnx %d", text, len(got), len(want))
	} else if d := maxLSB(got, want); d > 1 {
		t.Errorf("%q: differs from sherpa-onnx by up to %.2f LSB", text, d)
	}
	pieces := []string{"The first sentence is long enough to stand alone.", "The second one follows it and is longer than the first!", "This one is long enough to end the text as a piece."}
	var one []float32
	for _, piece := range pieces {
		one = append(one, speak(t, e, v, piece)...)
	}
	if all := speak(t, e, v, strings.Join(pieces, " ")); len(all) != len(one) || maxLSB(all, one) != 0 {
		t.Errorf("three pieces in one text: %d samples, not the %d of the pieces spoken one by one", len(all), len(one))
	}
}

// TestStatesNotCopiedPerPiece: lm_main's states are written in place, so
// a piece costs no copy of them. The Go memory a text allocates grows by
// less than one state's size per piece (the audio and the runs' small
// tensors); copying the primed states for a piece, or letting ORT allocate
// a piece's first states (which the Go binding copies), costs more.
func TestStatesNotCopiedPerPiece(t *testing.T) {
	dir := kvModel(t)
	e := load(t, Options{Models: []string{dir}, Threads: 1})
	v := cloneFileWith(t, e, "pocket-kv", filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav"), Settings{Steps: 1})
	sentence := "This sentence is long enough to be a piece of its own. "
	allocated := func(pieces int) (bytes uint64, samples int) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: strings.Repeat(sentence, pieces)}, func(c engine.Chunk) error {
			samples += len(c.Samples)
			return nil
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, samples
	}
	allocated(1) // warm up
	one, oneSamples := allocated(1)
	five, fiveSamples := allocated(5)
	if fiveSamples != 5*oneSamples {
		t.Fatalf("five pieces gave %d samples, one %d", fiveSamples, oneSamples)
	}
	perPiece := (five - one) / 4
	t.Logf("%d bytes per piece of %d samples (a state is %d bytes)", perPiece, oneSamples, kvCacheBytes)
	if perPiece >= kvCacheBytes {
		t.Errorf("each piece allocates %d bytes, at least one state's %d: its states are copied", perPiece, kvCacheBytes)
	}
}

// TestStatesKeptAcrossCalls: a model keeps lm_main's sets of states from
// call to call (tts speaks a text sentence by sentence, one call each), so
// a call after the first allocates less than one state's size: no zero
// states, no set for the voice's primed states, none for the piece's.
func TestStatesKeptAcrossCalls(t *testing.T) {
	dir := kvModel(t)
	e := load(t, Options{Models: []string{dir}, Threads: 1})
	v := cloneFileWith(t, e, "pocket-kv", filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav"), Settings{Steps: 1})
	call := func() uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: "This sentence is long enough to be a piece of its own."}, func(engine.Chunk) error { return nil }); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	call() // the first call makes the sets
	for i := range 3 {
		if n := call(); n >= kvCacheBytes {
			t.Errorf("call %d allocated %d bytes, at least one state's %d: the states are made anew per call", i+2, n, kvCacheBytes)
		} else {
			t.Logf("call %d allocated %d bytes (a state is %d)", i+2, n, kvCacheBytes)
		}
	}
}

// TestPrimedKeptPerVoice: the voice's latents are run through lm_main once
// for the calls that speak it while it is among the last maxPrimed voices
// spoken (sherpa-onnx runs them for every piece); voices coming and going,
// and calls at once, give the samples a fresh engine gives.
func TestPrimedKeptPerVoice(t *testing.T) {
	dir := kvModel(t)
	e := load(t, Options{Models: []string{dir}, Threads: 1})
	fresh := load(t, Options{Models: []string{dir}, Threads: 1})
	wavs := filepath.Join(voicesDir(t), testModel, "test_wavs")
	voices := map[string]*Voice{
		"alto": cloneFileWith(t, e, "pocket-kv", filepath.Join(wavs, "alto.wav"), Settings{Steps: 2}),
		"bass": cloneFileWith(t, e, "pocket-kv", filepath.Join(wavs, "bass.wav"), Settings{Steps: 2}),
	}
	tenor, err := e.Clone(context.Background(), "pocket-kv", recording(3, 330), SampleRate, Settings{Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	voices["tenor"] = tenor
	text := "Hello world, this is a test of the cloned voice."
	if testing.Short() {
		text = "Hello world." // make test speaks the longer text
	}
	want := map[string][]float32{}
	for name, v := range voices {
		want[name] = speak(t, fresh, v, text)
	}
	if maxLSB(want["alto"], want["bass"]) == 0 {
		t.Fatal("alto and bass speak alike")
	}
	primes := 0
	primeRan = func() { primes++ }
	t.Cleanup(func() { primeRan = nil })
	check := func(name string) {
		t.Helper()
		if got := speak(t, e, voices[name], text); len(got) != len(want[name]) || maxLSB(got, want[name]) != 0 {
			t.Errorf("%s: %d samples, not the %d a fresh engine gives", name, len(got), len(want[name]))
		}
	}
	for _, name := range []string{"alto", "alto", "bass", "alto", "bass"} {
		check(name)
	}
	same := *voices["alto"] // another Voice value with alto's latents
	if got := speak(t, e, &same, text); maxLSB(got, want["alto"]) != 0 {
		t.Error("a copy of alto speaks otherwise")
	}
	if primes != 2 {
		t.Errorf("alto, alto, bass, alto, bass and a copy of alto ran a voice's latents %d times, want 2 (once per voice)", primes)
	}
	primeRan = nil
	for _, name := range []string{"tenor", "alto", "bass", "tenor"} { // past maxPrimed: voices are forgotten and primed again
		check(name)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		name := []string{"alto", "bass", "tenor"}[i%3]
		wg.Go(func() {
			var got []float32
			err := e.SynthesizeVoice(context.Background(), voices[name], engine.Request{Text: text}, func(c engine.Chunk) error {
				got = append(got, c.Samples...)
				return nil
			})
			if err != nil || maxLSB(got, want[name]) != 0 || len(got) != len(want[name]) {
				t.Errorf("%s at once with others: %v, %d samples, want the %d a fresh engine gives", name, err, len(got), len(want[name]))
			}
		})
	}
	wg.Wait()
}

// TestNoStepPastTheEnd: a piece's end is known from earlier frames, so
// the step that ends it runs nothing (sherpa-onnx runs lm_main and lm_flow
// for it and discards them): a piece of a voice already primed runs
// lm_main once for its text and once per frame, lm_flow steps times per
// frame.
func TestNoStepPastTheEnd(t *testing.T) {
	e := loadGen(t)
	v := cloneFile(t, e, filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav"), Settings{Steps: 3, Temperature: 0.7, Seed: 5})
	m, err := e.model(testModel)
	if err != nil {
		t.Fatal(err)
	}
	speak(t, e, v, parityTexts[0]) // primes the voice
	var frames, mains, flows int
	frameMade = func() { frames++ }
	sessionRan = func(s *session) {
		switch s {
		case m.lmMain:
			mains++
		case m.lmFlow:
			flows++
		}
	}
	speak(t, e, v, parityTexts[0])
	frameMade, sessionRan = nil, nil
	if frames == 0 || mains != frames+1 || flows != 3*frames {
		t.Errorf("%d frames ran lm_main %d times and lm_flow %d times, want %d and %d", frames, mains, flows, frames+1, 3*frames)
	}
}
