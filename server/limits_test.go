package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/tts"
)

// speechJSON is a speech request body.
func speechJSON(input, format string, speed float64, stream string) string {
	m := map[string]any{"voice": "en-us", "input": input, "response_format": format}
	if speed != 0 {
		m["speed"] = speed
	}
	if stream != "" {
		m["stream_format"] = stream
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// checkAudioTooLong checks that body is the audio_too_long error naming
// the limit.
func checkAudioTooLong(t *testing.T, status int, body []byte, limit string) {
	t.Helper()
	var e testserver.ErrorJSON
	if status != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Error.Code == nil ||
		*e.Error.Code != "audio_too_long" || *e.Error.Type != "invalid_request_error" || *e.Error.Param != "input" ||
		!strings.Contains(*e.Error.Message, limit) {
		t.Fatalf("want 400 audio_too_long on input naming %s, got %d %s", limit, status, body)
	}
	t.Logf("%s", *e.Error.Message)
}

// Requests whose input would make more audio than the limit (10 minutes by
// default) fail with a 400 before any audio is made, in every format.
func TestAudioLimitBeforeSynthesis(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, tc := range []struct {
		name, input string
		speed       float64
	}{
		{"pauses", "Hi." + strings.Repeat("<|pause:5|>", 371), 0},
		{"slow Han", strings.Repeat("中", 4096), 0.25},
		{"slow English", strings.Repeat("Speech takes time. ", 215), 0.25},
	} {
		for _, format := range []string{"wav", "mp3", "opus", "flac", "pcm", "sse"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				body := speechJSON(tc.input, format, tc.speed, "")
				if format == "sse" {
					body = speechJSON(tc.input, "pcm", tc.speed, "sse")
				}
				res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				checkAudioTooLong(t, res.StatusCode, b, "10m0s")
			})
		}
	}
}

// A full-length English input at speed 1 fits the default limit.
func TestAudioLimitAdmitsLongInput(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	e := testserver.New(t, testserver.Options{})
	input := strings.Repeat("The quick brown fox jumps over the lazy dog, twice. ", 80)[:4096]
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, "pcm", 0, "")))
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 || err != nil {
		t.Fatalf("%d %v %.200s", res.StatusCode, err, b)
	}
	t.Logf("4096 characters of English: %.0f s of audio", float64(len(b))/48000)
}

// When the estimate lets a request through (digits read out take far
// longer than their characters suggest), the count of samples stops it
// as soon as it passes the limit: a complete clip is still a 400, a pcm
// stream that has begun is cut (no final chunk), and an SSE stream ends
// with an error event — never a short 200 that looks whole.
func TestAudioLimitDuringSynthesis(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) { o.MaxAudio = 10 * time.Second }})
	input := "Hello. 1234567 8901234 5678901 2345678."
	for _, format := range []string{"wav", "mp3", "opus", "flac"} {
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, format, 0, "")))
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		checkAudioTooLong(t, res.StatusCode, b, "10s")
	}
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, "pcm", 0, "")))
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || len(got) == 0 || err == nil {
		t.Errorf("pcm: status %d, %d bytes, read error %v: want 200, the first sentence, then a cut", res.StatusCode, len(got), err)
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, "pcm", 0, "sse")))
	got, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(got), `"type":"speech.audio.delta"`) || !strings.Contains(string(got), `"code":"audio_too_long"`) ||
		strings.Contains(string(got), "[DONE]") {
		t.Errorf("SSE: want audio, then an audio_too_long error event:\n%.600s", got)
	}
}

// A complete clip larger than what the server keeps in memory (1 MiB) is
// spooled to a file and still sent whole, with its exact length, in every
// format.
func TestLongClipIsWhole(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	e := testserver.New(t, testserver.Options{})
	input := "Hello there." + strings.Repeat("<|pause:5|>", 12) + " Goodbye."
	for _, format := range []string{"wav", "mp3", "opus", "flac"} {
		t.Run(format, func(t *testing.T) {
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, format, 0, "")))
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if res.StatusCode != 200 || err != nil || res.Header.Get("Content-Length") != strconv.Itoa(len(b)) {
				t.Fatalf("%d %v, Content-Length %s, %d bytes", res.StatusCode, err, res.Header.Get("Content-Length"), len(b))
			}
			if _, _, dur := testserver.Probe(t, b, format); dur < 61 || dur > 64 {
				t.Errorf("%d bytes decode to %.2f s, want about 62", len(b), dur)
			}
		})
	}
}

// waitLog reports the account of each "waiting for a render slot" log.
type waitLog struct {
	slog.Handler
	accounts chan string
}

func (h waitLog) Enabled(context.Context, slog.Level) bool { return true }

func (h waitLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "tts: waiting for a render slot" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "account" {
				h.accounts <- a.Value.String()
			}
			return true
		})
	}
	return nil
}

// With one render slot and six long requests of one account running, a
// short request of another account gets the next free slot: it is not
// queued behind the other account's waiting sentences.
func TestFairSlots(t *testing.T) {
	g := testserver.Gate{Arrived: make(chan string, 100), Next: make(chan struct{}), Open: make(chan struct{})}
	waits := make(chan string, 100)
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) {
		g.Engine = o.Engines["espeak"]
		o.Engines["espeak"] = g
		o.MaxParallel = 1
		o.Logger = slog.New(waitLog{slog.DiscardHandler, waits})
	}})
	release := sync.OnceFunc(func() { close(g.Open) })
	defer release()
	post := func(key, input string, done chan<- int) {
		res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(speechJSON(input, "pcm", 0, "")))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		done <- res.StatusCode
	}
	receive := func(c <-chan string, what string) string {
		t.Helper()
		select {
		case s := <-c:
			return s
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s", what)
			return ""
		}
	}
	// Six long requests of "local": one renders (held at the gate), five
	// wait for the slot.
	doneA := make(chan int, 6)
	for range 6 {
		go post(e.Key, "Alpha one. Alpha two. Alpha three.", doneA)
	}
	receive(g.Arrived, "first sentence")
	for range 5 {
		if a := receive(waits, "queued request of local"); a != "local" {
			t.Fatalf("account %q waited", a)
		}
	}
	// A short request of "other" queues behind them.
	doneB := make(chan int, 1)
	go post(e.OtherKey, "Bravo.", doneB)
	if a := receive(waits, "queued request of other"); a != "other" {
		t.Fatalf("account %q waited", a)
	}
	g.Next <- struct{}{} // the running sentence ends; the slot frees
	if text := receive(g.Arrived, "next sentence"); text != "Bravo." {
		t.Fatalf("the freed slot went to %q, not to the other account's waiting request", text)
	}
	g.Next <- struct{}{}
	if status := <-doneB; status != 200 {
		t.Fatalf("other account: status %d", status)
	}
	select {
	case <-doneA:
		t.Fatal("a long request finished first")
	default:
	}
	release()
	for range 6 {
		if status := <-doneA; status != 200 {
			t.Errorf("long request: status %d", status)
		}
	}
}

// rssBound is the documented bound on the server's resident memory growth
// while eight requests at the audio limit run at once (docs/server.md).
const rssBound = 128 << 20

// Eight concurrent requests at the audio limit, in each format in turn,
// keep the process's peak resident memory within rssBound of where it
// started: no clip is held whole in memory, whatever its format.
func TestMemoryAtTheAudioLimit(t *testing.T) {
	testserver.MeasuresMemory(t, "renders 8 × 10 minutes of audio per format")
	e := testserver.New(t, testserver.Options{})
	// 598 s of audio: one short sentence, then pauses up to the limit.
	input := "Hello there." + strings.Repeat("<|pause:5|>", 119)
	for _, format := range []string{"pcm", "wav", "mp3", "opus", "flac"} {
		peak := servertest.PeakRSSGrowth(t)
		var wg sync.WaitGroup
		sizes := make([]int64, 8)
		for i := range sizes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(speechJSON(input, format, 0, "")))
				defer res.Body.Close()
				n, err := io.Copy(io.Discard, res.Body)
				if res.StatusCode != 200 || err != nil {
					t.Errorf("%s: %d %v", format, res.StatusCode, err)
				}
				sizes[i] = n
			}()
		}
		wg.Wait()
		growth := peak()
		t.Logf("%s: 8 × %.1f MB: peak RSS +%.1f MB", format, float64(sizes[0])/1e6, float64(growth)/1e6)
		if growth > rssBound {
			t.Errorf("%s: peak RSS grew by %d MB, the bound is %d MB", format, growth>>20, rssBound>>20)
		}
	}
}
