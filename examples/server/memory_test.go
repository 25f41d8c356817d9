package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/servertest"
)

// memoryBound is the documented bound on the server's peak resident
// memory growth while eight requests run at once, with the settings this
// binary ships (docs/server.md, "Limits").
const memoryBound = 256 << 20

// TestMemoryPerRequest: with the binary's own settings (its -gc-percent),
// eight concurrent requests of each shape of input — slow speech (speed
// 0.25, long sentences, whose pieces are cut shorter) and pauses up to
// the audio limit — in every format and as SSE keep the process's peak
// resident memory within memoryBound of where it started.
func TestMemoryPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 8 × minutes of audio per format and shape")
	}
	if raceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless; make test runs this test without it")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the server sets its own; restore the test's after
	var out, errOut bytes.Buffer
	addr, stop, done := serve(t, newApp(&out, &errOut), &errOut, "-data", t.TempDir())
	defer func() { stop(); <-done }()
	key := keyOf(out.String())
	url := "http://" + addr.String() + "/v1/audio/speech"
	long := "The quick brown fox jumps over the lazy dog while the cat watches from the window, " +
		"and the bird sings in the tree near the old stone wall by the river that runs through the town. "
	shapes := map[string]struct {
		input string
		speed float64
	}{
		"slow":   {strings.Repeat(long, 2), 0.25},
		"pauses": {"Hello there." + strings.Repeat("<|pause:5|>", 119), 1},
	}
	for _, shape := range []string{"slow", "pauses"} {
		for _, format := range []string{"pcm", "wav", "mp3", "opus", "flac", "sse"} {
			body := map[string]any{"voice": "en-us", "input": shapes[shape].input, "speed": shapes[shape].speed, "response_format": format}
			if format == "sse" {
				body["response_format"], body["stream_format"] = "pcm", "sse"
			}
			b, _ := json.Marshal(body)
			peak := servertest.PeakRSSGrowth(t)
			var wg sync.WaitGroup
			var size [8]int64
			for i := range size {
				wg.Go(func() {
					req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
					req.Header.Set("Authorization", "Bearer "+key)
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					defer res.Body.Close()
					size[i], err = io.Copy(io.Discard, res.Body)
					if res.StatusCode != 200 || err != nil {
						t.Errorf("%s %s: %d %v", shape, format, res.StatusCode, err)
					}
				})
			}
			wg.Wait()
			growth := peak()
			t.Logf("%-6s %-4s 8 × %5.1f MB: peak RSS +%.0f MB", shape, format, float64(size[0])/1e6, float64(growth)/1e6)
			if growth > memoryBound {
				t.Errorf("%s %s: peak RSS grew by %d MB, the bound is %d MB", shape, format, growth>>20, memoryBound>>20)
			}
		}
	}
}
