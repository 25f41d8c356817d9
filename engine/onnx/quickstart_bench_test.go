package onnx_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/tts"
)

// fortyWords is a first sentence of 40 words with clause marks.
const fortyWords = "When the morning light finally came over the distant hills, the farmers of the valley " +
	"went out to the wide fields together, and they worked steadily through the long day until the " +
	"hot sun stood high above them and the birds fell silent."

// firstByte notes when the first bytes arrive.
type firstByte struct {
	bytes.Buffer
	at time.Time
}

func (w *firstByte) Write(p []byte) (int, error) {
	if w.at.IsZero() && len(p) > 0 {
		w.at = time.Now()
	}
	return w.Buffer.Write(p)
}

// BenchmarkQuickStartPiper streams a 40-word first sentence as pcm on the
// generated Piper-medium model (run BenchmarkSynthesize, or make bench,
// first to generate it into $VOXKIT_BENCH_DIR or .cache/bench): the time
// to the first byte as a fraction of the sentence's whole synthesis, with
// and without tts's clause cut, and the cut audio's length over the uncut.
func BenchmarkQuickStartPiper(b *testing.B) {
	dir := os.Getenv("VOXKIT_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "bench")
	}
	model := filepath.Join(dir, "en_US-bench-medium.onnx")
	if _, err := os.Stat(model); err != nil {
		b.Skip("no generated model: run BenchmarkSynthesize first")
	}
	lib, err := onnx.FindLibrary(os.Getenv("ONNXRUNTIME_LIB"))
	if err != nil {
		b.Skip(err)
	}
	esp, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer esp.Close()
	piper, err := onnx.Load(context.Background(), onnx.Options{LibraryPath: lib, Phonemizer: esp, Models: []string{model}})
	if err != nil {
		b.Fatal(err)
	}
	defer piper.Close()
	lengths := map[int]int{}
	for _, quick := range []int{-1, 0} {
		s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": piper}, QuickStart: quick})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(map[int]string{-1: "whole", 0: "cut"}[quick], func(b *testing.B) {
			var first, total time.Duration
			for b.Loop() {
				w := new(firstByte)
				start := time.Now()
				if _, err := s.Stream(context.Background(), w, tts.Request{Voice: "en_US-bench-medium", Input: fortyWords, Format: encode.PCM}); err != nil {
					b.Fatal(err)
				}
				first += w.at.Sub(start)
				total += time.Since(start)
				lengths[quick] = w.Len()
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ttfb-ms")
			b.ReportMetric(float64(first)/float64(total), "ttfb/total")
			if quick == 0 && lengths[-1] > 0 {
				b.ReportMetric(float64(lengths[0])/float64(lengths[-1]), "length-cut/whole")
			}
		})
	}
}
