package e2e

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// TestNastyBodies posts hand-written hostile bodies to the real handler
// (espeak voices through the OpenAI aliases, the fake voice where the
// words do not matter) and checks each status, the error JSON and its
// param, that audio matches its Content-Type, and that no tag reached
// an engine.
func TestNastyBodies(t *testing.T) {
	var said spoken
	e := newEnv(t, envOptions{espeak: true, guard: said.check})
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	cases := []struct {
		name   string
		body   string
		status int
		param  string // for errors; "-" means null
	}{
		{"invalid utf-8 in input", "{\"voice\":\"alloy\",\"input\":\"caf\xe9 \xff\xfe\"}", 400, "-"},
		{"escaped lone surrogate", `{"voice":"alloy","input":"Hello \ud800 there."}`, 200, ""},
		{"raw NUL byte in the JSON", "{\"voice\":\"alloy\",\"input\":\"a\x00b\"}", 400, "-"},
		{"escaped NUL in input", `{"voice":"alloy","input":"Hello\u0000 there."}`, 200, ""},
		{"only NULs", `{"voice":"alloy","input":"\u0000\u0000"}`, 200, ""},
		{"4096 two-byte characters", `{"voice":"fake","input":"` + rep("é", 4096) + `"}`, 200, ""},
		{"4097 two-byte characters", `{"voice":"fake","input":"` + rep("é", 4097) + `"}`, 400, "input"},
		{"4096 emoji", `{"voice":"fake","input":"` + rep("😀", 4096) + `"}`, 200, ""},
		{"4097 ascii", `{"voice":"fake","input":"` + rep("a", 4097) + `"}`, 400, "input"},
		{"4096 chars as escapes", `{"voice":"fake","input":"` + rep(`\u00e9`, 4096) + `"}`, 200, ""},
		{"combining characters", `{"voice":"alloy","input":"Cafe\u0301 na\u0308ive Z\u0337\u0321a\u0336lgo."}`, 200, ""},
		{"emoji and RTL", `{"voice":"alloy","input":"Hello 👋🏽 \u202eolleh\u202c שלום مرحبا."}`, 200, ""},
		{"zero-width and BOM inside", `{"voice":"alloy","input":"\ufeffHe\u200bllo\u200d."}`, 200, ""},
		{"only punctuation", `{"voice":"alloy","input":"?!... ,;: -- !!"}`, 200, ""},
		{"only a tag", `{"voice":"alloy","input":"<|pause|>"}`, 200, ""},
		{"only tags, fake", `{"voice":"fake","input":"<|pause|><|slow|><|/slow|>"}`, 200, ""},
		{"10k nested tags", `{"voice":"fake","input":"` + rep("<|slow|>", 10000) + `hi"}`, 400, "input"},
		{"500 nested tags", `{"voice":"fake","input":"` + rep("<|slow|>", 500) + `hi` + rep("<|/slow|>", 2) + `"}`, 200, ""},
		{"500 broken tags", `{"voice":"fake","input":"` + rep("<|sl<|x|>ow|>", 300) + `"}`, 200, ""},
		{"speed 1e309", `{"voice":"alloy","input":"Hi.","speed":1e309}`, 400, "speed"},
		{"speed -0", `{"voice":"alloy","input":"Hi.","speed":-0}`, 400, "speed"},
		{"speed 1e-400", `{"voice":"alloy","input":"Hi.","speed":1e-400}`, 400, "speed"},
		{"speed NaN string", `{"voice":"alloy","input":"Hi.","speed":"NaN"}`, 400, "speed"},
		{"speed null", `{"voice":"alloy","input":"Hi.","speed":null}`, 200, ""},
		{"speed 0.25", `{"voice":"fake","input":"Hi.","speed":0.25}`, 200, ""},
		{"speed 4", `{"voice":"alloy","input":"Hi.","speed":4}`, 200, ""},
		{"speed 4.0000001", `{"voice":"alloy","input":"Hi.","speed":4.0000001}`, 400, "speed"},
		{"speed as string 1", `{"voice":"alloy","input":"Hi.","speed":"1"}`, 400, "speed"},
		{"voice object", `{"voice":{"id":"alloy"},"input":"Hi."}`, 200, ""},
		{"voice object number id", `{"voice":{"id":5},"input":"Hi."}`, 400, "voice.id"},
		{"voice array", `{"voice":["alloy"],"input":"Hi."}`, 400, "voice"},
		{"voice empty", `{"voice":"","input":"Hi."}`, 400, "voice"},
		{"voice with NUL", `{"voice":"alloy\u0000","input":"Hi."}`, 404, "voice"},
		{"voice path traversal", `{"voice":"../../etc/passwd","input":"Hi."}`, 404, "voice"},
		{"another account's clone", `{"voice":"other-clone","input":"Hi."}`, 404, "voice"},
		{"duplicate keys", `{"voice":"nobody","input":"x","voice":"alloy","response_format":"wav","response_format":"flac"}`, 200, ""},
		{"unknown fields", `{"voice":"alloy","input":"Hi.","foo":{"bar":[1,2,{"x":null}]},"temperature":0.7}`, 200, ""},
		{"BOM before JSON", "\ufeff{\"voice\":\"alloy\",\"input\":\"Hi.\"}", 200, ""},
		{"trailing garbage", `{"voice":"alloy","input":"Hi."}xyz`, 400, "-"},
		{"two objects", `{"voice":"alloy","input":"Hi."}{"voice":"alloy","input":"Hi."}`, 400, "-"},
		{"array body", `[{"voice":"alloy","input":"Hi."}]`, 400, "-"},
		{"null body", `null`, 400, "-"},
		{"empty body", ``, 400, "-"},
		{"deep nesting in unknown field", `{"voice":"alloy","input":"Hi.","x":` + rep("[", 100000) + rep("]", 100000) + `}`, 400, "-"},
		{"response_format upper case", `{"voice":"alloy","input":"Hi.","response_format":"MP3"}`, 400, "response_format"},
		{"response_format aac", `{"voice":"alloy","input":"Hi.","response_format":"aac"}`, 400, "response_format"},
		{"stream_format bogus", `{"voice":"alloy","input":"Hi.","stream_format":"ws"}`, 400, "stream_format"},
		{"instructions object", `{"voice":"alloy","input":"Hi.","instructions":{"a":1}}`, 400, "instructions"},
		{"model number", `{"voice":"alloy","input":"Hi.","model":1}`, 400, "model"},
		{"input number", `{"voice":"alloy","input":42}`, 400, "input"},
		{"input whitespace", `{"voice":"alloy","input":" \n\t "}`, 400, "input"},
		{"long instructions", `{"voice":"alloy","input":"Hi.","instructions":` + js(rep("x", 100000)) + `}`, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := e.post("/v1/audio/speech", c.body)
			body := readAll(t, res)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %.300s", res.StatusCode, c.status, body)
			}
			if c.status != 200 {
				ae, err := checkError(res.Header, body)
				if err != nil {
					t.Fatal(err)
				}
				param := "-"
				if ae.Param != nil {
					param = *ae.Param
				}
				if param != c.param {
					t.Errorf("param %s, want %s (%s)", param, c.param, ae.Message)
				}
				if strings.ContainsRune(ae.Message, 0) || !json.Valid(body) {
					t.Errorf("message %q", ae.Message)
				}
				return
			}
			var req struct {
				Format string `json:"response_format"`
			}
			json.Unmarshal([]byte(c.body), &req)
			if req.Format == "" {
				req.Format = "wav"
			}
			if err := checkAudio(res.Header, body, req.Format); err != nil {
				t.Fatal(err)
			}
			audiotest.ProbeBytes(t, body, req.Format) // ffprobe must read it
		})
	}
	if bad := said.take(); len(bad) > 0 {
		t.Errorf("the engine was asked to read tags aloud: %q", bad)
	}
}

// TestBodyLimits: over 1 MiB is 413 with JSON, even when sent chunked; a
// body just under the limit is read.
func TestBodyLimits(t *testing.T) {
	e := newEnv(t, envOptions{})
	small := `{"voice":"fake","input":"Hi."`
	under := small + strings.Repeat(" ", 1<<20-len(small)-1) + "}"
	over := small + strings.Repeat(" ", 1<<20-len(small)) + "}"
	for _, c := range []struct {
		name    string
		body    io.Reader
		status  int
		chunked bool
	}{
		{"exactly 1 MiB", strings.NewReader(under), 200, false},
		{"1 MiB + 1", strings.NewReader(over), 413, false},
		{"1 MiB + 1 chunked", io.MultiReader(strings.NewReader(over)), 413, true},
		{"50 MiB chunked", io.LimitReader(zeroReader{}, 50<<20), 413, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.url("/v1/audio/speech"), c.body)
			req.Header.Set("Authorization", "Bearer "+e.key)
			req.Header.Set("Content-Type", "application/json")
			res, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatalf("%v (the server should answer 413, not drop the connection)", err)
			}
			body := readAll(t, res)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if c.status != 200 {
				if _, err := checkError(res.Header, body); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestConcurrentCancellation: many streaming requests whose clients give
// up at different points; the server's goroutines return to the baseline
// and it keeps serving.
func TestConcurrentCancellation(t *testing.T) {
	e := newEnv(t, envOptions{})
	client := &http.Client{Transport: &http.Transport{}}
	ten := strings.Repeat("This is one sentence. ", 10)
	settle := func() int {
		client.CloseIdleConnections()
		e.ts.Client().CloseIdleConnections()
		time.Sleep(50 * time.Millisecond)
		return runtime.NumGoroutine()
	}
	base := settle()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			format := []string{"pcm", "mp3", "opus", "wav", "flac"}[i%5]
			body := fmt.Sprintf(`{"voice":"slow","input":%q,"response_format":%q,"stream_format":%q}`,
				ten, format, []string{"audio", "sse"}[i%2])
			req, _ := http.NewRequestWithContext(ctx, "POST", e.url("/v1/audio/speech"), strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+e.key)
			req.Header.Set("Content-Type", "application/json")
			// Give up before the headers, after a few bytes, or midway.
			time.AfterFunc(time.Duration(i%4)*40*time.Millisecond, cancel)
			res, err := client.Do(req)
			if err != nil {
				return
			}
			io.CopyN(io.Discard, res.Body, int64(i%3)*100)
			res.Body.Close()
		})
	}
	wg.Wait()
	expectGoroutines(t, base, settle)
	res := e.post("/v1/audio/speech", `{"voice":"fake","input":"Still here.","response_format":"pcm"}`)
	if body := readAll(t, res); res.StatusCode != 200 || len(body) == 0 {
		t.Errorf("after the storm: %d, %d bytes", res.StatusCode, len(body))
	}
}

// pcmSeconds is the duration of 24 kHz 16-bit pcm.
func pcmSeconds(b []byte) float64 { return float64(len(b)) / 2 / 24000 }

// rms of 16-bit little-endian pcm.
func rms(b []byte) float64 {
	var s float64
	n := len(b) / 2
	for i := range n {
		v := float64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		s += v * v
	}
	return math.Sqrt(s / float64(max(n, 1)))
}
