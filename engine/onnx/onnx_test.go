package onnx

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

func TestConformance(t *testing.T) {
	e := load(t, Options{VoicesDir: voicesDir})
	for _, voice := range []string{toneLow, toneVCTK + ":p259"} {
		t.Run(voice, func(t *testing.T) { enginetest.Run(t, e, voice) })
	}
}

// samplesPerID is what the tone model computes for a length scale.
func samplesPerID(lengthScale float32) int {
	return max(1, int(math.Floor(float64(lengthScale*tonePeriod+0.5))))
}

// TestSynthesizeIDs reads the id sequence back from the audio of a real
// espeak-ng phonemization and compares it with hand-checked ids.
func TestSynthesizeIDs(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	tests := []struct {
		text string
		want []int
	}{
		// "Hello, world!" -> "həlˈoʊ, wˈɜːld!"
		{"Hello, world!", []int{1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 8, 0, 3, 0,
			35, 0, 120, 0, 62, 0, 122, 0, 24, 0, 17, 0, 4, 0, 2}},
		// "Is it?" -> "ɪz ɪt?"
		{"Is it?", []int{1, 0, 74, 0, 38, 0, 3, 0, 74, 0, 32, 0, 13, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			audio, rate, chunks := collect(t, e, engine.Request{Voice: toneLow, Text: tt.text})
			if rate != 16000 || chunks != 1 {
				t.Fatalf("got %d chunks at %d Hz, want 1 at 16000", chunks, rate)
			}
			if len(audio) != len(tt.want)*tonePeriod {
				t.Errorf("got %d samples, want %d ids x %d", len(audio), len(tt.want), tonePeriod)
			}
			bins, _ := decodeTones(audio, tonePeriod)
			if !slices.Equal(bins, tt.want) {
				t.Errorf("ids read from the audio:\n got %v\nwant %v", bins, tt.want)
			}
		})
	}
}

// TestSentencesStream checks one chunk per sentence, each its own
// ^ ... $ sequence.
func TestSentencesStream(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	var chunks [][]int
	err := e.Synthesize(context.Background(), engine.Request{Voice: toneLow, Text: "Yes. No! Maybe?"}, func(c engine.Chunk) error {
		bins, _ := decodeTones(c.Samples, tonePeriod)
		chunks = append(chunks, bins)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	ends := []int{10, 4, 13} // . ! ?
	for i, ids := range chunks {
		n := len(ids)
		if n < 5 || ids[0] != 1 || ids[n-1] != 2 || ids[n-3] != ends[i] {
			t.Errorf("chunk %d: ids %v, want ^ … %d _ $", i, ids, ends[i])
		}
	}
}

func TestSpeakerRouting(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneVCTK)})
	list, err := e.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 109 {
		t.Fatalf("got %d voices, want 109 speakers", len(list))
	}
	for _, v := range list {
		if v.SampleRate != 22050 || v.Name != toneVCTK+":"+v.Speaker {
			t.Errorf("voice %s: speaker %q, rate %d; want speaker NAME:SPEAKER at 22050 Hz", v.Name, v.Speaker, v.SampleRate)
		}
	}
	d := samplesPerID(1.4) // the vctk config's length_scale
	base := []int(nil)
	tests := []struct {
		voice string
		sid   int
	}{
		{toneVCTK + ":p239", 0},
		{toneVCTK + ":p236", 1},
		{toneVCTK + ":p264", 2},
		{toneVCTK, 0}, // bare name: speaker 0
	}
	for _, tt := range tests {
		t.Run(tt.voice, func(t *testing.T) {
			audio, rate, _ := collect(t, e, engine.Request{Voice: tt.voice, Text: "Hello."})
			if rate != 22050 {
				t.Errorf("rate %d, want 22050", rate)
			}
			bins, _ := decodeTones(audio, d)
			if base == nil {
				base = bins
			}
			if len(bins) != len(base) {
				t.Fatalf("got %d ids, want %d", len(bins), len(base))
			}
			for i := range bins {
				want := base[i]
				if want != 0 {
					want += tt.sid
				}
				if bins[i] != want {
					t.Fatalf("segment %d: bin %d, want %d (sid %d)", i, bins[i], want, tt.sid)
				}
			}
		})
	}
	for _, v := range []string{toneVCTK + ":nobody", toneLow, toneVCTK + ":"} {
		err := e.Synthesize(context.Background(), engine.Request{Voice: v, Text: "Hi."}, func(engine.Chunk) error { return nil })
		if !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("voice %q: got %v, want ErrUnknownVoice", v, err)
		}
	}
}

// TestLengthScale checks that Prosody.Rate divides the config's
// length_scale and the inference defaults reach the model.
func TestLengthScale(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow, toneMedium)})
	tests := []struct {
		voice       string
		rate        float64
		lengthScale float32 // config's
		noiseScale  float64
	}{
		{toneLow, 0, 1, 0.667},
		{toneLow, 2, 1, 0.667},
		{toneLow, 0.5, 1, 0.667},
		{toneMedium, 1, 1.2, 0.667},
		{toneMedium, 1.5, 1.2, 0.667},
	}
	const text = "Read this."
	ids := 0
	for _, tt := range tests {
		audio, _, _ := collect(t, e, engine.Request{Voice: tt.voice, Text: text, Prosody: engine.Prosody{Rate: tt.rate}})
		ls := tt.lengthScale
		if tt.rate != 0 {
			ls /= float32(tt.rate)
		}
		d := samplesPerID(ls)
		bins, peak := decodeTones(audio, d)
		if ids == 0 {
			ids = len(bins)
		}
		if len(audio) != ids*d || len(bins) != ids {
			t.Errorf("%s rate %g: %d samples, want %d ids x %d", tt.voice, tt.rate, len(audio), ids, d)
		}
		if math.Abs(peak-tt.noiseScale/2) > 0.01 {
			t.Errorf("%s: peak %.3f, want noise_scale/2 = %.3f", tt.voice, peak, tt.noiseScale/2)
		}
	}
}

func TestGain(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	_, loud := decodeTones(must(collect(t, e, engine.Request{Voice: toneLow, Text: "Loud."})), tonePeriod)
	_, quiet := decodeTones(must(collect(t, e, engine.Request{Voice: toneLow, Text: "Loud.", Prosody: engine.Prosody{Gain: -6.0206}})), tonePeriod)
	_, silent := decodeTones(must(collect(t, e, engine.Request{Voice: toneLow, Text: "Loud.", Prosody: engine.Prosody{Gain: math.Inf(-1)}})), tonePeriod)
	if math.Abs(quiet/loud-0.5) > 0.01 || silent != 0 {
		t.Errorf("peaks: 0 dB %.3f, -6 dB %.3f, -inf %.3f", loud, quiet, silent)
	}
	if !engine.Renders(e, engine.FeatureGain) || engine.Renders(e, engine.FeaturePitch) {
		t.Error("the engine should declare that it renders gain and not pitch")
	}
}

func must(x []float32, _, _ int) []float32 { return x }

// TestRatesAt24k runs a 16 kHz and a 22.05 kHz voice through tts to 24 kHz
// pcm and checks length and pitch survive the resampling.
func TestRatesAt24k(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow, toneMedium)})
	var cat voices.Catalog
	for _, v := range []string{toneLow, toneMedium} {
		if err := cat.Add(voices.Voice{ID: v, Engine: "onnx", EngineVoice: v}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": e}, Voices: &cat})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		voice string
		rate  int
		ls    float32
	}{{toneLow, 16000, 1}, {toneMedium, 22050, 1.2}} {
		t.Run(tt.voice, func(t *testing.T) {
			native, _, _ := collect(t, e, engine.Request{Voice: tt.voice, Text: "Hello."})
			pcm, err := s.Synthesize(context.Background(), tt.voice, "Hello.", encode.Format{Name: "pcm", SampleRate: 24000})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]int16, len(pcm)/2)
			binary.Read(bytes.NewReader(pcm), binary.LittleEndian, out)
			want := float64(len(native)) * 24000 / float64(tt.rate)
			if math.Abs(float64(len(out))-want) > 2 {
				t.Errorf("got %d samples at 24 kHz, want %.0f", len(out), want)
			}
			// The "h" segment (id 20, third id) keeps its pitch in hertz.
			d := samplesPerID(tt.ls)
			hz := 20.0 / tonePeriod * float64(tt.rate)
			seg := make([]float32, d*24000/tt.rate-40)
			off := 2*d*24000/tt.rate + 20
			for i := range seg {
				seg[i] = float32(out[off+i]) / 32768
			}
			onTone := goertzel(seg, hz/24000)
			for _, other := range []float64{hz * 0.9, hz * 1.1} {
				if p := goertzel(seg, other/24000); p > onTone/20 {
					t.Errorf("power at %.0f Hz is %.3g, at the tone's %.0f Hz only %.3g", other, p, hz, onTone)
				}
			}
		})
	}
}

func TestRescan(t *testing.T) {
	dir := t.TempDir()
	e := load(t, Options{VoicesDir: dir})
	ctx := context.Background()
	names := func() []string {
		list, err := e.Voices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range list {
			out = append(out, v.Name)
		}
		return out
	}
	if n := names(); len(n) != 0 {
		t.Fatalf("empty directory gave voices %v", n)
	}
	copyVoice(t, dir, toneLow, "en_US-dropped-low")
	changed, err := e.Rescan(ctx)
	if err != nil || !changed {
		t.Fatalf("Rescan: changed %v, err %v", changed, err)
	}
	if n := names(); !slices.Equal(n, []string{"en_US-dropped-low"}) {
		t.Fatalf("after adding: voices %v", n)
	}
	if audio, rate, _ := collect(t, e, engine.Request{Voice: "en_US-dropped-low", Text: "Hi."}); len(audio) == 0 || rate != 16000 {
		t.Errorf("new voice: %d samples at %d Hz", len(audio), rate)
	}
	if changed, err := e.Rescan(ctx); err != nil || changed {
		t.Errorf("Rescan without changes: changed %v, err %v", changed, err)
	}
	// A broken voice is reported and left out; the good one stays.
	os.WriteFile(filepath.Join(dir, "broken.onnx"), []byte("not a model"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.onnx.json"), []byte("{}"), 0o644)
	if _, err := e.Rescan(ctx); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("Rescan with a broken voice: err %v", err)
	}
	os.Remove(filepath.Join(dir, "broken.onnx"))
	os.Remove(filepath.Join(dir, "broken.onnx.json"))
	os.Remove(filepath.Join(dir, "en_US-dropped-low.onnx"))
	os.Remove(filepath.Join(dir, "en_US-dropped-low.onnx.json"))
	if changed, err := e.Rescan(ctx); err != nil || !changed {
		t.Errorf("Rescan after removal: changed %v, err %v", changed, err)
	}
	if n := names(); len(n) != 0 {
		t.Errorf("after removal: voices %v", n)
	}
	err = e.Synthesize(ctx, engine.Request{Voice: "en_US-dropped-low", Text: "Hi."}, func(engine.Chunk) error { return nil })
	if !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("removed voice: got %v, want ErrUnknownVoice", err)
	}
}

// TestModelLoadsOnce checks that 109 speaker voices share one model.
func TestModelLoadsOnce(t *testing.T) {
	e := load(t, Options{VoicesDir: voicesDir})
	list, _ := e.Voices(context.Background())
	if len(list) != 2+109 || len(e.models) != 3 {
		t.Errorf("%d voices from %d models, want 111 from 3", len(list), len(e.models))
	}
}

func TestLoadErrors(t *testing.T) {
	lib := testLibrary(t)
	ph := phonemizer(t)
	missing := filepath.Join(t.TempDir(), "missing")
	model, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx"))
	config, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx.json"))
	write := func(dir, name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(dir string) // fills the voices dir
		opts  Options
		want  string
		is    error
	}{
		{name: "missing library", opts: Options{LibraryPath: filepath.Join(missing, "libonnxruntime.so.1")},
			want: "install-onnxruntime.sh", is: ErrLibraryNotFound},
		{name: "missing model", setup: func(dir string) { write(dir, "v.onnx.json", config) },
			want: "has no model"},
		{name: "missing config", setup: func(dir string) { write(dir, "v.onnx", model) },
			want: "v.onnx.json"},
		{name: "corrupt model", setup: func(dir string) {
			write(dir, "v.onnx", model[:len(model)/2])
			write(dir, "v.onnx.json", config)
		}, want: "voice v: model"},
		{name: "bad config", setup: func(dir string) {
			write(dir, "v.onnx", model)
			write(dir, "v.onnx.json", config[:len(config)/2])
		}, want: "bad voice config", is: ErrBadConfig},
		{name: "config that does not fit the model", setup: func(dir string) {
			vctk, _ := os.ReadFile(filepath.Join(voicesDir, toneVCTK+".onnx.json"))
			write(dir, "v.onnx", model) // has no sid input
			write(dir, "v.onnx.json", vctk)
		}, want: "does not fit the model"},
		{name: "no phonemizer", setup: func(dir string) {
			write(dir, "v.onnx", model)
			write(dir, "v.onnx.json", config)
		}, opts: Options{Phonemizer: nil}, want: "needs a phonemizer"},
		{name: "missing directory", opts: Options{VoicesDir: missing}, want: "voices directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts.LibraryPath == "" {
				opts.LibraryPath = lib
			}
			if opts.VoicesDir == "" {
				opts.VoicesDir = t.TempDir()
			}
			if tt.setup != nil {
				tt.setup(opts.VoicesDir)
				if tt.name != "no phonemizer" {
					opts.Phonemizer = ph
				}
			}
			opts.Strict = true
			e, err := Load(context.Background(), opts)
			if err == nil {
				e.Close()
				t.Fatal("Load succeeded")
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), tt.want) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Load error %q, want it to mention %q (and wrap %v)", err, tt.want, tt.is)
			}
		})
	}
}

// TestLoadLeavesOutBadVoices: without Strict, voices that cannot load
// (each kind TestLoadErrors lists) are logged and left out, and a good
// voice beside them serves.
func TestLoadLeavesOutBadVoices(t *testing.T) {
	dir := t.TempDir()
	copyVoice(t, dir, toneLow, "good")
	model, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx"))
	config, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx.json"))
	vctk, _ := os.ReadFile(filepath.Join(voicesDir, toneVCTK+".onnx.json"))
	kokoro, _ := os.ReadFile(filepath.Join("testdata", "kokoro", "kokoro-v1.0.onnx"))
	for name, data := range map[string][]byte{
		"noconfig.onnx":       model,
		"nomodel.onnx.json":   config,
		"corrupt.onnx":        model[:len(model)/2],
		"corrupt.onnx.json":   config,
		"badconfig.onnx":      model,
		"badconfig.onnx.json": config[:len(config)/2],
		"misfit.onnx":         model,
		"misfit.onnx.json":    vctk,
		"other.onnx":          kokoro, // a Kokoro model without voice packs
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	e, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	defer e.Close()
	list, _ := e.Voices(context.Background())
	if len(list) != 1 || list[0].Name != "good" {
		t.Errorf("voices %+v, want good alone", list)
	}
	if audio, _, _ := collect(t, e, engine.Request{Voice: "good", Text: "Hi."}); len(audio) == 0 {
		t.Error("the good voice is silent")
	}
	for _, name := range []string{"noconfig", "nomodel", "corrupt", "badconfig", "misfit", "other"} {
		if !strings.Contains(log.String(), name) {
			t.Errorf("the log does not name %s:\n%s", name, log.String())
		}
	}
}

// TestLoadRefusesNamedModels: a model the caller named in Options.Models
// that cannot be read into the catalog fails Load, Strict or not (the
// caller asked for that voice: a warning in a log and an unknown voice at
// the first request would hide the mistake), while a bad voice found in
// VoicesDir is still left out with a warning (TestLoadLeavesOutBadVoices).
func TestLoadRefusesNamedModels(t *testing.T) {
	dir := t.TempDir()
	copyVoice(t, dir, toneLow, "named")
	for name, opts := range map[string]Options{
		"no phonemizer": {Models: []string{filepath.Join(dir, "named.onnx")}},
		"missing file":  {Models: []string{filepath.Join(dir, "absent.onnx")}, Phonemizer: phonemizer(t)},
		"not .onnx":     {Models: []string{filepath.Join(dir, "named.onnx.json")}, Phonemizer: phonemizer(t)},
	} {
		t.Run(name, func(t *testing.T) {
			opts.LibraryPath = testLibrary(t)
			opts.Logger = slog.New(slog.DiscardHandler)
			e, err := Load(context.Background(), opts)
			if err == nil {
				list, _ := e.Voices(context.Background())
				e.Close()
				t.Fatalf("Load succeeded with voices %+v", list)
			}
			if !strings.Contains(err.Error(), "onnx: ") {
				t.Errorf("Load error %q", err)
			}
		})
	}
}

// TestBadLibrary loads a file that is not ONNX Runtime, in a fresh process
// since the runtime can only be initialized once per process.
func TestBadLibrary(t *testing.T) {
	if path := os.Getenv("VOXKIT_ONNX_BAD_LIBRARY"); path != "" {
		_, err := Load(context.Background(), Options{LibraryPath: path})
		if err == nil || !strings.Contains(err.Error(), "cannot load ONNX Runtime") || !strings.Contains(err.Error(), "install-onnxruntime.sh") {
			t.Fatalf("Load with a bad library: %v", err)
		}
		return
	}
	bad := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	os.WriteFile(bad, []byte("not a library"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBadLibrary$", "-test.v")
	cmd.Env = append(os.Environ(), "VOXKIT_ONNX_BAD_LIBRARY="+bad)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBadLibrary") {
		t.Errorf("child process: %v\n%s", err, out)
	}
}

func TestFindLibrary(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "voxkit", "onnxruntime", "libonnxruntime.so.1")
	os.MkdirAll(filepath.Dir(lib), 0o755)
	os.WriteFile(lib, []byte("x"), 0o644)
	t.Setenv("XDG_CACHE_HOME", dir)
	if got, err := FindLibrary(""); err != nil || got != lib {
		t.Errorf("FindLibrary with XDG_CACHE_HOME: %q, %v; want %q", got, err, lib)
	}
	if got, err := FindLibrary(lib); err != nil || got != lib {
		t.Errorf("FindLibrary(explicit): %q, %v", got, err)
	}
	if _, err := FindLibrary(filepath.Join(dir, "nope.so")); !errors.Is(err, ErrLibraryNotFound) {
		t.Errorf("FindLibrary(missing): %v", err)
	}
}

// TestClosed: after Close, a call fails with engine.ErrClosed, not as
// for a voice the engine lacks.
func TestClosed(t *testing.T) {
	enginetest.RunClosed(t, load(t, Options{Models: fixtureModels(toneLow)}), toneLow)
}

func TestCloseUnloads(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	err := e.Synthesize(context.Background(), engine.Request{Voice: toneLow, Text: "Hi."}, func(engine.Chunk) error { return nil })
	if err == nil {
		t.Error("Synthesize after Close succeeded")
	}
	if _, err := e.Rescan(context.Background()); err == nil {
		t.Error("Rescan after Close succeeded")
	}
}

// TestRescanWhileSpeaking swaps a voice in and out while requests run:
// each request either completes or fails with ErrUnknownVoice.
func TestRescanWhileSpeaking(t *testing.T) {
	dir := t.TempDir()
	copyVoice(t, dir, toneLow, "v")
	e := load(t, Options{VoicesDir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				err := e.Synthesize(context.Background(), engine.Request{Voice: "v", Text: "One. Two. Three."}, func(engine.Chunk) error { return nil })
				if err != nil && !errors.Is(err, engine.ErrUnknownVoice) {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 20 {
		if i%2 == 0 {
			os.Remove(filepath.Join(dir, "v.onnx"))
			os.Remove(filepath.Join(dir, "v.onnx.json"))
		} else {
			copyVoice(t, dir, toneLow, "v")
		}
		if _, err := e.Rescan(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTextPhonemes: a voice with phoneme_type "text" reads the text's own
// codepoints and needs no phonemizer.
func TestTextPhonemes(t *testing.T) {
	dir := t.TempDir()
	copyVoice(t, dir, toneLow, "v")
	cfg := configJSON(t, func(r map[string]any) { r["phoneme_type"] = "text" })
	if err := os.WriteFile(filepath.Join(dir, "v.onnx.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), VoicesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	audio, _, _ := collect(t, e, engine.Request{Voice: "v", Text: "Ab c."})
	bins, _ := decodeTones(audio, tonePeriod)
	// "A" has no id; b15 space3 c16 .10
	if want := []int{1, 0, 15, 0, 3, 0, 16, 0, 10, 0, 2}; !slices.Equal(bins, want) {
		t.Errorf("ids %v, want %v", bins, want)
	}
}

// TestRescanUnreadableDir keeps the loaded voices when the directory
// cannot be read.
func TestRescanUnreadableDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "voices")
	os.Mkdir(dir, 0o755)
	copyVoice(t, dir, toneLow, "v")
	e := load(t, Options{VoicesDir: dir})
	os.Rename(dir, dir+".moved")
	if changed, err := e.Rescan(context.Background()); err == nil || changed {
		t.Errorf("Rescan of a missing directory: changed %v, err %v", changed, err)
	}
	if list, _ := e.Voices(context.Background()); len(list) != 1 {
		t.Errorf("voices after a failed rescan: %v", list)
	}
}

// The bare name of a multi-speaker model is its first speaker, in a
// catalog too: the engine resolves it though Voices does not list it.
func TestBareMultiSpeakerName(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneVCTK)})
	v, err := e.ResolveVoice(toneVCTK)
	if err != nil || v.Name != toneVCTK {
		t.Fatalf("ResolveVoice(%s) = %+v, %v", toneVCTK, v, err)
	}
	var cat voices.Catalog
	if err := cat.AddEngine(context.Background(), "onnx", e, time.Now()); err != nil {
		t.Fatal(err)
	}
	if cv, err := cat.Lookup("", toneVCTK); err != nil || cv.EngineVoice != toneVCTK {
		t.Errorf("catalog Lookup(%s) = %+v, %v", toneVCTK, cv, err)
	}
	var first string
	for name, id := range e.models[toneVCTK].cfg.Speakers {
		if id == 0 {
			first = toneVCTK + SpeakerSep + name
		}
	}
	bare, _, _ := collect(t, e, engine.Request{Voice: toneVCTK, Text: "Hi."})
	want, _, _ := collect(t, e, engine.Request{Voice: first, Text: "Hi."})
	if len(bare) == 0 || !slices.Equal(bare, want) {
		t.Errorf("the bare name (%d samples) does not speak as the first speaker %s (%d)", len(bare), first, len(want))
	}
}
