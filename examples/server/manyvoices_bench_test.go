package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The many-voices benchmarks run this server binary, built once, in a
// process of its own on a directory of copies (symbolic links) of the
// Piper-medium-sized benchmark voice that engine/onnx's benchmarks
// generate (engine/onnx/testdata/gen/medium.py, 61.9 MB, into
// $VOXKIT_BENCH_DIR or .cache/bench at the module root; `make
// deps-bench` installs what generating it needs). They skip when the
// voice or ONNX Runtime is missing.

// benchSentence is what each request says: about 3 s of audio.
const benchSentence = "The quick brown fox jumps over the lazy dog near the river bank."

// BenchmarkManyVoices measures what issue 35's acceptance asks, in one
// run: the time from starting the server to its first 200 on /healthz and
// the resident memory then, with 1 voice and with 20; then, under
// -voice-memory 400MB, the resident memory after each of the 20 voices
// spoke in turn (every request must answer 200), against the 1-voice
// server's after its voice spoke. It also reports the time to the first
// audio byte of a cold voice's first request and of the next, warm one.
func BenchmarkManyVoices(b *testing.B) {
	bin, model := serverBinary(b), benchVoiceModel(b)
	for b.Loop() {
		one := startServer(b, bin, voicesOf(b, model, 1), "400MB")
		oneStart, oneRSS := one.started, one.rss(b)
		one.speak(b, "v0")
		oneSpoken := one.rss(b)
		one.stop()

		many := startServer(b, bin, voicesOf(b, model, 20), "400MB")
		manyStart, manyRSS := many.started, many.rss(b)
		var cold, warm []time.Duration
		for i := range 20 {
			v := "v" + strconv.Itoa(i)
			cold = append(cold, many.speak(b, v))
			warm = append(warm, many.speak(b, v))
		}
		manySpoken := many.rss(b)
		many.stop()

		b.ReportMetric(ms(oneStart), "start-ms-1-voice")
		b.ReportMetric(ms(manyStart), "start-ms-20-voices")
		b.ReportMetric(float64(manyStart)/float64(oneStart), "start-ratio")
		b.ReportMetric(oneRSS, "MiB-start-1-voice")
		b.ReportMetric(manyRSS-oneRSS, "MiB-start-20-over-1")
		b.ReportMetric(oneSpoken, "MiB-spoken-1-voice")
		b.ReportMetric(manySpoken-oneRSS, "MiB-spoken-20-over-1-at-start")
		b.ReportMetric(manySpoken-oneSpoken, "MiB-spoken-20-over-1-spoken")
		b.ReportMetric(ms(median(cold)), "first-audio-ms-cold")
		b.ReportMetric(ms(median(warm)), "first-audio-ms-warm")
	}
}

// BenchmarkVoicesThroughput reports seconds of audio per second with 1, 2
// and 4 clients, each speaking 10 requests with voices drawn in turn from
// 20, under a -voice-memory that holds 5 of them (so most requests find
// their voice cold), and the loads that took.
func BenchmarkVoicesThroughput(b *testing.B) {
	bin, model := serverBinary(b), benchVoiceModel(b)
	st, err := os.Stat(model)
	if err != nil {
		b.Fatal(err)
	}
	srv := startServer(b, bin, voicesOf(b, model, 20), strconv.FormatInt(5*st.Size()+st.Size()/2, 10))
	defer srv.stop()
	for _, clients := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			const perClient = 10
			for b.Loop() {
				var wg sync.WaitGroup
				start := time.Now()
				var mu sync.Mutex
				audio := 0.0
				for c := range clients {
					wg.Go(func() {
						for i := range perClient {
							v := "v" + strconv.Itoa((c*7+i*3)%20)
							secs := srv.speakSeconds(b, v)
							mu.Lock()
							audio += secs
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				b.ReportMetric(audio/time.Since(start).Seconds(), "audio-s/s")
			}
		})
	}
}

// childServer is a server binary running for a benchmark.
type childServer struct {
	cmd     *exec.Cmd
	url     string
	key     string
	started time.Duration // from exec to the first 200 on /healthz
}

func startServer(b *testing.B, bin, voices, budget string) *childServer {
	b.Helper()
	return startChild(b, bin, true, "-data", b.TempDir(), "-voices", voices, "-voice-memory", budget)
}

func (s *childServer) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

// rss returns the server's resident memory in MiB.
func (s *childServer) rss(b testing.TB) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Skip("no /proc")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// speak asks for benchSentence in voice as streamed PCM, fails b unless
// the answer is 200 with audio, and returns the time to its first byte.
func (s *childServer) speak(b *testing.B, voice string) time.Duration {
	first, _ := s.request(b, voice)
	return first
}

// speakSeconds is speak returning the seconds of audio (16-bit at 24 kHz).
func (s *childServer) speakSeconds(b *testing.B, voice string) float64 {
	_, n := s.request(b, voice)
	return float64(n) / 2 / 24000
}

func (s *childServer) request(b *testing.B, voice string) (time.Duration, int64) {
	body := `{"voice":"` + voice + `","input":"` + benchSentence + `","response_format":"pcm"}`
	req, _ := http.NewRequest("POST", s.url+"/v1/audio/speech", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Error(err)
		return 0, 0
	}
	defer res.Body.Close()
	var one [1]byte
	_, err = io.ReadFull(res.Body, one[:])
	first := time.Since(start)
	n, err2 := io.Copy(io.Discard, res.Body)
	if res.StatusCode != 200 || errors.Join(err, err2) != nil || n == 0 {
		b.Errorf("%s: %s, %d bytes, %v", voice, res.Status, n+1, errors.Join(err, err2))
	}
	return first, n + 1
}

// serverBinary builds this server once per benchmark binary.
func serverBinary(b testing.TB) string {
	b.Helper()
	if os.Getenv("ONNXRUNTIME_LIB") == "" {
		b.Skip("ONNXRUNTIME_LIB not set (make bench sets it)")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "voxkit-server-bench")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "server")
		if out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return built
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// benchVoiceModel returns the path of the generated benchmark voice.
func benchVoiceModel(b *testing.B) string {
	dir := os.Getenv("VOXKIT_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "bench")
	}
	path, err := filepath.Abs(filepath.Join(dir, "en_US-bench-medium.onnx"))
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		b.Skipf("no benchmark voice (go test -bench BenchmarkRSSPerVoice ./engine/onnx generates it): %v", err)
	}
	return path
}

// voicesOf makes a directory of n voices v0 … vN-1, links to model.
func voicesOf(b *testing.B, model string, n int) string {
	dir := b.TempDir()
	for i := range n {
		name := filepath.Join(dir, "v"+strconv.Itoa(i)+".onnx")
		if err := errors.Join(os.Symlink(model, name), os.Symlink(model+".json", name+".json")); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
