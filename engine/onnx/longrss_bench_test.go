package onnx

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
)

// longSentence is one piece of about 290 characters, near the longest
// the sentence splitter gives the model (about 20 s of audio).
const longSentence = "The old lighthouse keeper climbed the winding stairs every evening " +
	"with a lantern in one hand and a book in the other, counting the steps " +
	"as his father had taught him, pausing at the narrow window to watch the " +
	"fishing boats come home across the grey water while the gulls circled " +
	"overhead and called"

// BenchmarkRSSLongSentences reports the peak resident memory (beyond an
// initialized ONNX Runtime and a loaded voice) of two streams at once,
// each speaking four long sentences, and their real-time factor. It runs
// in a fresh process, as BenchmarkRSSPerVoice does.
func BenchmarkRSSLongSentences(b *testing.B) {
	path := benchModel(b)
	if inParent(b, "BenchmarkRSSLongSentences", path, "MB-peak", "rtf") {
		return
	}
	if err := initRuntime(testLibrary(b), slog.Default()); err != nil {
		b.Fatal(err)
	}
	phonemizer(b)
	e := load(b, Options{Models: []string{path}, Arena: map[string]Arena{"off": ArenaOff, "private": ArenaPerSession}[os.Getenv("VOXKIT_BENCH_ARENA")]})
	synthesizeText(b, e, "A warm-up sentence of ordinary length.")
	base := statusMB(b, "VmRSS:")
	resetPeak()
	var rtf float64
	for b.Loop() {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var audio float64
		start := time.Now()
		for range 2 {
			wg.Go(func() {
				for range 4 {
					s := synthesizeText(b, e, longSentence+".")
					mu.Lock()
					audio += s
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		rtf = time.Since(start).Seconds() * 2 / audio
	}
	peak := statusMB(b, "VmHWM:")
	fmt.Printf("rss first=%.1f next=%.3f\n", peak-base, rtf)
	fmt.Printf("after: rss %.1f MB (base %.1f)\n", statusMB(b, "VmRSS:"), base)
}

// resetPeak resets the process's peak resident set size (VmHWM).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// statusMB returns a kB field of /proc/self/status in MB.
func statusMB(b testing.TB, field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no " + field)
	return 0
}

// BenchmarkShrinkSpeed compares the real-time factor of two streams of
// long sentences at once with the arena shrunk after each (as Load
// runs) and without, alternating within each iteration, and the same for
// the 20-sentence text (its sentences are below shrinkAboveIDs, so the
// two should match).
func BenchmarkShrinkSpeed(b *testing.B) {
	e := load(b, Options{Models: []string{benchModel(b)}})
	text := benchText(b)
	defer func(n int) { shrinkAboveIDs = n }(shrinkAboveIDs)
	limits := []int{shrinkAboveIDs, math.MaxInt}
	names := []string{"shrink", "keep"}
	synthesizeText(b, e, longSentence+".") // warm up
	spent := make([]time.Duration, 4)
	audio := make([]float64, 4)
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			j := (k + i) % 2
			shrinkAboveIDs = limits[j]
			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			for range 2 {
				wg.Go(func() {
					s := synthesizeText(b, e, longSentence+".")
					mu.Lock()
					audio[j] += s
					mu.Unlock()
				})
			}
			wg.Wait()
			spent[j] += time.Since(start)
			start = time.Now()
			audio[2+j] += synthesizeText(b, e, text)
			spent[2+j] += time.Since(start)
		}
	}
	for j, name := range names {
		b.ReportMetric(2*spent[j].Seconds()/audio[j], "rtf-long-"+name)
		b.ReportMetric(spent[2+j].Seconds()/audio[2+j], "rtf-text-"+name)
	}
}

// TestLongRunsGiveMemoryBack runs two streams of long sentences at once
// on a Piper-medium-sized voice (the benchmark model) and checks that the
// resident memory they leave behind is small: ONNX Runtime's arena used
// to keep the 1 GB or more such runs take (over 1.1 GB above the
// process's memory before them). It runs in a fresh process.
func TestLongRunsGiveMemoryBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Piper-medium-sized model on long sentences")
	}
	if raceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless; make test runs this test without it")
	}
	dir, err := benchDir()
	if err == nil {
		err = generate("testdata/gen/medium.py", dir, filepath.Join(dir, benchVoice+".onnx.json"))
	}
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(dir, benchVoice+".onnx")
	if os.Getenv("VOXKIT_RSS_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLongRunsGiveMemoryBack$", "-test.v")
		cmd.Env = append(os.Environ(), "VOXKIT_RSS_CHILD=1", "VOXKIT_BENCH_DIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		t.Logf("%s", out)
		return
	}
	e := load(t, Options{Models: []string{path}})
	speak := func(text string) {
		err := e.Synthesize(context.Background(), engine.Request{Voice: benchVoice, Text: text}, func(engine.Chunk) error { return nil })
		if err != nil {
			t.Error(err)
		}
	}
	speak("A warm-up sentence of ordinary length.")
	before := statusMB(t, "VmRSS:")
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 2 {
				speak(longSentence + ".")
			}
		})
	}
	wg.Wait()
	after := statusMB(t, "VmRSS:")
	t.Logf("resident memory %.0f MB before the long runs, %.0f MB after", before, after)
	if after-before > 400 {
		t.Errorf("the long runs left %.0f MB more resident memory, want at most 400 MB", after-before)
	}
}
