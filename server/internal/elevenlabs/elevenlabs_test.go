package elevenlabs_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// TestElevenLabsHTTP: voices, speech in ElevenLabs' formats, timestamps
// and errors in ElevenLabs' shape.
func TestElevenLabsHTTP(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
	res, b := e.ElevenDo("GET", "/v1/voices", e.Key, "")
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
	if res, b := e.ElevenDo("GET", "/v1/voices", "sk_nope", ""); res.StatusCode != 401 || !strings.Contains(string(b), `"detail":{"status":"invalid_api_key"`) {
		t.Errorf("bad key: %d %s", res.StatusCode, b)
	}

	text := "Hello from voxkit. This is the second sentence."
	want := e.OpenAIPCM("en-us", text)
	body := `{"text":"` + text + `","model_id":"eleven_flash_v2_5","voice_settings":{"stability":0.5,"speed":1.0}}`
	res, pcm := e.ElevenDo("POST", "/v1/text-to-speech/en-us?output_format=pcm_24000", e.Key, body)
	if res.StatusCode != 200 || !testserver.CloseTo(len(pcm), len(want), 0.01) || !strings.Contains(res.Header.Get("X-Voxkit-Ignored"), "voice_settings.stability") {
		t.Errorf("pcm_24000: %d, %d bytes (OpenAI API: %d), ignored %q", res.StatusCode, len(pcm), len(want), res.Header.Get("X-Voxkit-Ignored"))
	}
	res, ulaw := e.ElevenDo("POST", "/v1/text-to-speech/en-us/stream?output_format=ulaw_8000", e.Key, body)
	if res.StatusCode != 200 || !testserver.CloseTo(len(ulaw)*3*2, len(want), 0.02) || res.Header.Get("Content-Type") != "audio/basic" {
		t.Errorf("ulaw_8000: %d, %d bytes, %s", res.StatusCode, len(ulaw), res.Header.Get("Content-Type"))
	}
	res, mp3 := e.ElevenDo("POST", "/v1/text-to-speech/en-us", e.Key, body)
	if p := audiotest.ProbeBytes(t, mp3, "mp3"); res.StatusCode != 200 || p.Codec != "mp3" || p.SampleRate != 44100 {
		t.Errorf("default format: %d %+v", res.StatusCode, p)
	}

	// Timestamps: every character, in order, and the normalized text's.
	res, b = e.ElevenDo("POST", "/v1/text-to-speech/en-us/with-timestamps?output_format=pcm_24000", e.Key, `{"text":"It costs $9.50 today."}`)
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
		if res, b := e.ElevenDo("POST", c.path, e.Key, c.body); res.StatusCode != c.status || !strings.Contains(string(b), c.want) {
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

// readElevenAudio reads a stream-input socket's audio messages, each
// also given to each (nil: none), up to isFinal; an error fails the test.
func readElevenAudio(t *testing.T, c *websocket.Conn, each func(testserver.ElevenWSMessage)) []byte {
	t.Helper()
	var pcm []byte
	for {
		m := testserver.ReadEleven(t, c)
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
	e := testserver.New(t, testserver.Options{})
	text := "Hello from voxkit. This is the second sentence."
	want := e.OpenAIPCM("en-us", text)
	c := e.ElevenSocket("/v1/text-to-speech/en-us/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_24000&sync_alignment=true&auto_mode=true&inactivity_timeout=60")
	testserver.SendJSON(t, c, map[string]any{"text": " ", "voice_settings": map[string]any{"stability": 0.5, "similarity_boost": 0.8, "speed": 1},
		"generation_config": map[string]any{"chunk_length_schedule": []int{120, 160, 250, 290}}})
	for _, w := range strings.Fields(text) {
		testserver.SendJSON(t, c, map[string]any{"text": w + " "})
	}
	testserver.SendJSON(t, c, map[string]any{"text": ""})
	var chars string
	pcm := readElevenAudio(t, c, func(m testserver.ElevenWSMessage) {
		if m.Alignment == nil || len(m.Alignment.Starts) != len(m.Alignment.Chars) || len(m.Alignment.Durs) != len(m.Alignment.Chars) {
			t.Fatalf("audio message without a whole alignment: %+v", m.Alignment)
		}
		chars += strings.Join(m.Alignment.Chars, "")
	})
	if !testserver.CloseTo(len(pcm), len(want), 0.1) {
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
	e := testserver.New(t, testserver.Options{})
	texts := map[string]string{"a": "The first context speaks this sentence.", "b": "Short one."}
	c := e.ElevenSocket("/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000")
	words := map[string][]string{}
	for id, text := range texts {
		testserver.SendJSON(t, c, map[string]any{"text": " ", "context_id": id, "voice_settings": map[string]any{}})
		words[id] = strings.Fields(text)
	}
	for i := 0; len(words["a"]) > 0 || len(words["b"]) > 0; i++ {
		for _, id := range []string{"a", "b"} {
			if len(words[id]) > 0 {
				testserver.SendJSON(t, c, map[string]any{"text": words[id][0] + " ", "context_id": id})
				words[id] = words[id][1:]
			}
		}
	}
	for id := range texts {
		testserver.SendJSON(t, c, map[string]any{"text": "", "context_id": id, "flush": true})
		testserver.SendJSON(t, c, map[string]any{"context_id": id, "close_context": true})
	}
	pcm := map[string][]byte{}
	final := map[string]bool{}
	for len(final) < 2 {
		m := testserver.ReadEleven(t, c)
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
		if want := e.OpenAIPCM("en-us", text); !testserver.CloseTo(len(pcm[id]), len(want), 0.1) {
			t.Errorf("context %s: %d bytes; the HTTP API made %d for its text", id, len(pcm[id]), len(want))
		}
	}
	testserver.SendJSON(t, c, map[string]any{"close_socket": true})
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
			e := testserver.New(b, testserver.Options{})
			h := http.Header{}
			h.Set("xi-api-key", e.Key)
			c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/elevenlabs/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000",
				&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
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
			testserver.ReportPercentiles(b, "", samples)
		})
	}
}

// TestElevenLabsTextTooLong: an over-long text is reported in ElevenLabs'
// shape, naming its own field: "text is N characters long".
func TestElevenLabsTextTooLong(t *testing.T) {
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) { o.MaxInput = 100 }})
	res, b := e.ElevenDo("POST", "/v1/text-to-speech/en-us", e.Key, `{"text":"`+strings.Repeat("Hello there. ", 20)+`"}`)
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
	testserver.Long(t)
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{Log: &log, WriteTimeout: 300 * time.Millisecond})
	body := `{"text":"` + strings.Repeat("One more sentence is spoken here. ", 110) + `"}`
	req, _ := http.NewRequestWithContext(t.Context(), "POST", e.TS.URL+"/elevenlabs/v1/text-to-speech/en-us/stream?output_format=pcm_48000",
		strings.NewReader(body))
	req.Header.Set("xi-api-key", e.Key)
	req.Header.Set("X-Request-Id", "eleven-stops-reading")
	res, err := e.TS.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line := log.RequestLine(t, "eleven-stops-reading") // logged while the body is unread
	if line["aborted"] != true || line["status"] != float64(200) || line["abort_reason"] == nil {
		t.Errorf("access log: %v; want status 200 aborted=true with an abort_reason", line)
	}
}

// TestElevenLabsCloseWithText: on multi-stream-input, one message that
// opens a context with its text and close_context speaks that text and
// ends with isFinal (before, it was dropped: no audio, no isFinal, the
// client waited for ever).
func TestElevenLabsCloseWithText(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	text := "Said in one message."
	c := e.ElevenSocket("/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000")
	testserver.SendJSON(t, c, map[string]any{"text": text, "context_id": "one", "close_context": true})
	testserver.SendJSON(t, c, map[string]any{"context_id": "never-opened", "close_context": true})
	pcm := readElevenAudio(t, c, nil)
	if want := e.OpenAIPCM("en-us", text); !testserver.CloseTo(len(pcm), len(want), 0.1) {
		t.Errorf("%d bytes of pcm; the HTTP API made %d for the text", len(pcm), len(want))
	}
}

// TestElevenLabsBreakTag: ElevenLabs' <break time="1s" /> pauses that
// long, over HTTP and on a socket (where it may come in pieces), and is
// not read aloud (it was spoken as "break time equals one s", 2.2 s
// longer than the text).
func TestElevenLabsBreakTag(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	plain := e.OpenAIPCM("en-us", "Hello there. How are you?")
	second := 24000 * 2 // bytes of a second of 24 kHz pcm
	for _, text := range []string{`Hello there. <break time="1s" /> How are you?`, `Hello there. <break time='1000ms'/> How are you?`} {
		body, _ := json.Marshal(map[string]any{"text": text})
		res, pcm := e.ElevenDo("POST", "/v1/text-to-speech/en-us?output_format=pcm_24000", e.Key, string(body))
		if got := len(pcm) - len(plain); res.StatusCode != 200 || got < second*8/10 || got > second*12/10 {
			t.Errorf("HTTP %q: %d, %.2f s longer than the text without it, want 1 s", text, res.StatusCode, float64(got)/float64(second))
		}
	}
	c := e.ElevenSocket("/v1/text-to-speech/en-us/stream-input?output_format=pcm_24000")
	testserver.SendJSON(t, c, map[string]any{"text": " "})
	for _, piece := range []string{"Hello there. <bre", `ak `, `time="1s"/> `, "How are you?"} { // a tag in pieces, as a word tokenizer sends it
		testserver.SendJSON(t, c, map[string]any{"text": piece})
	}
	testserver.SendJSON(t, c, map[string]any{"text": ""})
	pcm := readElevenAudio(t, c, nil)
	if got := len(pcm) - len(plain); got < second*8/10 || got > second*12/10 {
		t.Errorf("stream-input: %.2f s longer than the text without the break, want 1 s", float64(got)/float64(second))
	}
}
