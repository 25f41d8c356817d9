package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/internal/audiotest"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// elevenDo sends an ElevenLabs API request with the key in xi-api-key.
func (e *env) elevenDo(method, path, key, body string) (*http.Response, []byte) {
	e.t.Helper()
	return e.vendorDo(method, "/elevenlabs"+path, body, "xi-api-key", key)
}

// vendorDo sends a request to path, JSON unless the headers, given as
// name, value pairs, say another Content-Type, and returns the response
// and its body.
func (e *env) vendorDo(method, path, body string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b
}

// openAIPCM is the OpenAI API's 24 kHz pcm of text in voice.
func (e *env) openAIPCM(voice, text string) []byte {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"voice": voice, "input": text, "response_format": "pcm"})
	res := e.do("POST", "/v1/audio/speech", e.key, "application/json", strings.NewReader(string(body)))
	pcm, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return pcm
}

func closeTo(got, want int, frac float64) bool {
	return math.Abs(float64(got-want)) <= frac*float64(want)
}

// TestElevenLabsHTTP: voices, speech in ElevenLabs' formats, timestamps
// and errors in ElevenLabs' shape.
func TestElevenLabsHTTP(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := newEnv(t, envOptions{})
	res, b := e.elevenDo("GET", "/v1/voices", e.key, "")
	var list struct {
		Voices []struct {
			VoiceID  string `json:"voice_id"`
			Category string `json:"category"`
		} `json:"voices"`
	}
	json.Unmarshal(b, &list)
	found := map[string]string{}
	for _, v := range list.Voices {
		found[v.VoiceID] = v.Category
	}
	if res.StatusCode != 200 || found["en-us"] != "premade" || found["local-clone"] != "cloned" || found["other-clone"] != "" {
		t.Errorf("voices: %d %s", res.StatusCode, b)
	}
	if res, b := e.elevenDo("GET", "/v1/voices", "sk_nope", ""); res.StatusCode != 401 || !strings.Contains(string(b), `"detail":{"status":"invalid_api_key"`) {
		t.Errorf("bad key: %d %s", res.StatusCode, b)
	}

	text := "Hello from voxkit. This is the second sentence."
	want := e.openAIPCM("en-us", text)
	body := `{"text":"` + text + `","model_id":"eleven_flash_v2_5","voice_settings":{"stability":0.5,"speed":1.0}}`
	res, pcm := e.elevenDo("POST", "/v1/text-to-speech/en-us?output_format=pcm_24000", e.key, body)
	if res.StatusCode != 200 || !closeTo(len(pcm), len(want), 0.01) || !strings.Contains(res.Header.Get("X-Voxkit-Ignored"), "voice_settings.stability") {
		t.Errorf("pcm_24000: %d, %d bytes (OpenAI API: %d), ignored %q", res.StatusCode, len(pcm), len(want), res.Header.Get("X-Voxkit-Ignored"))
	}
	res, ulaw := e.elevenDo("POST", "/v1/text-to-speech/en-us/stream?output_format=ulaw_8000", e.key, body)
	if res.StatusCode != 200 || !closeTo(len(ulaw)*3*2, len(want), 0.02) || res.Header.Get("Content-Type") != "audio/basic" {
		t.Errorf("ulaw_8000: %d, %d bytes, %s", res.StatusCode, len(ulaw), res.Header.Get("Content-Type"))
	}
	res, mp3 := e.elevenDo("POST", "/v1/text-to-speech/en-us", e.key, body)
	if p := audiotest.ProbeBytes(t, mp3, "mp3"); res.StatusCode != 200 || p.Codec != "mp3" || p.SampleRate != 44100 {
		t.Errorf("default format: %d %+v", res.StatusCode, p)
	}

	// Timestamps: every character, in order, and the normalized text's.
	res, b = e.elevenDo("POST", "/v1/text-to-speech/en-us/with-timestamps?output_format=pcm_24000", e.key, `{"text":"It costs $9.50 today."}`)
	var ts struct {
		Audio      string          `json:"audio_base64"`
		Alignment  elevenAlignment `json:"alignment"`
		Normalized elevenAlignment `json:"normalized_alignment"`
	}
	json.Unmarshal(b, &ts)
	audio, _ := base64.StdEncoding.DecodeString(ts.Audio)
	if res.StatusCode != 200 || len(audio) == 0 || strings.Join(ts.Alignment.Chars, "") != "It costs $9.50 today." {
		t.Fatalf("with-timestamps: %d %.300s", res.StatusCode, b)
	}
	ts.Alignment.check(t, float64(len(audio))/2/24000)
	if n := strings.Join(ts.Normalized.Chars, ""); !strings.Contains(n, "nine dollars") {
		t.Errorf("normalized alignment: %q", n)
	}
	ts.Normalized.check(t, float64(len(audio))/2/24000)

	for _, c := range []struct {
		path, body, want string
		status           int
	}{
		{"/v1/text-to-speech/nobody", body, `"status":"voice_not_found"`, 404},
		{"/v1/text-to-speech/en-us?output_format=pcm_11025", body, `"status":"invalid_output_format"`, 400},
		{"/v1/text-to-speech/en-us", `{"text":""}`, `"detail"`, 422},
		{"/v1/text-to-speech/en-us", `{"text":`, `"detail"`, 422},
		{"/v1/text-to-speech/en-us", `{"text":"Hi.","voice_settings":{"speed":9}}`, `"status":"invalid_voice_settings"`, 400},
	} {
		if res, b := e.elevenDo("POST", c.path, e.key, c.body); res.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s %s: %d %s", c.path, c.body, res.StatusCode, b)
		}
	}
}

// elevenAlignment is the HTTP API's character alignment.
type elevenAlignment struct {
	Chars  []string  `json:"characters"`
	Starts []float64 `json:"character_start_times_seconds"`
	Ends   []float64 `json:"character_end_times_seconds"`
}

// check: one start and end per character, in order, within the audio.
func (a elevenAlignment) check(t *testing.T, audio float64) {
	t.Helper()
	if len(a.Starts) != len(a.Chars) || len(a.Ends) != len(a.Chars) {
		t.Fatalf("alignment of %d characters has %d starts, %d ends", len(a.Chars), len(a.Starts), len(a.Ends))
	}
	for i := range a.Chars {
		if a.Ends[i] < a.Starts[i] || i > 0 && a.Starts[i] < a.Starts[i-1]-0.001 || a.Ends[i] > audio+0.01 {
			t.Errorf("character %d %q: %.3f–%.3f after %.3f (audio %.3f s)", i, a.Chars[i], a.Starts[i], a.Ends[i], a.Starts[max(i-1, 0)], audio)
		}
	}
	if len(a.Chars) > 0 && a.Ends[len(a.Ends)-1] < audio/2 {
		t.Errorf("alignment ends at %.3f s of %.3f s of audio", a.Ends[len(a.Ends)-1], audio)
	}
}

// elevenSocket dials an ElevenLabs WebSocket of the test server.
func (e *env) elevenSocket(path string) *websocket.Conn {
	e.t.Helper()
	h := http.Header{}
	h.Set("xi-api-key", e.key)
	c, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/elevenlabs"+path,
		&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: h})
	if err != nil {
		e.t.Fatalf("dial %s: %v %v", path, err, res)
	}
	c.SetReadLimit(16 << 20)
	e.t.Cleanup(func() { c.CloseNow() })
	return c
}

// elevenWSMessage is a server message of the ElevenLabs sockets.
type elevenWSMessage struct {
	Audio     string `json:"audio"`
	IsFinal   *bool  `json:"isFinal"`
	ContextID string `json:"contextId"`
	Error     string `json:"error"`
	Alignment *struct {
		Chars  []string `json:"chars"`
		Starts []int    `json:"charStartTimesMs"`
		Durs   []int    `json:"charDurationsMs"`
	} `json:"alignment"`
}

func sendJSON(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func readEleven(t *testing.T, c *websocket.Conn) elevenWSMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m elevenWSMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// readElevenAudio reads a stream-input socket's audio messages, each
// also given to each (nil: none), up to isFinal; an error fails the test.
func readElevenAudio(t *testing.T, c *websocket.Conn, each func(elevenWSMessage)) []byte {
	t.Helper()
	var pcm []byte
	for {
		m := readEleven(t, c)
		if m.Error != "" {
			t.Fatalf("error: %s", m.Error)
		}
		if m.IsFinal != nil && *m.IsFinal {
			return pcm
		}
		a, _ := base64.StdEncoding.DecodeString(m.Audio)
		pcm = append(pcm, a...)
		if each != nil {
			each(m)
		}
	}
}

// TestElevenLabsStreamInput replays what LiveKit's ElevenLabs plugin
// sends: a " " opening with voice settings and a chunk schedule, words
// with trailing spaces, "" to end; the audio is the HTTP API's length
// within 10 %, with alignment, then isFinal.
func TestElevenLabsStreamInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	text := "Hello from voxkit. This is the second sentence."
	want := e.openAIPCM("en-us", text)
	c := e.elevenSocket("/v1/text-to-speech/en-us/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_24000&sync_alignment=true&auto_mode=true&inactivity_timeout=60")
	sendJSON(t, c, map[string]any{"text": " ", "voice_settings": map[string]any{"stability": 0.5, "similarity_boost": 0.8, "speed": 1},
		"generation_config": map[string]any{"chunk_length_schedule": []int{120, 160, 250, 290}}})
	for _, w := range strings.Fields(text) {
		sendJSON(t, c, map[string]any{"text": w + " "})
	}
	sendJSON(t, c, map[string]any{"text": ""})
	var chars string
	pcm := readElevenAudio(t, c, func(m elevenWSMessage) {
		if m.Alignment == nil || len(m.Alignment.Starts) != len(m.Alignment.Chars) || len(m.Alignment.Durs) != len(m.Alignment.Chars) {
			t.Fatalf("audio message without a whole alignment: %+v", m.Alignment)
		}
		chars += strings.Join(m.Alignment.Chars, "")
	})
	if !closeTo(len(pcm), len(want), 0.1) {
		t.Errorf("stream-input: %d bytes of pcm; the HTTP API made %d", len(pcm), len(want))
	}
	if strings.TrimSpace(chars) != text {
		t.Errorf("alignment characters %q, want %q", chars, text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after isFinal: %v, want a normal close", err)
	}
}

// TestElevenLabsMultiStream: two contexts interleaved on one socket; each
// context's audio is its own text's, with isFinal per context.
func TestElevenLabsMultiStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	texts := map[string]string{"a": "The first context speaks this sentence.", "b": "Short one."}
	c := e.elevenSocket("/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000")
	words := map[string][]string{}
	for id, text := range texts {
		sendJSON(t, c, map[string]any{"text": " ", "context_id": id, "voice_settings": map[string]any{}})
		words[id] = strings.Fields(text)
	}
	for i := 0; len(words["a"]) > 0 || len(words["b"]) > 0; i++ {
		for _, id := range []string{"a", "b"} {
			if len(words[id]) > 0 {
				sendJSON(t, c, map[string]any{"text": words[id][0] + " ", "context_id": id})
				words[id] = words[id][1:]
			}
		}
	}
	for id := range texts {
		sendJSON(t, c, map[string]any{"text": "", "context_id": id, "flush": true})
		sendJSON(t, c, map[string]any{"context_id": id, "close_context": true})
	}
	pcm := map[string][]byte{}
	final := map[string]bool{}
	for len(final) < 2 {
		m := readEleven(t, c)
		switch {
		case m.Error != "":
			t.Fatalf("error: %s", m.Error)
		case m.IsFinal != nil && *m.IsFinal:
			final[m.ContextID] = true
		default:
			a, _ := base64.StdEncoding.DecodeString(m.Audio)
			pcm[m.ContextID] = append(pcm[m.ContextID], a...)
		}
	}
	for id, text := range texts {
		if want := e.openAIPCM("en-us", text); !closeTo(len(pcm[id]), len(want), 0.1) {
			t.Errorf("context %s: %d bytes; the HTTP API made %d for its text", id, len(pcm[id]), len(want))
		}
	}
	sendJSON(t, c, map[string]any{"close_socket": true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("close_socket: %v", err)
	}
}

// BenchmarkElevenLabsFirstAudio measures, on a multi-stream-input socket,
// the time from a context's sentence-ending text to that context's first
// audio message: one context alone, and four fed at once (p50 and p99
// over every context's sentence).
func BenchmarkElevenLabsFirstAudio(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(strconv.Itoa(n)+"-contexts", func(b *testing.B) {
			e := newEnv(b, envOptions{})
			h := http.Header{}
			h.Set("xi-api-key", e.key)
			c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/elevenlabs/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000",
				&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: h})
			if err != nil {
				b.Fatal(err)
			}
			defer c.CloseNow()
			c.SetReadLimit(16 << 20)
			send := func(v any) {
				data, _ := json.Marshal(v)
				if err := c.Write(context.Background(), websocket.MessageText, data); err != nil {
					b.Fatal(err)
				}
			}
			var samples []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				for k := range n {
					id := fmt.Sprintf("c%d-%d", i, k)
					send(map[string]any{"text": " ", "context_id": id})
					send(map[string]any{"text": "The quick brown fox jumps over the lazy dog. ", "context_id": id})
					send(map[string]any{"context_id": id, "close_context": true})
				}
				first := map[string]bool{}
				for final := 0; final < n; {
					_, data, err := c.Read(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					var m struct {
						ContextID string `json:"contextId"`
						IsFinal   *bool  `json:"isFinal"`
						Audio     string `json:"audio"`
					}
					json.Unmarshal(data, &m)
					if m.IsFinal != nil && *m.IsFinal {
						final++
					} else if m.Audio != "" && !first[m.ContextID] {
						first[m.ContextID] = true
						samples = append(samples, time.Since(start))
					}
				}
			}
			reportPercentiles(b, "", samples)
		})
	}
}

// TestElevenLabsTextTooLong: an over-long text is reported in ElevenLabs'
// shape, naming its own field: "text is N characters long".
func TestElevenLabsTextTooLong(t *testing.T) {
	e := newEnv(t, envOptions{synth: func(o *tts.Options) { o.MaxInput = 100 }})
	res, b := e.elevenDo("POST", "/v1/text-to-speech/en-us", e.key, `{"text":"`+strings.Repeat("Hello there. ", 20)+`"}`)
	var got struct {
		Detail struct{ Status, Message string } `json:"detail"`
	}
	json.Unmarshal(b, &got)
	if res.StatusCode != 400 || got.Detail.Status != wire.CodeStringTooLong || !strings.HasPrefix(got.Detail.Message, "text is 260 characters long") {
		t.Errorf("%d %s; want 400 string_above_max_length saying text is 260 characters long", res.StatusCode, b)
	}
}

// TestElevenLabsSlowReaderIsCut: a client that stops reading an
// ElevenLabs speech stream is cut off after the write timeout, as on
// /v1: the answer is logged aborted while its body is unread, with less
// than the whole stream sent.
func TestElevenLabsSlowReaderIsCut(t *testing.T) {
	long(t)
	var log syncBuffer
	e := newEnv(t, envOptions{log: &log, writeTimeout: 300 * time.Millisecond})
	body := `{"text":"` + strings.Repeat("One more sentence is spoken here. ", 110) + `"}`
	req, _ := http.NewRequestWithContext(t.Context(), "POST", e.ts.URL+"/elevenlabs/v1/text-to-speech/en-us/stream?output_format=pcm_48000",
		strings.NewReader(body))
	req.Header.Set("xi-api-key", e.key)
	req.Header.Set("X-Request-Id", "eleven-stops-reading")
	res, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line := log.requestLine(t, "eleven-stops-reading") // logged while the body is unread
	if line["aborted"] != true || line["status"] != float64(200) || line["abort_reason"] == nil {
		t.Errorf("access log: %v; want status 200 aborted=true with an abort_reason", line)
	}
}
