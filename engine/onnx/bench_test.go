package onnx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/sentence"
)

// The benchmark voice is fixture (b): a Piper-medium-sized VITS model with
// random weights, generated on demand by testdata/gen/medium.py into
// $VOXKIT_BENCH_DIR or .cache/bench at the module root. It is never
// committed.
const benchVoice = "en_US-bench-medium"

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

// benchModel returns the path of the benchmark model, generating it the
// first time.
func benchModel(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		dir := os.Getenv("VOXKIT_BENCH_DIR")
		if dir == "" {
			root, err := moduleRoot()
			if err != nil {
				benchErr = err
				return
			}
			dir = filepath.Join(root, ".cache", "bench")
		}
		benchPath = filepath.Join(dir, benchVoice+".onnx")
		if _, err := os.Stat(benchPath + ".json"); err == nil {
			return
		}
		out, err := exec.Command("/usr/bin/python3", "testdata/gen/medium.py", dir).CombinedOutput()
		if err != nil {
			benchErr = errors.New("generating the benchmark model (needs python3-torch and python3-onnx): " + err.Error() + "\n" + string(out))
		}
	})
	if benchErr != nil {
		b.Skip(benchErr)
	}
	return benchPath
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = filepath.Dir(dir)
	}
}

func benchText(b *testing.B) string {
	b.Helper()
	data, err := os.ReadFile("testdata/bench.txt")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// synthesizeText runs the whole pipeline on text and returns the seconds of
// audio produced.
func synthesizeText(b *testing.B, e *Engine, text string) float64 {
	samples, rate := 0, 0
	err := e.Synthesize(context.Background(), engine.Request{Voice: benchVoice, Text: text}, func(c engine.Chunk) error {
		samples += len(c.Samples)
		rate = c.SampleRate
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return float64(samples) / float64(rate)
}

// BenchmarkSynthesize reports the real-time factor (compute time / audio
// time) of the 20-sentence text, one stream.
func BenchmarkSynthesize(b *testing.B) {
	e := load(b, Options{Models: []string{benchModel(b)}})
	text := benchText(b)
	phonemes := 0
	for _, ids := range benchIDs(b, e, text) {
		phonemes += (len(ids) - 3) / 2 // ^ _ p _ … p _ $
	}
	var audio float64
	b.ResetTimer()
	for b.Loop() {
		audio += synthesizeText(b, e, text)
	}
	b.ReportMetric(b.Elapsed().Seconds()/audio, "rtf")
	b.ReportMetric(audio/float64(b.N), "audio-s/op")
	b.ReportMetric(1000*audio/float64(b.N)/float64(phonemes), "audio-ms/phoneme")
}

// BenchmarkOverhead compares the pipeline (sentence split, espeak-ng,
// ids, tensors, run, clip, emit) with bare ORT runs of the same id
// sequences. The two alternate sentence by sentence, in alternating order,
// so that the load of a shared machine hits both alike; the model's noise
// makes single runs vary, so use -benchtime 3x or more. glue-% is the
// steady part of the difference measured on its own: phonemizing, ids and
// clipping, over the bare run time.
func BenchmarkOverhead(b *testing.B) {
	e := load(b, Options{Models: []string{benchModel(b)}})
	m := e.models[benchVoice]
	ctx := context.Background()
	sentences := sentence.Split(benchText(b), 0)
	seqs := benchIDs(b, e, benchText(b))
	var bare, pipe, glue time.Duration
	var bareSamples, pipeSamples int
	var ratios []float64 // per sentence: pipeline / bare time per sample
	var scratch []float32
	n := 0
	timePipeline := func(s string) {
		start := time.Now()
		err := e.Synthesize(ctx, engine.Request{Voice: benchVoice, Text: s}, func(c engine.Chunk) error {
			scratch = append(scratch[:0], c.Samples...)
			pipeSamples += len(c.Samples)
			return nil
		})
		pipe += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	timeBare := func(ids []int64) {
		start := time.Now()
		bareSamples += bareRun(b, m, ids)
		bare += time.Since(start)
	}
	for b.Loop() {
		for i, s := range sentences {
			bare0, pipe0, bareN0, pipeN0 := bare, pipe, bareSamples, pipeSamples
			if n++; n%2 == 0 {
				timeBare(seqs[i])
				timePipeline(s)
			} else {
				timePipeline(s)
				timeBare(seqs[i])
			}
			ratios = append(ratios, (pipe-pipe0).Seconds()/float64(pipeSamples-pipeN0)/
				((bare-bare0).Seconds()/float64(bareSamples-bareN0)))
			start := time.Now()
			ph, err := e.phonemes(ctx, m, s)
			if err != nil {
				b.Fatal(err)
			}
			m.cfg.IDs(nil, ph)
			scale(scratch, 1)
			glue += time.Since(start)
		}
	}
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ms/op")
	b.ReportMetric(float64(pipe.Milliseconds())/float64(b.N), "pipeline-ms/op")
	// Per second of audio (the model's noise makes the two produce
	// slightly different lengths), as the median over sentence pairs, which
	// bursts of load on a shared machine do not move.
	slices.Sort(ratios)
	b.ReportMetric(100*(ratios[len(ratios)/2]-1), "overhead-%")
	b.ReportMetric(100*(pipe.Seconds()/float64(pipeSamples)/(bare.Seconds()/float64(bareSamples))-1), "mean-overhead-%")
	b.ReportMetric(100*glue.Seconds()/bare.Seconds(), "glue-%")
}

// benchIDs returns the id sequences of text's sentences for the
// benchmark voice.
func benchIDs(b *testing.B, e *Engine, text string) [][]int64 {
	m := e.models[benchVoice]
	var seqs [][]int64
	for _, s := range sentence.Split(text, 0) {
		ph, err := e.phonemes(context.Background(), m, s)
		if err != nil {
			b.Fatal(err)
		}
		seqs = append(seqs, m.cfg.IDs(nil, ph))
	}
	return seqs
}

// bareRun is the least a caller of ORT must do for one sentence. It
// returns the number of samples made.
func bareRun(b *testing.B, m *model, ids []int64) int {
	in, _ := ort.NewTensor(ort.NewShape(1, int64(len(ids))), ids)
	n, _ := ort.NewTensor(ort.NewShape(1), []int64{int64(len(ids))})
	sc, _ := ort.NewTensor(ort.NewShape(3), []float32{m.cfg.NoiseScale, m.cfg.LengthScale, m.cfg.NoiseW})
	out := []ort.Value{nil}
	if err := m.session.Run([]ort.Value{in, n, sc}, out); err != nil {
		b.Fatal(err)
	}
	samples := len(out[0].(*ort.Tensor[float32]).GetData())
	for _, v := range []ort.Value{in, n, sc, out[0]} {
		v.Destroy()
	}
	return samples
}

// BenchmarkStreams reports throughput (seconds of audio per second) with 1
// and 2 concurrent streams, each speaking the 20-sentence text, for 1 and
// 2 intra-op threads per run.
func BenchmarkStreams(b *testing.B) {
	path := benchModel(b)
	text := benchText(b)
	for _, threads := range []int{1, 2} {
		e := load(b, Options{Models: []string{path}, IntraOpThreads: threads})
		for _, streams := range []int{1, 2} {
			b.Run("threads="+strconv.Itoa(threads)+"/streams="+strconv.Itoa(streams), func(b *testing.B) {
				var audio float64
				var mu sync.Mutex
				for b.Loop() {
					var wg sync.WaitGroup
					for range streams {
						wg.Go(func() {
							s := synthesizeText(b, e, text)
							mu.Lock()
							audio += s
							mu.Unlock()
						})
					}
					wg.Wait()
				}
				b.ReportMetric(audio/b.Elapsed().Seconds(), "audio-s/s")
			})
		}
		e.Close()
	}
}

// BenchmarkRSSPerVoice reports the resident memory the first voice adds
// (beyond an initialized ONNX Runtime) and each further voice adds: it
// loads 5 copies of the benchmark voice one after the other (each its own
// model and session), each warmed up with one sentence. It measures in a fresh
// process (this test binary run again), since memory freed by other
// benchmarks would otherwise be reused.
func BenchmarkRSSPerVoice(b *testing.B) {
	path := benchModel(b)
	if os.Getenv("VOXKIT_RSS_CHILD") == "" {
		for b.Loop() {
			cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkRSSPerVoice$", "-test.benchtime=1x")
			cmd.Env = append(os.Environ(), "VOXKIT_RSS_CHILD=1", "VOXKIT_BENCH_DIR="+filepath.Dir(path))
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("child: %v\n%s", err, out)
			}
			first, next, ok := parseRSS(string(out))
			if !ok {
				b.Fatalf("child printed no figures:\n%s", out)
			}
			b.ReportMetric(first, "MB-first-voice")
			b.ReportMetric(next, "MB/next-voice")
		}
		return
	}
	const voices = 5
	dir := b.TempDir()
	var models []string
	for i := range voices {
		name := filepath.Join(dir, "v"+strconv.Itoa(i)+".onnx")
		if err := errors.Join(os.Symlink(path, name), os.Symlink(path+".json", name+".json")); err != nil {
			b.Fatal(err)
		}
		models = append(models, name)
	}
	if err := initRuntime(testLibrary(b), slog.Default()); err != nil {
		b.Fatal(err)
	}
	phonemizer(b)
	var first, next float64
	for b.Loop() {
		base := residentMB(b)
		var rss []float64
		for i, m := range models {
			e := load(b, Options{Models: []string{m}})
			err := e.Synthesize(context.Background(), engine.Request{Voice: "v" + strconv.Itoa(i), Text: "A warm-up sentence of ordinary length."}, func(engine.Chunk) error { return nil })
			if err != nil {
				b.Fatal(err)
			}
			rss = append(rss, residentMB(b))
		}
		first, next = rss[0]-base, (rss[voices-1]-rss[0])/(voices-1)
	}
	fmt.Printf("rss first=%.1f next=%.1f\n", first, next)
}

func parseRSS(out string) (first, next float64, ok bool) {
	for line := range strings.Lines(out) {
		if _, err := fmt.Sscanf(line, "rss first=%g next=%g", &first, &next); err == nil {
			return first, next, true
		}
	}
	return 0, 0, false
}

// residentMB returns the process's resident set size in MB.
func residentMB(b *testing.B) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkCancel reports how long Synthesize takes to return once its
// context is cancelled in the middle of a long sentence's model run.
func BenchmarkCancel(b *testing.B) {
	e := load(b, Options{Models: []string{benchModel(b)}})
	long := strings.Repeat("this clause keeps the model busy for a good while, ", 8) + "and ends here."
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		time.AfterFunc(50*time.Millisecond, func() {
			cancelled = time.Now()
			cancel()
		})
		err := e.Synthesize(ctx, engine.Request{Voice: benchVoice, Text: long}, func(engine.Chunk) error { return nil })
		if !errors.Is(err, context.Canceled) {
			b.Fatalf("got %v, want context.Canceled", err)
		}
		total += time.Since(cancelled)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-stop")
}
