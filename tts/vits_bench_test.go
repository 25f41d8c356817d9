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

// A sherpaModel is a generated model of the peer benchmarks (random
// weights, a real model's size): written by a generator of
// engine/onnx/testdata/gen with --sherpa, which adds what sherpa-onnx's
// runtime for it reads beside voxkit's files, once into
// $VOXKIT_BENCH_DIR/dir (or the system's temporary directory), and kept.
type sherpaModel struct {
	kind   string // sherpa-onnx's runtime: "vits" or "kokoro"
	dir    string // under $VOXKIT_BENCH_DIR
	script string // the generator
	file   string // the model in dir
	voice  string // voxkit's onnx engine voice
	rate   int
	extra  map[string]string // more files of dir for sherpa-onnx, by its config's name

	once sync.Once
	path string
	err  error
}

var (
	// vitsModel is a Piper-medium-sized VITS voice (medium.py).
	vitsModel = &sherpaModel{kind: "vits", dir: "vits-sherpa", script: "medium.py",
		file: "en_US-bench-medium.onnx", voice: "en_US-bench-medium", rate: 22050}
	// kokoroModel is a Kokoro-82M-sized model with one pack, af_bench
	// (kokoro_bench.py, about 330 MB).
	kokoroModel = &sherpaModel{kind: "kokoro", dir: "kokoro-sherpa", script: "kokoro_bench.py",
		file: "kokoro-bench.onnx", voice: "af_bench", rate: 24000, extra: map[string]string{"voices": "voices.bin"}}
)

// Dir returns the directory of the generated model, or skips b.
func (m *sherpaModel) Dir(b *testing.B) string {
	b.Helper()
	m.once.Do(func() {
		root := os.Getenv("VOXKIT_BENCH_DIR")
		if root == "" {
			root = os.TempDir()
		}
		m.path = filepath.Join(root, m.dir)
		if _, err := os.Stat(filepath.Join(m.path, "tokens.txt")); err == nil {
			return // tokens.txt is the generators' last file
		}
		script := filepath.Join("..", "engine", "onnx", "testdata", "gen", m.script)
		if out, err := exec.Command("/usr/bin/python3", script, "--sherpa", m.path).CombinedOutput(); err != nil {
			m.err = fmt.Errorf("%s --sherpa (needs python3-torch and python3-onnx): %w\n%s", script, err, out)
		}
	})
	if m.err != nil {
		b.Skip(m.err)
	}
	return m.path
}

// espeakData is Debian's espeak-ng-data directory, which sherpa-onnx's
// Piper and Kokoro front ends read.
func espeakData(b *testing.B) string {
	for _, dir := range []string{os.Getenv("ESPEAK_DATA_PATH"), "/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data", "/usr/share/espeak-ng-data"} {
		if _, err := os.Stat(filepath.Join(dir, "phontab")); dir != "" && err == nil {
			return dir
		}
	}
	b.Skip("needs espeak-ng-data")
	return ""
}

// sherpaPeer is tts/testdata/vitspeer.js serving generate() timings.
type sherpaPeer struct{ *nodeScript }

// startSherpa starts vitspeer.js on m at threads, or skips b.
func startSherpa(b *testing.B, m *sherpaModel, threads int) sherpaPeer {
	b.Helper()
	dir := m.Dir(b)
	req := map[string]any{"kind": m.kind, "model": filepath.Join(dir, m.file),
		"tokens": filepath.Join(dir, "tokens.txt"), "dataDir": espeakData(b), "threads": threads}
	for name, file := range m.extra {
		req[name] = filepath.Join(dir, file)
	}
	return sherpaPeer{startNode(b, filepath.Join("testdata", "vitspeer.js"), req)}
}

// generate returns the cost of sherpa-onnx's generate() on text (wall
// clock and the CPU time of its process) and the length of its audio.
func (p sherpaPeer) generate(b *testing.B, text string) (took nodepeer.Cost, audio time.Duration) {
	var t struct {
		MS, CPU       float64
		Samples, Rate int
	}
	p.ask(b, map[string]string{"text": text}, &t)
	return nodepeer.Cost{Wall: time.Duration(t.MS * 1e6), CPU: time.Duration(t.CPU * 1e6)},
		time.Duration(t.Samples) * time.Second / time.Duration(t.Rate)
}

// onnxServer serves POST bodies as text, streamed as pcm at m's rate by a
// Synthesizer of slots render slots over m's voice, each slot one ONNX
// Runtime thread, rendering ahead as Options.Ahead says.
func onnxServer(b *testing.B, m *sherpaModel, slots, ahead int) *httptest.Server {
	eng := onnxtest.Load(b, onnx.Options{Models: []string{filepath.Join(m.Dir(b), m.file)}, IntraOpThreads: 1})
	cat := new(voices.Catalog)
	if err := cat.Add(voices.Voice{ID: "bench", Engine: "onnx", EngineVoice: m.voice, Created: time.Now()}); err != nil {
		b.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": eng}, Voices: cat, MaxParallel: slots, Ahead: ahead})
	if err != nil {
		b.Fatal(err)
	}
	return pcmServer(b, synth, m.rate)
}

// peerParagraphBench times the 16-sentence paragraph on m over HTTP, wall
// time to the last byte, against sherpa-onnx's generate() of it with 2
// threads: voxkit with 2 render slots of one thread each rendering ahead,
// the same rendering nothing ahead (as before issue 42), and 1 and 4
// slots ahead (the cores it may use; GOMAXPROCS stays the machine's). It
// reports both audio lengths and the ratio of the CPU times too
// (voxkit's: the whole test process, client included; sherpa's: the Node
// process), and the wall ratio per second of audio ("ratio-per-audio-s"):
// the two front ends may give the same text a few tokens more or less.
func peerParagraphBench(b *testing.B, m *sherpaModel) {
	for _, c := range []struct{ slots, ahead int }{{2, 0}, {2, -1}, {1, 0}, {4, 0}} {
		b.Run(fmt.Sprintf("slots=%d/ahead=%v/cpus=%d", c.slots, c.ahead >= 0, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			ts := onnxServer(b, m, c.slots, c.ahead)
			peer := startSherpa(b, m, 2)
			fetch(b, ts.URL, "Warm up.")
			peer.generate(b, "Warm up.")
			var ours, theirs nodepeer.Cost
			var audio, peerAudio time.Duration
			for b.Loop() {
				var n int
				ours.Add(nodepeer.Measure(func() { _, _, n = fetch(b, ts.URL, peerParagraph) }))
				audio = time.Duration(n/2) * time.Second / time.Duration(m.rate)
				took, a := peer.generate(b, peerParagraph)
				theirs.Add(took)
				peerAudio = a
			}
			b.ReportMetric(audio.Seconds(), "audio-s")
			b.ReportMetric(peerAudio.Seconds(), "sherpa-audio-s")
			nodepeer.Report(b, "last", ours, theirs)
			b.ReportMetric(float64(ours.Wall)/float64(theirs.Wall)*peerAudio.Seconds()/audio.Seconds(), "ratio-per-audio-s")
		})
	}
}

// BenchmarkPeerVITSParagraph (issue 42 point 2): the 16-sentence
// paragraph on a Piper-medium-sized voice (see peerParagraphBench).
func BenchmarkPeerVITSParagraph(b *testing.B) { peerParagraphBench(b, vitsModel) }
