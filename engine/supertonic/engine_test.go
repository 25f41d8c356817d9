package supertonic

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
)

const text = "Hello world, this is a test."

// TestLayouts: sherpa-onnx's release layout (fp32 or int8 file names) and
// Supertone's own (onnx/ and voice_styles/) of the same weights and voices
// speak the same samples.
func TestLayouts(t *testing.T) {
	sherpa := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	want := say(t, sherpa, "st:M2", text, 1, 3, 11)
	for _, flags := range [][]string{{"--small", "--int8"}, {"--small", "--upstream"}} {
		e := load(t, Options{VoicesDir: genModel(t, "st", flags...)})
		if got := say(t, e, "st:M2", text, 1, 3, 11); !slices.Equal(got, want) {
			t.Errorf("%v: %d samples unlike sherpa-onnx's layout's %d (within %.1f LSB)", flags, len(got), len(want), maxLSB(got, want))
		}
	}
}

// TestLayoutFiles: a model directory is found in either layout and named
// by its directory; directories that are not models are left alone.
func TestLayoutFiles(t *testing.T) {
	for _, flags := range [][]string{{"--small"}, {"--small", "--int8"}, {"--small", "--upstream"}} {
		e := load(t, Options{VoicesDir: genModel(t, "st", flags...)})
		if got := e.Models(); !slices.Equal(got, []string{"st"}) {
			t.Errorf("%v: models %v", flags, got)
		}
		vs, err := e.Voices(context.Background())
		if err != nil || len(vs) != 10*31 {
			t.Fatalf("%v: %d voices, %v", flags, len(vs), err)
		}
		if v := vs[0]; v.Name != "st:F1" || v.Language != "en" || v.SampleRate != 44100 || v.Speaker != "F1" {
			t.Errorf("%v: first voice %+v", flags, v)
		}
	}
}

// TestVersions: Supertonic 1 (an indexer without Hangul or Cyrillic) reads
// the text bare, 2 and 3 wrap it in the language's tags; each speaks its
// languages only.
func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		version string
		langs   int
		tagged  bool
	}{{"1", 1, false}, {"2", 5, true}, {"3", 31, true}} {
		e := load(t, Options{VoicesDir: genModel(t, "v"+tc.version, "--small", "--version", tc.version)})
		m := e.models["v"+tc.version]
		if m.version != int(tc.version[0]-'0') || len(m.langs) != tc.langs {
			t.Errorf("version %s: read as version %d speaking %v", tc.version, m.version, m.langs)
		}
		want := "Hi."
		if tc.tagged {
			want = "<en>Hi.</en>"
		}
		if ids := m.ids("Hi", "en"); !slices.Equal(ids, lookup(m, want)) {
			t.Errorf("version %s: ids %v, want those of %q", tc.version, ids, want)
		}
		_, err := e.ResolveVoice("v" + tc.version + ":F1:de")
		if speaksDE := err == nil; speaksDE != (tc.version == "3") {
			t.Errorf("version %s: F1:de resolves: %v", tc.version, err)
		}
	}
}

// TestLanguage: a German voice of a Supertonic 3 model reads its text in
// <de> tags (as sherpa-onnx does with lang de), and speaks other samples
// than the English voice.
func TestLanguage(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	m := e.models["st"]
	ids := m.ids("Guten Tag", "de")
	if want := lookup(m, "<de>Guten Tag.</de>"); !slices.Equal(ids, want) {
		t.Errorf("de: ids %v, want those of <de>Guten Tag.</de>, %v", ids, want)
	}
	de := say(t, e, "st:F1:de", "Guten Tag", 1, 2, 3)
	en := say(t, e, "st:F1", "Guten Tag", 1, 2, 3)
	if slices.Equal(de, en) {
		t.Error("st:F1:de and st:F1 speak the same samples")
	}
	v, err := e.ResolveVoice("st:F1:de")
	if err != nil || v.Language != "de" {
		t.Errorf("ResolveVoice(st:F1:de) = %+v, %v", v, err)
	}
	for _, bad := range []string{"st:F9", "nope:F1", "st:F1:xx", "st"} {
		if _, err := e.ResolveVoice(bad); !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("ResolveVoice(%q): %v, want ErrUnknownVoice", bad, err)
		}
	}
}

// TestSpeed: the rate divides the predicted duration (the samples halve
// at rate 2) down to 0.1 s.
func TestSpeed(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	normal := say(t, e, "st:F3", text, 1, 2, 5)
	fast := say(t, e, "st:F3", text, 2, 2, 5)
	if d := len(normal)/2 - len(fast); d < 0 || d > 1 {
		t.Errorf("rate 2: %d samples, rate 1 %d", len(fast), len(normal))
	}
	if got := len(say(t, e, "st:F3", text, 1000, 2, 5)); got != 4410 {
		t.Errorf("rate 1000: %d samples, want 0.1 s (4410)", got)
	}
}

// TestSteps: the number of flow steps changes the audio, not its length;
// 0 means the engine's (Options.Steps, else 5); the same seed gives the
// same samples and another seed others.
func TestSteps(t *testing.T) {
	voices := genModel(t, "st", "--small")
	e := load(t, Options{VoicesDir: voices})
	five := say(t, e, "st:F1", text, 1, 5, 9)
	one := say(t, e, "st:F1", text, 1, 1, 9)
	if len(one) != len(five) || slices.Equal(one, five) {
		t.Errorf("1 step: %d samples, 5 steps %d (equal: %v)", len(one), len(five), slices.Equal(one, five))
	}
	if got := say(t, e, "st:F1", text, 1, 0, 9); !slices.Equal(got, five) {
		t.Error("0 steps are not the default 5")
	}
	if got := say(t, e, "st:F1", text, 1, 5, 9); !slices.Equal(got, five) {
		t.Error("the same seed gave other samples")
	}
	if got := say(t, e, "st:F1", text, 1, 5, 10); slices.Equal(got, five) {
		t.Error("another seed gave the same samples")
	}
	three := load(t, Options{VoicesDir: voices, Steps: 3})
	if got, want := say(t, three, "st:F1", text, 1, 0, 9), say(t, e, "st:F1", text, 1, 3, 9); !slices.Equal(got, want) {
		t.Error("Options.Steps 3 is not 3 steps")
	}
}

// TestChunksAndSilence: text over 300 characters is spoken in chunks, each
// its own engine.Chunk, the second starting with 0.3 s of silence.
func TestChunksAndSilence(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	long := strings.Repeat("A sentence of some length, to fill the chunk. ", 8)
	var chunks [][]float32
	err := e.Synthesize(context.Background(), engine.Request{Voice: "st:F1", Text: long, Seed: 1}, func(c engine.Chunk) error {
		chunks = append(chunks, slices.Clone(c.Samples))
		return nil
	})
	if err != nil || len(chunks) != 2 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
	if z := slices.IndexFunc(chunks[1], func(x float32) bool { return x != 0 }); z != 13230 {
		t.Errorf("the second chunk starts with %d zeros, want 13230", z)
	}
}

// TestConformance runs the engine through enginetest's suite.
func TestConformance(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	enginetest.Run(t, e, "st:F1")
}

// TestClosed: after Close, a call fails with engine.ErrClosed.
func TestClosed(t *testing.T) {
	enginetest.RunClosed(t, load(t, Options{VoicesDir: genModel(t, "st", "--small")}), "st:F1")
}

// lookup returns the indexer's ids of s's code points, as they are.
func lookup(m *model, s string) []int64 {
	var ids []int64
	for _, r := range s {
		ids = append(ids, int64(m.indexer[r]))
	}
	return ids
}

// TestWords: words asked for are estimated over each chunk's speech, the
// silence between chunks left out, and enginetest's checks hold.
func TestWords(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	long := strings.Repeat("A sentence of some length, to fill the chunk. ", 8)
	c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "st:F1", Text: long, Words: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWords(t, long, c)
	if n := len(c.Words); n != len(strings.Fields(long)) {
		t.Errorf("%d words timed, want %d", n, len(strings.Fields(long)))
	}
	var first []engine.Word
	e.Synthesize(context.Background(), engine.Request{Voice: "st:F1", Text: long, Words: true, Seed: 1}, func(ch engine.Chunk) error {
		if first != nil && len(ch.Words) > 0 && ch.Words[0].From < first[len(first)-1].To+13230 {
			t.Errorf("the second chunk's first word starts at %d, in the silence after %d", ch.Words[0].From, first[len(first)-1].To)
		}
		if first == nil {
			first = ch.Words
		}
		return nil
	})
}

// TestRescan: a model directory added to the voices directory is served
// after a rescan, and one removed goes.
func TestRescan(t *testing.T) {
	gen := filepath.Join(genModel(t, "st", "--small"), "st")
	voices := t.TempDir()
	e := load(t, Options{VoicesDir: voices})
	if len(e.Models()) != 0 {
		t.Fatalf("models %v in an empty directory", e.Models())
	}
	if err := os.Symlink(gen, filepath.Join(voices, "added")); err != nil {
		t.Fatal(err)
	}
	if changed, err := e.Rescan(context.Background()); !changed || err != nil {
		t.Fatalf("rescan after adding: %v, %v", changed, err)
	}
	if got := say(t, e, "added:F1", "Hi there.", 1, 2, 1); len(got) == 0 {
		t.Error("the added model speaks nothing")
	}
	if changed, err := e.Rescan(context.Background()); changed || err != nil {
		t.Errorf("rescan of nothing new: %v, %v", changed, err)
	}
	if err := os.Remove(filepath.Join(voices, "added")); err != nil {
		t.Fatal(err)
	}
	if changed, err := e.Rescan(context.Background()); !changed || err != nil {
		t.Fatalf("rescan after removing: %v, %v", changed, err)
	}
	err := e.Synthesize(context.Background(), engine.Request{Voice: "added:F1", Text: "Hi."}, func(engine.Chunk) error { return nil })
	if !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("speaking with a removed model: %v", err)
	}
}

// TestMemory: an open model counts its four graphs' bytes in
// Options.Memory until a rescan finds it gone or the engine closes.
func TestMemory(t *testing.T) {
	gen := filepath.Join(genModel(t, "st", "--small"), "st")
	var want int64
	for _, p := range parts {
		st, err := os.Stat(filepath.Join(gen, p+".onnx"))
		if err != nil {
			t.Fatal(err)
		}
		want += st.Size()
	}
	voices := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.Symlink(gen, filepath.Join(voices, name)); err != nil {
			t.Fatal(err)
		}
	}
	mem := onnx.NewMemory(0)
	e, err := Load(context.Background(), Options{LibraryPath: onnxtest.Library(t), VoicesDir: voices, Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := mem.Used(); got != 2*want {
		t.Errorf("two models count %d bytes, want %d", got, 2*want)
	}
	os.Remove(filepath.Join(voices, "b"))
	if _, err := e.Rescan(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := mem.Used(); got != want {
		t.Errorf("after one went, %d bytes, want %d", got, want)
	}
	e.Close()
	e.Close()
	if got := mem.Used(); got != 0 {
		t.Errorf("closed, %d bytes", got)
	}
}
