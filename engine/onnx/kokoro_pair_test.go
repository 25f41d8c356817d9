package onnx

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

func TestFileVersion(t *testing.T) {
	for name, want := range map[string]string{
		"kokoro-v1.0.onnx":          "v1.0",
		"kokoro-v1.0.int8.onnx":     "v1.0",
		"kokoro-v1.0.fp16.onnx":     "v1.0",
		"kokoro-v1.0.fp16-gpu.onnx": "v1.0",
		"kokoro-v1.0-fp16.onnx":     "v1.0",
		"voices-v1.0.bin":           "v1.0",
		"Voices-V1.0.npz":           "v1.0",
		"kokoro-v1.1-zh.onnx":       "v1.1-zh",
		"voices-v1.1-zh.bin":        "v1.1-zh",
		"kokoro-v0_19.onnx":         "v0_19",
		"voices.bin":                "",
		"kokoro.onnx":               "",
		"voices-v2.bin":             "v2",
		"vocoder.onnx":              "",
	} {
		if got := fileVersion(name); got != want {
			t.Errorf("fileVersion(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestPairPacks covers pairPacks's rules on file names alone.
func TestPairPacks(t *testing.T) {
	tests := []struct {
		name          string
		model         string
		models, packs []string
		want          string // the pack, or "" for an error
		reason        string // in the error
	}{
		{"as downloaded", "kokoro-v1.0.onnx", nil, []string{"voices-v1.0.bin"}, "voices-v1.0.bin", ""},
		{"int8", "kokoro-v1.0.int8.onnx", nil, []string{"voices-v1.0.bin"}, "voices-v1.0.bin", ""},
		{"fp16", "kokoro-v1.0.fp16.onnx", nil, []string{"voices-v1.0.bin"}, "voices-v1.0.bin", ""},
		{"two releases", "kokoro-v1.1-zh.onnx", []string{"kokoro-v1.0.onnx"}, []string{"voices-v1.0.bin", "voices-v1.1-zh.bin"}, "voices-v1.1-zh.bin", ""},
		{"two releases, the other", "kokoro-v1.0.onnx", []string{"kokoro-v1.1-zh.onnx"}, []string{"voices-v1.0.bin", "voices-v1.1-zh.bin"}, "voices-v1.0.bin", ""},
		{"version beside a stray pack", "kokoro-v1.0.onnx", nil, []string{"voices-v1.0.bin", "old.bin"}, "voices-v1.0.bin", ""},
		{"one pack, no version", "kokoro-v0_19.onnx", nil, []string{"voices.bin"}, "voices.bin", ""},
		{"renamed model", "kokoro.onnx", nil, []string{"voices-v1.0.bin"}, "voices-v1.0.bin", ""},
		{"npz", "model.onnx", nil, []string{"packs.npz"}, "packs.npz", ""},
		{"unversioned model beside a versioned pair", "mine.onnx", []string{"kokoro-v1.0.onnx"}, []string{"voices-v1.0.bin", "mine-packs.bin"}, "mine-packs.bin", ""},

		{"no pack", "kokoro-v1.0.onnx", nil, nil, "", "no voice pack file"},
		{"another release's pack", "kokoro-v1.0.onnx", nil, []string{"voices-v1.1-zh.bin"}, "", "another release's version"},
		{"two packs of the version", "kokoro-v1.0.onnx", nil, []string{"voices-v1.0.bin", "voices-v1.0.npz"}, "", "more than one pack file has its version v1.0"},
		{"two packs, no version", "kokoro.onnx", nil, []string{"a.bin", "b.bin"}, "", "more than one pack file beside it"},
		{"two models of the version", "kokoro-v1.0.onnx", []string{"kokoro-v1.0.int8.onnx"}, []string{"voices-v1.0.bin"}, "", "more than one model"},
		{"two models, one pack", "a.onnx", []string{"b.onnx"}, []string{"voices.bin"}, "", "more than one model"},
		{"the other model's version", "mine.onnx", []string{"kokoro-v1.0.onnx"}, []string{"voices-v1.0.bin"}, "", "another model's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pairPacks(tt.model, append([]string{tt.model}, tt.models...), tt.packs)
			if tt.want != "" {
				if got != tt.want || err != nil {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var pe *packPairError
			if got != "" || !errors.As(err, &pe) || !errors.Is(err, ErrNoPacks) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("got %q, %v; want an ErrNoPacks saying %q", got, err, tt.reason)
			}
			want := strings.TrimSuffix(tt.model, ".onnx") + ".voices.bin"
			if pe.Want != want || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tt.model) {
				t.Errorf("error %q: want it to name %s and the name to give, %s", err, tt.model, want)
			}
		})
	}
}

// kokoroFiles makes a voices directory of fixture files under new names:
// files maps each new name to a file of testdata/kokoro.
func kokoroFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		data, err := os.ReadFile(filepath.Join(kokoroDir, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadLogged loads opts and returns the engine and what it logged at
// Info and above.
func loadLogged(t *testing.T, opts Options) (*Engine, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	opts.LibraryPath = testLibrary(t)
	opts.Phonemizer = phonemizer(t)
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	e, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, &log
}

func voiceNames(t *testing.T, e *Engine) []string {
	t.Helper()
	list, err := e.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, v := range list {
		names = append(names, v.Name)
	}
	return names
}

// TestKokoroAsDownloaded loads Kokoro models and packs under the names
// kokoro-onnx's releases give them: each model is paired with its pack
// file, lists its voices and speaks them exactly as the same model and
// packs under today's names (NAME.voices.bin) do.
func TestKokoroAsDownloaded(t *testing.T) {
	ref := load(t, Options{VoicesDir: kokoroDir})
	const text = "Hello there."
	v10 := []string{"af_heart", "bf_emma", "ff_siwis"}
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"kokoro-onnx v1.0", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx", "voices-v1.0.bin": "kokoro-v1.0.voices.bin"}, v10},
		{"int8", map[string]string{"kokoro-v1.0.int8.onnx": "kokoro-v1.0.onnx", "voices-v1.0.bin": "kokoro-v1.0.voices.bin"}, v10},
		{"one pack file of another name", map[string]string{"model.onnx": "kokoro-v1.0.onnx", "packs.npz": "kokoro-v1.0.voices.bin"}, v10},
		{"two releases", map[string]string{
			"kokoro-v1.0.onnx": "kokoro-v1.0.onnx", "voices-v1.0.bin": "kokoro-v1.0.voices.bin",
			"kokoro-v1.1-zh.onnx": "kokoro-zh.onnx", "voices-v1.1-zh.bin": "kokoro-zh.voices.bin",
		}, []string{"af_heart", "af_maple", "bf_emma", "ff_siwis"}},
		{"today's names first", map[string]string{
			"kokoro-v1.0.onnx": "kokoro-v1.0.onnx", "kokoro-v1.0.voices.bin": "kokoro-zh.voices.bin",
			"voices-v1.0.bin": "kokoro-v1.0.voices.bin",
		}, nil}, // the zh packs need the zh model's speaker_names: refused
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, log := loadLogged(t, Options{VoicesDir: kokoroFiles(t, tt.files)})
			if got := voiceNames(t, e); !slices.Equal(got, append([]string{}, tt.want...)) {
				t.Fatalf("voices %v, want %v", got, tt.want)
			}
			if strings.Contains(log.String(), "no voice packs") {
				t.Errorf("logged a missing pack:\n%s", log)
			}
			for _, v := range tt.want {
				audio, rate, _ := collect(t, e, engine.Request{Voice: v, Text: text})
				want, _, _ := collect(t, ref, engine.Request{Voice: v, Text: text})
				if rate != KokoroSampleRate || len(audio) == 0 || !slices.Equal(audio, want) {
					t.Errorf("%s: %d samples at %d Hz, want the %d samples of the same model and pack under today's names", v, len(audio), rate, len(want))
				}
			}
		})
	}
}

// TestKokoroPairWarnings: a Kokoro model whose pack file cannot be told
// is left out with a warning naming the model file, the candidates and
// the name to give, lists nothing, and fails a Strict Load with
// ErrNoPacks; a Piper model without its config is not taken for one.
func TestKokoroPairWarnings(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		warn  [][]string // per model left out: its file, then what its warning says
		want  []string   // voices
	}{
		{"no pack", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx"},
			[][]string{{"kokoro-v1.0.onnx", "no voice pack file", "rename_to=kokoro-v1.0.voices.bin"}}, nil},
		{"two packs of its version", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx",
			"voices-v1.0.bin": "kokoro-v1.0.voices.bin", "voices-v1.0.npz": "kokoro-v1.0.voices.bin"},
			[][]string{{"kokoro-v1.0.onnx", "more than one pack file", `candidates="voices-v1.0.bin, voices-v1.0.npz"`, "rename_to=kokoro-v1.0.voices.bin"}}, nil},
		{"two models of one version", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx",
			"kokoro-v1.0.int8.onnx": "kokoro-v1.0.onnx", "voices-v1.0.bin": "kokoro-v1.0.voices.bin"},
			[][]string{{"kokoro-v1.0.int8.onnx", "more than one model", "candidates=voices-v1.0.bin", "rename_to=kokoro-v1.0.int8.voices.bin"},
				{"kokoro-v1.0.onnx", "more than one model", "candidates=voices-v1.0.bin", "rename_to=kokoro-v1.0.voices.bin"}}, nil},
		{"another release's pack", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx", "voices-v1.1-zh.bin": "kokoro-zh.voices.bin"},
			[][]string{{"kokoro-v1.0.onnx", "another release's version", "candidates=voices-v1.1-zh.bin"}}, nil},
		{"the paired one still serves", map[string]string{"kokoro-v1.0.onnx": "kokoro-v1.0.onnx", "voices-v1.0.bin": "kokoro-v1.0.voices.bin",
			"kokoro-v1.1-zh.onnx": "kokoro-zh.onnx"},
			[][]string{{"kokoro-v1.1-zh.onnx", "another model's or another release's version", "rename_to=kokoro-v1.1-zh.voices.bin"}},
			[]string{"af_heart", "bf_emma", "ff_siwis"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := kokoroFiles(t, tt.files)
			e, log := loadLogged(t, Options{VoicesDir: dir})
			if got := voiceNames(t, e); !slices.Equal(got, append([]string{}, tt.want...)) {
				t.Errorf("voices %v, want %v", got, tt.want)
			}
			var warns []string
			for _, line := range strings.Split(log.String(), "\n") {
				if strings.Contains(line, "level=WARN") && strings.Contains(line, "no voice packs") {
					warns = append(warns, line)
				}
			}
			if len(warns) != len(tt.warn) {
				t.Errorf("%d warnings, want %d:\n%s", len(warns), len(tt.warn), log)
			}
			for _, w := range tt.warn {
				i := slices.IndexFunc(warns, func(line string) bool { return strings.Contains(line, "/"+w[0]+" ") })
				if i < 0 {
					t.Errorf("no warning names %s:\n%s", w[0], log)
					continue
				}
				for _, part := range w[1:] {
					if !strings.Contains(warns[i], part) {
						t.Errorf("the warning for %s lacks %q: %s", w[0], part, warns[i])
					}
				}
			}
			_, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir, Strict: true,
				Logger: slog.New(slog.DiscardHandler)})
			if !errors.Is(err, ErrNoPacks) {
				t.Errorf("Strict Load: got %v, want ErrNoPacks", err)
			}
		})
	}

	// A Piper model without its config, beside a pack file, is still
	// reported as a Piper voice missing its config.
	dir := kokoroFiles(t, map[string]string{"voices.bin": "kokoro-v1.0.voices.bin"})
	tone, err := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, toneLow+".onnx"), tone, 0o644)
	e, log := loadLogged(t, Options{VoicesDir: dir})
	if got := voiceNames(t, e); len(got) != 0 {
		t.Errorf("voices %v, want none", got)
	}
	if s := log.String(); strings.Contains(s, "no voice packs") || !strings.Contains(s, "NAME.onnx.json beside the model") {
		t.Errorf("Piper model without config: log\n%s", s)
	}
}
