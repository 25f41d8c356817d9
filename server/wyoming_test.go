package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/tts"
)

// wyomingClient speaks to a Wyoming listener as Home Assistant does.
type wyomingClient struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialWyoming(t *testing.T, addr string) *wyomingClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	return &wyomingClient{t: t, c: c, r: bufio.NewReader(c)}
}

func (w *wyomingClient) send(typ string, data any) {
	w.t.Helper()
	if err := wyoming.Write(w.c, typ, data, nil); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wyomingClient) next() wyoming.Event {
	w.t.Helper()
	e, err := wyoming.Read(w.r)
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

// audio reads audio-start, the chunks and audio-stop, and returns the
// 16-bit PCM, its rate and how many chunks carried it.
func (w *wyomingClient) audio() (pcm []byte, rate, chunks int) {
	w.t.Helper()
	e := w.next()
	if e.Type != "audio-start" || string(e.Data["width"]) != "2" || string(e.Data["channels"]) != "1" {
		w.t.Fatalf("first event %s %v, want audio-start of 16-bit mono", e.Type, e.Data)
	}
	json.Unmarshal(e.Data["rate"], &rate)
	var buf bytes.Buffer
	for {
		e := w.next()
		switch e.Type {
		case "audio-chunk":
			if string(e.Data["rate"]) != strconv.Itoa(rate) {
				w.t.Fatalf("audio-chunk at %s Hz after audio-start at %d Hz", e.Data["rate"], rate)
			}
			buf.Write(e.Payload)
			chunks++
		case "audio-stop":
			return buf.Bytes(), rate, chunks
		default:
			w.t.Fatalf("event %s %v during audio", e.Type, e.Data)
		}
	}
}

// sameLength reports whether 16-bit PCM at rate lasts as long as the
// HTTP API's 24 kHz PCM, within 1%.
func sameLength(pcm []byte, rate int, httpPCM []byte) bool {
	d := float64(len(pcm)) / float64(rate)
	want := float64(len(httpPCM)) / float64(encode.DefaultSampleRate)
	return math.Abs(d-want) <= 0.01*want
}

func startWyoming(t *testing.T, e *env) string {
	t.Helper()
	return startWyomingAs(t, e, "local")
}

// startWyomingAs serves Wyoming for account on a new local port, and
// returns its address.
func startWyomingAs(t *testing.T, e *env, account string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.srv.ServeWyoming(l, account) }()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Addr().String()
}

// TestWyoming: the sequences Home Assistant sends, checked against the
// HTTP API's audio for the same text and voice.
func TestWyoming(t *testing.T) {
	e := newEnv(t, envOptions{})
	addr := startWyoming(t, e)
	text := "Hello from voxkit. This is the second sentence."
	res := e.do("POST", "/v1/audio/speech", e.key, "application/json", strings.NewReader(`{"voice":"en-us","response_format":"pcm","input":"`+text+`"}`))
	httpPCM, _ := io.ReadAll(res.Body)
	res.Body.Close()

	c := dialWyoming(t, addr)
	start := time.Now()
	c.send("describe", nil)
	info := c.next()
	if info.Type != "info" || time.Since(start) > time.Second {
		t.Fatalf("describe: %s after %v", info.Type, time.Since(start))
	}
	var programs struct {
		TTS []struct {
			Name      string `json:"name"`
			Streaming bool   `json:"supports_synthesize_streaming"`
			Voices    []struct {
				Name      string   `json:"name"`
				Languages []string `json:"languages"`
			} `json:"voices"`
		} `json:"tts"`
	}
	b, _ := json.Marshal(info.Data)
	json.Unmarshal(b, &programs)
	if len(programs.TTS) != 1 || !programs.TTS[0].Streaming || len(programs.TTS[0].Voices) < 3 {
		t.Fatalf("info: %s", b)
	}
	found := false
	for _, v := range programs.TTS[0].Voices {
		found = found || v.Name == "fake" && len(v.Languages) == 1 && v.Languages[0] == "en-US"
	}
	if !found {
		t.Errorf("info lists no voice fake with its language: %s", b)
	}

	// Whole text: one audio-start/stop pair, sentence by sentence.
	c.send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": "en-us"}})
	pcm, rate, chunks := c.audio()
	if rate != 22050 || !sameLength(pcm, rate, httpPCM) || chunks < 2 {
		t.Errorf("synthesize: %d bytes at %d Hz in %d chunks; the HTTP API made %d at 24 kHz", len(pcm), rate, chunks, len(httpPCM))
	}

	// Streaming, with the compatibility copy of the whole text.
	c.send("synthesize-start", map[string]any{"voice": map[string]any{"name": "en-us"}})
	for _, part := range []string{"Hello from ", "voxkit. This is the ", "second sentence."} {
		c.send("synthesize-chunk", map[string]any{"text": part})
	}
	c.send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": "en-us"}})
	c.send("synthesize-stop", nil)
	pcm, rate, _ = c.audio()
	if e := c.next(); e.Type != "synthesize-stopped" {
		t.Fatalf("after streaming: %s", e.Type)
	}
	if !sameLength(pcm, rate, httpPCM) {
		t.Errorf("streaming: %d bytes at %d Hz; the HTTP API made %d at 24 kHz", len(pcm), rate, len(httpPCM))
	}

	// By language; an unknown voice is an error, and the connection goes on.
	c.send("synthesize", map[string]any{"text": "Cheerio.", "voice": map[string]any{"language": "en-GB"}})
	if pcm, _, _ := c.audio(); len(pcm) == 0 {
		t.Error("by language: no audio")
	}
	c.send("synthesize", map[string]any{"text": "Hi.", "voice": map[string]any{"name": "nobody"}})
	if e := c.next(); e.Type != "error" || !strings.Contains(e.String("text"), "nobody") {
		t.Errorf("unknown voice: %s %v", e.Type, e.Data)
	}
	c.send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "en-us"}})
	if pcm, _, _ := c.audio(); len(pcm) == 0 {
		t.Error("after the error: no audio")
	}
}

// TestWyomingConnections: 20 connections one after another, then 8 at
// once, each describing and synthesizing.
func TestWyomingConnections(t *testing.T) {
	e := newEnv(t, envOptions{})
	addr := startWyoming(t, e)
	one := func(t *testing.T) {
		c := dialWyoming(t, addr)
		c.send("describe", nil)
		if ev := c.next(); ev.Type != "info" {
			t.Errorf("describe: %s", ev.Type)
		}
		c.send("synthesize", map[string]any{"text": "One sentence.", "voice": map[string]any{"name": "fake"}})
		if pcm, _, _ := c.audio(); len(pcm) == 0 {
			t.Error("no audio")
		}
	}
	for range 20 {
		one(t)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { one(t) })
	}
	wg.Wait()
}

// TestWyomingFraming: an oversized header is refused with an error event
// and the connection closed; nothing else is affected.
func TestWyomingFraming(t *testing.T) {
	e := newEnv(t, envOptions{})
	addr := startWyoming(t, e)
	c := dialWyoming(t, addr)
	c.c.Write([]byte(`{"type":"describe","pad":"` + strings.Repeat("a", wyoming.MaxHeader) + "\"}\n"))
	if ev := c.next(); ev.Type != "error" || ev.String("code") != "too_large" {
		t.Errorf("oversized header: %s %v", ev.Type, ev.Data)
	}
	if _, err := wyoming.Read(c.r); err == nil {
		t.Error("the connection stayed open after an oversized header")
	}
	d := dialWyoming(t, addr)
	d.send("describe", nil)
	if ev := d.next(); ev.Type != "info" {
		t.Errorf("another connection: %s", ev.Type)
	}
}

// TestWyomingPiper: a multi-speaker Piper model is one voice in info with
// its speakers, chosen by name and speaker, and each Piper voice speaks
// at its own rate.
func TestWyomingPiper(t *testing.T) {
	e := newPiperEnv(t)
	c := dialWyoming(t, startWyoming(t, e))
	c.send("describe", nil)
	var programs struct {
		TTS []struct {
			Voices []struct {
				Name     string `json:"name"`
				Speakers []struct {
					Name string `json:"name"`
				} `json:"speakers"`
			} `json:"voices"`
		} `json:"tts"`
	}
	b, _ := json.Marshal(c.next().Data)
	json.Unmarshal(b, &programs)
	speakers := map[string][]string{}
	for _, v := range programs.TTS[0].Voices {
		if _, dup := speakers[v.Name]; dup || strings.HasPrefix(v.Name, "en_GB-tonevctk-medium:") {
			t.Errorf("voice %s listed again or by speaker", v.Name)
		}
		speakers[v.Name] = []string{}
		for _, sp := range v.Speakers {
			speakers[v.Name] = append(speakers[v.Name], sp.Name)
		}
	}
	if vctk := speakers["en_GB-tonevctk-medium"]; len(vctk) != 109 || !slices.Contains(vctk, "p239") {
		t.Errorf("en_GB-tonevctk-medium speakers: %v", vctk)
	}
	if low, ok := speakers["en_US-tone-low"]; !ok || len(low) != 0 {
		t.Errorf("en_US-tone-low: listed %v, speakers %v", ok, low)
	}

	for _, tc := range []struct {
		voice    map[string]any
		httpID   string
		wantRate int
	}{
		{map[string]any{"name": "en_GB-tonevctk-medium", "speaker": "p239"}, "en_GB-tonevctk-medium:p239", 22050},
		{map[string]any{"name": "en_GB-tonevctk-medium"}, "en_GB-tonevctk-medium", 22050},
		{map[string]any{"name": "en_US-tone-low"}, "en_US-tone-low", 16000},
	} {
		text := "Tones for a test. And a second sentence."
		res := e.do("POST", "/v1/audio/speech", e.key, "application/json",
			strings.NewReader(`{"voice":"`+tc.httpID+`","response_format":"pcm","input":"`+text+`"}`))
		httpPCM, _ := io.ReadAll(res.Body)
		res.Body.Close()
		c.send("synthesize", map[string]any{"text": text, "voice": tc.voice})
		pcm, rate, _ := c.audio()
		if rate != tc.wantRate || !sameLength(pcm, rate, httpPCM) {
			t.Errorf("%v: %d bytes at %d Hz, want %d Hz as long as the HTTP API's %d bytes at 24 kHz", tc.voice, len(pcm), rate, tc.wantRate, len(httpPCM))
		}
	}
	c.send("synthesize", map[string]any{"text": "Hi.", "voice": map[string]any{"name": "en_GB-tonevctk-medium", "speaker": "nobody"}})
	if ev := c.next(); ev.Type != "error" || !strings.Contains(ev.String("text"), "nobody") {
		t.Errorf("unknown speaker: %s %v", ev.Type, ev.Data)
	}
}

// TestWyomingSSML: with text_format "ssml" the text is SSML, whole or in
// chunks; a break adds its time, malformed SSML and an unknown
// text_format are error events, and the connection goes on.
func TestWyomingSSML(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := dialWyoming(t, startWyoming(t, e))
	voice := map[string]any{"name": "en-us"}
	c.send("synthesize", map[string]any{"text": "Hello there. General Kenobi.", "voice": voice})
	plain, rate, _ := c.audio()
	const doc = `<speak>Hello there. <break time="1s"/>General Kenobi.</speak>`
	c.send("synthesize", map[string]any{"text": doc, "voice": voice, "text_format": "ssml"})
	pcm, _, _ := c.audio()
	if added := float64(len(pcm)-len(plain)) / 2 / float64(rate); math.Abs(added-1) > 0.02 {
		t.Errorf("whole SSML: the break added %.3f s, want 1 s", added)
	}
	c.send("synthesize-start", map[string]any{"voice": voice, "text_format": "ssml"})
	for _, part := range []string{`<speak>Hello there. <bre`, `ak time="1s"/>General `, `Kenobi.</speak>`} {
		c.send("synthesize-chunk", map[string]any{"text": part})
	}
	c.send("synthesize", map[string]any{"text": doc, "voice": voice})
	c.send("synthesize-stop", nil)
	streamed, _, _ := c.audio()
	if ev := c.next(); ev.Type != "synthesize-stopped" || math.Abs(float64(len(streamed)-len(pcm))) > 0.01*float64(len(pcm)) {
		t.Errorf("streamed SSML: %d bytes then %s; whole: %d bytes", len(streamed), ev.Type, len(pcm))
	}
	for _, bad := range []map[string]any{
		{"text": "<speak>Hello <break time=\"1s\"></speak>", "voice": voice, "text_format": "ssml"},
		{"text": "Hello.", "voice": voice, "text_format": "markdown"},
	} {
		c.send("synthesize", bad)
		if ev := c.next(); ev.Type != "error" || ev.String("code") == "" {
			t.Errorf("%v: %s %v, want an error event", bad, ev.Type, ev.Data)
		}
	}
	c.send("synthesize", map[string]any{"text": "Still here.", "voice": voice})
	if pcm, _, _ := c.audio(); len(pcm) == 0 {
		t.Error("after the errors: no audio")
	}
}

// BenchmarkWyomingFirstAudio measures, for streaming synthesis, the time
// from a sentence's text arriving to its first audio chunk, beside the
// time the synthesizer takes for that sentence alone (synth-ms): the
// difference is what the Wyoming front end adds.
func BenchmarkWyomingFirstAudio(b *testing.B) {
	e := newEnv(b, envOptions{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go e.srv.ServeWyoming(l, "local")
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	const sentence = "The quick brown fox jumps over the lazy dog. "
	var first, synth time.Duration
	for b.Loop() {
		start := time.Now()
		if _, _, err := e.synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: sentence, Format: encode.Format{Name: "pcm", SampleRate: 22050}}); err != nil {
			b.Fatal(err)
		}
		synth += time.Since(start)
		wyoming.Write(c, "synthesize-start", map[string]any{"voice": map[string]any{"name": "en-us"}}, nil)
		start = time.Now()
		wyoming.Write(c, "synthesize-chunk", map[string]any{"text": sentence}, nil)
		for {
			ev, err := wyoming.Read(r)
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == "audio-chunk" {
				first += time.Since(start)
				break
			}
		}
		wyoming.Write(c, "synthesize-stop", nil, nil)
		for {
			ev, err := wyoming.Read(r)
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == "synthesize-stopped" {
				break
			}
		}
	}
	b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "first-audio-ms")
	b.ReportMetric(float64(synth.Microseconds())/1000/float64(b.N), "synth-ms")
	b.ReportMetric(float64((first-synth).Microseconds())/1000/float64(b.N), "added-ms")
}
