package e2e

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/engine/sentence"
)

const piperVoices = "../../engine/onnx/testdata/voices"

// piperTexts cover what Piper's front end must get right: clause
// punctuation, several sentences, abbreviations, numbers, quotes,
// ellipses, accents (NFD) and text without a final mark.
var piperTexts = []string{
	"Hello world.",
	"Hello, world! How are you today?",
	"Wait; listen: the rain is here.",
	"It is cold, isn't it?",
	"Dr. Smith lives on Baker Street.",
	"Wait... what?!",
	`She said "yes", then left.`,
	"Naïve café résumé, über façade.",
	"I have 1,234 apples and 5.6 kilograms of flour.",
	"The U.S.A. is big",
	"Hmm",
	"First sentence. Second one! Third?",
	"Well (perhaps) we should go - or not.",
	"Numbers like 3.14 and 2:30 pm.",
}

// ortLibrary returns the ONNX Runtime library, skipping (failing in CI)
// without one.
func ortLibrary(t *testing.T) string {
	t.Helper()
	lib, err := onnx.FindLibrary(os.Getenv("ONNXRUNTIME_LIB"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ONNX Runtime is required in CI: %v", err)
		}
		t.Skipf("ONNX Runtime not installed (run .ci/install-onnxruntime.sh): %v", err)
	}
	return lib
}

// requirePython skips (fails in CI) without Debian's python3 with numpy
// and onnx.
func requirePython(t *testing.T) string {
	t.Helper()
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy, onnx").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s with numpy and onnx is required in CI (apt-get install python3-onnx): %v %s", py, err, out)
		}
		t.Skipf("%s with numpy and onnx: %v", py, err)
	}
	return py
}

type peerSentence struct {
	Sentence string  `json:"sentence"`
	Phonemes string  `json:"phonemes"`
	IDs      []int64 `json:"ids"`
	Audio    string  `json:"audio"`
}

func readF32(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

// toneIDs reads the id sequence back from tone-fixture audio at
// length_scale 1 (1024 samples per id, id+sid cycles per 1024 samples).
func toneIDs(x []float32, sid int) []int64 {
	var ids []int64
	for start := 0; start+1024 <= len(x); start += 1024 {
		best, bestMag := 0, 0.0
		for k := 1; k < 512; k++ {
			var re, im float64
			for i := range 1024 {
				ph := 2 * math.Pi * float64(k*(start+i)%1024) / 1024
				re += float64(x[start+i]) * math.Cos(ph)
				im += float64(x[start+i]) * math.Sin(ph)
			}
			if m := re*re + im*im; m > bestMag {
				best, bestMag = k, m
			}
		}
		if bestMag < 1 {
			best = sid // silent: the pad
		}
		ids = append(ids, int64(best-sid))
	}
	return ids
}

// TestPiperPeer compares engine/onnx with an independent Python Piper
// front end and model runner (testdata/piper_peer.py): the same phoneme
// ids and, sample by sample, the same audio from the tone fixtures.
func TestPiperPeer(t *testing.T) {
	lib := ortLibrary(t)
	py := requirePython(t)
	ctx := context.Background()
	esp, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := onnx.Load(ctx, onnx.Options{LibraryPath: lib, Phonemizer: esp, VoicesDir: piperVoices,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range []struct {
		model, speaker string
		sid            int
		speed          float64
	}{
		{"en_US-tone-low", "", 0, 1},
		{"en_US-tone-medium", "", 0, 2},
		{"en_GB-tonevctk-medium", "p239", -1, 1},
	} {
		t.Run(fmt.Sprintf("%s_%s_speed%g", c.model, c.speaker, c.speed), func(t *testing.T) {
			cfgPath := filepath.Join(piperVoices, c.model+".onnx.json")
			cfg, err := onnx.ReadConfig(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			voice := c.model
			sid := 0
			if c.speaker != "" {
				voice += onnx.SpeakerSep + c.speaker
				sid = int(cfg.Speakers[c.speaker])
			}
			out := t.TempDir()
			reqJSON, _ := json.Marshal(map[string]any{
				"model": filepath.Join(piperVoices, c.model+".onnx"), "config": cfgPath,
				"speaker": c.speaker, "speed": c.speed, "texts": piperTexts, "out": out,
			})
			reqPath := filepath.Join(out, "req.json")
			os.WriteFile(reqPath, reqJSON, 0o644)
			cmd := exec.Command(py, filepath.Join("testdata", "piper_peer.py"), reqPath)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			if err != nil {
				t.Fatalf("piper_peer.py: %v\n%s", err, stderr.String())
			}
			var peer [][]peerSentence
			if err := json.Unmarshal(stdout, &peer); err != nil {
				t.Fatal(err)
			}
			for ti, text := range piperTexts {
				t.Run(text, func(t *testing.T) {
					var chunks [][]float32
					err := eng.Synthesize(ctx, engine.Request{Voice: voice, Text: text, Prosody: engine.Prosody{Rate: c.speed}},
						func(ch engine.Chunk) error {
							chunks = append(chunks, ch.Samples)
							return nil
						})
					if err != nil {
						t.Fatalf("%q: %v", text, err)
					}
					var goPh []string
					for _, s := range sentence.Split(text, 0) {
						cl, _ := esp.Phonemize(ctx, cfg.EspeakVoice, s)
						goPh = append(goPh, strings.Join(cl, " "))
					}
					want := peer[ti]
					if len(chunks) != len(want) {
						var wp []string
						for _, w := range want {
							wp = append(wp, w.Phonemes)
						}
						t.Errorf("%q: Go made %d sequences %q, the peer %d %q", text, len(chunks), goPh, len(want), wp)
						return
					}
					for si, w := range want {
						ref := readF32(t, w.Audio)
						got := chunks[si]
						diff, at := 0.0, -1
						for i := range min(len(got), len(ref)) {
							if d := math.Abs(float64(got[i] - ref[i])); d > diff {
								diff, at = d, i
							}
						}
						if len(got) == len(ref) && diff <= 1e-4 {
							continue
						}
						msg := fmt.Sprintf("%q sentence %d: Go %d samples, peer %d; max |diff| %.3g at %d\n  Go phonemes   %q\n  peer phonemes %q",
							text, si, len(got), len(ref), diff, at, goPh[min(si, len(goPh)-1)], w.Phonemes)
						if c.speed == 1 && c.model != "en_GB-tonevctk-medium" || sid > 0 {
							msg += fmt.Sprintf("\n  Go ids   %v\n  peer ids %v", toneIDs(got, sid), w.IDs)
						}
						t.Error(msg)
					}
				})
			}
		})
	}
}
