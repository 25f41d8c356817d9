package onnx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/sentence"
)

// The Kokoro benchmark model has Kokoro-82M's architecture and size with
// random weights: testdata/gen/kokoro_bench.py generates it on demand into
// $VOXKIT_BENCH_DIR or .cache/bench at the module root (about 330 MB,
// never committed), with one pack, af_bench.
const kokoroBenchVoice = "af_bench"

var kokoroBenchGen generatedModel

// kokoroBenchModel returns the path of the benchmark model, generating it
// the first time.
func kokoroBenchModel(b *testing.B) string {
	return kokoroBenchGen.get(b, "testdata/gen/kokoro_bench.py", "kokoro-bench.onnx", "kokoro-bench.voices/"+kokoroBenchVoice+".bin")
}

// kokoroBenchText is the first 5 sentences of the Piper benchmark text.
func kokoroBenchText(b *testing.B) string {
	return strings.Join(sentence.Split(benchText(b), 0)[:5], " ")
}

// BenchmarkKokoro reports the real-time factor of one stream speaking 5
// sentences with 1 and 2 intra-op threads, and the time to the first
// chunk (the first sentence).
func BenchmarkKokoro(b *testing.B) {
	path := kokoroBenchModel(b)
	text := kokoroBenchText(b)
	for _, threads := range []int{1, 2} {
		e := load(b, Options{Models: []string{path}, IntraOpThreads: threads})
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			var audio float64
			var first time.Duration
			for b.Loop() {
				start := time.Now()
				got := false
				err := e.Synthesize(context.Background(), engine.Request{Voice: kokoroBenchVoice, Text: text}, func(c engine.Chunk) error {
					if !got {
						first += time.Since(start)
						got = true
					}
					audio += float64(len(c.Samples)) / float64(c.SampleRate)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/audio, "rtf")
			b.ReportMetric(audio/float64(b.N), "audio-s/op")
			b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "ms-first-audio")
		})
		e.Close()
	}
}

// BenchmarkKokoroRSS reports the resident memory one loaded Kokoro model
// adds (with one pack, warmed up with one sentence, beyond an initialized
// ONNX Runtime), measured in a fresh process, and the live Go heap each
// voice pack takes (21 packs read).
func BenchmarkKokoroRSS(b *testing.B) {
	path := kokoroBenchModel(b)
	if inParent(b, "BenchmarkKokoroRSS", path, "MB/model", "MB/pack") {
		return
	}
	pack, err := os.ReadFile(filepath.Join(filepath.Dir(path), "kokoro-bench.voices", kokoroBenchVoice+".bin"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i, packs := range []int{1, 21} {
		name := filepath.Join(dir, "k"+strconv.Itoa(i))
		if err := errors.Join(os.Symlink(path, name+".onnx"), os.Mkdir(name+".voices", 0o755)); err != nil {
			b.Fatal(err)
		}
		for p := range packs {
			if err := os.WriteFile(filepath.Join(name+".voices", fmt.Sprintf("af_p%d_%d.bin", i, p)), pack, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := initRuntime(testLibrary(b), slog.Default()); err != nil {
		b.Fatal(err)
	}
	var model, perPack float64
	for b.Loop() {
		base := residentMB(b)
		e := load(b, Options{Models: []string{filepath.Join(dir, "k0.onnx")}})
		err := e.Synthesize(context.Background(), engine.Request{Voice: "af_p0_0", Text: "A warm-up sentence of ordinary length."}, func(engine.Chunk) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		model = residentMB(b) - base
		// Packs live in the Go heap: measure the live heap they add.
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		packs, err := readPacks(filepath.Join(dir, "k1.voices"), nil)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perPack = float64(after.HeapAlloc-before.HeapAlloc) / float64(len(packs)) / (1 << 20)
		runtime.KeepAlive(packs)
	}
	fmt.Printf("rss first=%.1f next=%.2f\n", model, perPack)
}
