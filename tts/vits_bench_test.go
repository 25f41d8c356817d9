package tts_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// The Piper-medium-sized VITS voice of BenchmarkPeerVITSParagraph:
// engine/onnx/testdata/gen/medium.py --sherpa, random weights, with the
// metadata and tokens.txt sherpa-onnx's VITS runtime needs, generated once
// into $VOXKIT_BENCH_DIR/vits-sherpa (or the system's temporary directory)
// and kept there.
const (
	vitsVoice = "en_US-bench-medium"
	vitsRate  = 22050
)

var vitsGen struct {
	once sync.Once
	dir  string
	err  error
}

// vitsDir returns the directory of the generated voice, or skips b.
func vitsDir(b *testing.B) string {
	b.Helper()
	vitsGen.once.Do(func() {
		root := os.Getenv("VOXKIT_BENCH_DIR")
		if root == "" {
			root = os.TempDir()
		}
		vitsGen.dir = filepath.Join(root, "vits-sherpa")
		if _, err := os.Stat(filepath.Join(vitsGen.dir, "tokens.txt")); err == nil {
			return
		}
		script := filepath.Join("..", "engine", "onnx", "testdata", "gen", "medium.py")
		if out, err := exec.Command("/usr/bin/python3", script, "--sherpa", vitsGen.dir).CombinedOutput(); err != nil {
			vitsGen.err = fmt.Errorf("%s --sherpa (needs python3-torch and python3-onnx): %w\n%s", script, err, out)
		}
	})
	if vitsGen.err != nil {
		b.Skip(vitsGen.err)
	}
	return vitsGen.dir
}

// espeakData is Debian's espeak-ng-data directory, which sherpa-onnx's
// Piper front end reads.
func espeakData(b *testing.B) string {
	for _, dir := range []string{os.Getenv("ESPEAK_DATA_PATH"), "/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data", "/usr/share/espeak-ng-data"} {
		if _, err := os.Stat(filepath.Join(dir, "phontab")); dir != "" && err == nil {
			return dir
		}
	}
	b.Skip("needs espeak-ng-data")
	return ""
}

// vitsPeer is tts/testdata/vitspeer.js serving generate() timings.
type vitsPeer struct{ *nodeScript }

// startVITSPeer starts vitspeer.js on the generated voice at threads, or
// skips b.
func startVITSPeer(b *testing.B, threads int) vitsPeer {
	b.Helper()
	dir := vitsDir(b)
	return vitsPeer{startNode(b, filepath.Join("testdata", "vitspeer.js"), map[string]any{"model": filepath.Join(dir, vitsVoice+".onnx"),
		"tokens": filepath.Join(dir, "tokens.txt"), "dataDir": espeakData(b), "threads": threads})}
}

// generate returns the cost of sherpa-onnx's generate() on text (wall
// clock and the CPU time of its process) and the length of its audio.
func (p vitsPeer) generate(b *testing.B, text string) (took nodepeer.Cost, audio time.Duration) {
	var t struct {
		MS, CPU       float64
		Samples, Rate int
	}
	p.ask(b, map[string]string{"text": text}, &t)
	return nodepeer.Cost{Wall: time.Duration(t.MS * 1e6), CPU: time.Duration(t.CPU * 1e6)},
		time.Duration(t.Samples) * time.Second / time.Duration(t.Rate)
}

// vitsServer serves POST bodies as text, streamed as pcm at the voice's
// rate by a Synthesizer of slots render slots over the generated voice,
// each slot one ONNX Runtime thread, rendering ahead as Options.Ahead says.
func vitsServer(b *testing.B, slots, ahead int) *httptest.Server {
	eng := onnxtest.Load(b, onnx.Options{Models: []string{filepath.Join(vitsDir(b), vitsVoice+".onnx")}, IntraOpThreads: 1})
	cat := new(voices.Catalog)
	if err := cat.Add(voices.Voice{ID: "bench", Engine: "onnx", EngineVoice: vitsVoice, Created: time.Now()}); err != nil {
		b.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": eng}, Voices: cat, MaxParallel: slots, Ahead: ahead})
	if err != nil {
		b.Fatal(err)
	}
	return pcmServer(b, synth, vitsRate)
}

// BenchmarkPeerVITSParagraph (issue 42 point 2): the 16-sentence
// paragraph on a Piper-medium-sized voice over HTTP, wall time to the last
// byte, against sherpa-onnx's generate() of it with 2 threads; voxkit with
// 2 render slots of one thread each rendering ahead, the same rendering
// nothing ahead (as before issue 42), and 1 and 4 slots ahead (the cores
// it may use; GOMAXPROCS stays the machine's). Reports both audio lengths
// and the ratio of the CPU times too (voxkit's: the whole test process,
// client included; sherpa's: the Node process).
func BenchmarkPeerVITSParagraph(b *testing.B) {
	for _, c := range []struct{ slots, ahead int }{{2, 0}, {2, -1}, {1, 0}, {4, 0}} {
		b.Run(fmt.Sprintf("slots=%d/ahead=%v/cpus=%d", c.slots, c.ahead >= 0, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			ts := vitsServer(b, c.slots, c.ahead)
			peer := startVITSPeer(b, 2)
			fetch(b, ts.URL, "Warm up.")
			peer.generate(b, "Warm up.")
			var ours, theirs nodepeer.Cost
			var audio, peerAudio time.Duration
			for b.Loop() {
				var n int
				ours.Add(nodepeer.Measure(func() { _, _, n = fetch(b, ts.URL, peerParagraph) }))
				audio = time.Duration(n/2) * time.Second / vitsRate
				took, a := peer.generate(b, peerParagraph)
				theirs.Add(took)
				peerAudio = a
			}
			b.ReportMetric(audio.Seconds(), "audio-s")
			b.ReportMetric(peerAudio.Seconds(), "sherpa-audio-s")
			nodepeer.Report(b, "last", ours, theirs)
		})
	}
}
