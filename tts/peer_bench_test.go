package tts_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// The benchmarks of issue 42 compare voxkit's streams over HTTP with
// sherpa-onnx-node 1.13.8 (engine/pocket/testdata/peer.js, serving
// timings) on the generated PocketTTS model, temperature 0, 4 flow steps
// (VOXKIT_POCKET_SIZED: the export-sized one, see pocketDir):
//
//	go test -run '^$' -bench Peer ./tts
//
// Each iteration times voxkit, then sherpa-onnx, so a busy machine slows
// both alike; "ratio" is voxkit/sherpa by the wall clock.

// peerFirst has two sentences, each a piece of its own.
const peerFirst = "The first sentence is long enough to stand alone. The second one follows it and is a little longer than the first."

// peerParagraph is 16 sentences.
var peerParagraph = strings.Repeat("The keeper climbed the stairs with a lantern in his hand. "+
	"Outside, the wind pulled at the shutters and the sea was loud. "+
	"He set the lantern down and looked out over the dark water. "+
	"Far away, a single light moved slowly towards the harbour. ", 4)

// nodeScript is a Node script of sherpa-onnx-node's that answers each
// JSON line it reads with one of its own.
type nodeScript struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

// startNode starts script with req (as a JSON file), or skips b.
func startNode(b *testing.B, script string, req any) *nodeScript {
	b.Helper()
	node, err := exec.LookPath("node")
	sdk := os.Getenv("VOXKIT_NODE_SDK_DIR")
	if err != nil || sdk == "" {
		b.Skip("needs node and $VOXKIT_NODE_SDK_DIR with sherpa-onnx-node")
	}
	data, _ := json.Marshal(req)
	reqPath := filepath.Join(b.TempDir(), "req.json")
	if err := os.WriteFile(reqPath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, script, reqPath)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(sdk, "node_modules"))
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	return &nodeScript{in: in, out: bufio.NewScanner(out)}
}

// ask sends msg and decodes the script's answer into answer.
func (p *nodeScript) ask(b *testing.B, msg, answer any) {
	line, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(line, '\n')); err != nil || !p.out.Scan() {
		b.Fatalf("sherpa-onnx-node stopped: %v %v", err, p.out.Err())
	}
	if err := json.Unmarshal(p.out.Bytes(), answer); err != nil {
		b.Fatal(err)
	}
}

// peerTimer is peer.js serving timings.
type peerTimer struct{ *nodeScript }

// startPeer starts peer.js on the generated model at threads, or skips b.
func startPeer(b *testing.B, threads int) peerTimer {
	b.Helper()
	model := filepath.Join(pocketDir(b), pockettest.Model)
	return peerTimer{startNode(b, filepath.Join("..", "engine", "pocket", "testdata", "peer.js"), map[string]any{
		"model": model, "threads": threads, "steps": 4, "serve": true, "reference": filepath.Join(model, "test_wavs", "alto.wav")})}
}

// time returns sherpa-onnx's wall time for op ("total": generate(),
// "first": to its first audio) on text.
func (p peerTimer) time(b *testing.B, op, text string) time.Duration {
	var t struct{ MS float64 }
	p.ask(b, map[string]string{"op": op, "text": text}, &t)
	return time.Duration(t.MS * 1e6)
}

// pocketDir is the voices directory of the benchmarks: the small
// generated model, or with VOXKIT_POCKET_SIZED=DIR the one in
// DIR/pocket-gen, generated there beforehand with lm_main at the published
// export's size (engine/pocket/testdata/gen/pocket.py --sized; 75.6 M
// parameters, an 8 MB KV cache per layer); the peer's reference
// recordings are added to it when missing.
func pocketDir(b *testing.B) string {
	if dir := os.Getenv("VOXKIT_POCKET_SIZED"); dir != "" {
		wavs := filepath.Join(dir, pockettest.Model, "test_wavs")
		if err := os.MkdirAll(wavs, 0o755); err != nil {
			b.Fatal(err)
		}
		for name, pitch := range pockettest.Recordings {
			if _, err := os.Stat(filepath.Join(wavs, name+".wav")); err == nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(wavs, name+".wav"), pockettest.WAV(pockettest.Recording(3, pitch), pockettest.SampleRate), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		return dir
	}
	dir, err := pockettest.Shared()
	if err != nil {
		b.Skip(err)
	}
	return dir
}

// pocketServer serves POST bodies as text, streamed as pcm by a
// Synthesizer of slots render slots over the generated model's voice of
// the peer's reference and settings, each slot one ONNX Runtime thread,
// rendering ahead as Options.Ahead says.
func pocketServer(b *testing.B, slots, ahead int) *httptest.Server {
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(b), VoicesDir: pocketDir(b), Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pk.Close() })
	v, err := pk.Clone(context.Background(), pockettest.Model, pockettest.Recording(3, pockettest.Recordings["alto"]), pockettest.SampleRate, pocket.Settings{Steps: 4})
	if err != nil {
		b.Fatal(err)
	}
	if err := pk.AddVoice("bench", v); err != nil {
		b.Fatal(err)
	}
	cat := new(voices.Catalog)
	if err := cat.Add(voices.Voice{ID: "bench", Engine: "pocket", EngineVoice: "bench", Created: time.Now()}); err != nil {
		b.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"pocket": pk}, Voices: cat, MaxParallel: slots, Ahead: ahead})
	if err != nil {
		b.Fatal(err)
	}
	return pcmServer(b, synth, pockettest.SampleRate)
}

// pcmServer serves POST bodies as text, spoken by synth's voice "bench"
// and streamed as pcm at rate.
func pcmServer(b *testing.B, synth *tts.Synthesizer, rate int) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		text, _ := io.ReadAll(r.Body)
		req := tts.Request{Voice: "bench", Input: string(text), Format: encode.Format{Name: "pcm", SampleRate: rate}}
		if _, err := synth.Stream(r.Context(), w, req); err != nil {
			panic(http.ErrAbortHandler)
		}
	}))
	b.Cleanup(ts.Close)
	return ts
}

// fetch posts text and returns the times to the first and the last byte
// of the audio, and its length in bytes.
func fetch(b *testing.B, url, text string) (first, last time.Duration, n int) {
	start := time.Now()
	res, err := http.Post(url, "text/plain", strings.NewReader(text))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 1<<16)
	for {
		k, err := res.Body.Read(buf)
		if k > 0 && n == 0 {
			first = time.Since(start)
		}
		n += k
		if err == io.EOF {
			return first, time.Since(start), n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeerFirstAudio: the first audio of a two-sentence text over
// HTTP against sherpa's first sentence (its first audio), one thread each.
func BenchmarkPeerFirstAudio(b *testing.B) {
	ts := pocketServer(b, 1, 0)
	peer := startPeer(b, 1)
	fetch(b, ts.URL, peerFirst)
	peer.time(b, "first", peerFirst)
	var ours, theirs time.Duration
	for b.Loop() {
		first, _, _ := fetch(b, ts.URL, peerFirst)
		ours += first
		theirs += peer.time(b, "first", peerFirst)
	}
	n := float64(b.N) * 1e6
	b.ReportMetric(float64(ours)/n, "first-ms")
	b.ReportMetric(float64(theirs)/n, "sherpa-first-ms")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
}

// BenchmarkPeerParagraph: 16 sentences over HTTP, wall time to the last
// byte, against sherpa's generate() of the paragraph with 2 threads;
// voxkit with 1, 2 and 4 render slots (of one thread each) on the cores
// it may use (GOMAXPROCS), and with 2 rendering nothing ahead (as before
// issue 42).
func BenchmarkPeerParagraph(b *testing.B) {
	for _, c := range []struct{ slots, ahead int }{{2, -1}, {1, 0}, {2, 0}, {4, 0}} {
		b.Run(fmt.Sprintf("slots=%d/ahead=%v", c.slots, c.ahead >= 0), func(b *testing.B) {
			ts := pocketServer(b, c.slots, c.ahead)
			peer := startPeer(b, 2)
			fetch(b, ts.URL, "Warm up.")
			var ours, theirs, audio time.Duration
			for b.Loop() {
				_, last, n := fetch(b, ts.URL, peerParagraph)
				ours += last
				audio = time.Duration(n / 2 * int(time.Second) / pockettest.SampleRate)
				theirs += peer.time(b, "total", peerParagraph)
			}
			n := float64(b.N) * 1e6
			b.ReportMetric(audio.Seconds(), "audio-s")
			b.ReportMetric(float64(ours)/n, "last-ms")
			b.ReportMetric(float64(theirs)/n, "sherpa-total-ms")
			b.ReportMetric(float64(ours)/float64(theirs), "ratio")
		})
	}
}

// BenchmarkThroughput: requests of four sentences from 1, 2, 4 and 8
// clients at once on 2 render slots, rendering ahead and not (issue 42
// point 4: look-ahead must cost nothing under load), on each engine: the
// small PocketTTS model, the Piper-medium-sized VITS voice and the
// Kokoro-82M-sized model of the peer benchmarks. It reports requests per
// second and the 99th percentile of the time to the last byte.
func BenchmarkThroughput(b *testing.B) {
	const text = "The first sentence is long enough to stand alone. A second one follows. " +
		"Then a third, a little longer than the second. And the fourth ends it."
	engines := []struct {
		name  string
		serve func(b *testing.B, ahead int) *httptest.Server
	}{
		{"pocket", func(b *testing.B, ahead int) *httptest.Server { return pocketServer(b, 2, ahead) }},
		{"vits", func(b *testing.B, ahead int) *httptest.Server { return onnxServer(b, vitsModel, 2, ahead) }},
		{"kokoro", func(b *testing.B, ahead int) *httptest.Server { return onnxServer(b, kokoroModel, 2, ahead) }},
	}
	for _, e := range engines {
		for _, ahead := range []int{-1, 0} {
			for _, clients := range []int{1, 2, 4, 8} {
				b.Run(fmt.Sprintf("engine=%s/ahead=%v/clients=%d", e.name, ahead >= 0, clients), func(b *testing.B) {
					ts := e.serve(b, ahead)
					fetch(b, ts.URL, "Warm up.")
					var mu sync.Mutex
					var times []time.Duration
					start := time.Now()
					for b.Loop() {
						var wg sync.WaitGroup
						for range clients {
							wg.Go(func() {
								_, last, _ := fetch(b, ts.URL, text)
								mu.Lock()
								times = append(times, last)
								mu.Unlock()
							})
						}
						wg.Wait()
					}
					slices.Sort(times)
					b.ReportMetric(float64(len(times))/time.Since(start).Seconds(), "req/s")
					b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		}
	}
}
