package wyoming_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/tts"
)

// TestWyoming: the sequences Home Assistant sends, checked against the
// HTTP API's audio for the same text and voice.
func TestWyoming(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	addr := testserver.StartWyoming(t, e)
	text := "Hello from voxkit. This is the second sentence."
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","response_format":"pcm","input":"`+text+`"}`))
	httpPCM, _ := io.ReadAll(res.Body)
	res.Body.Close()

	c := testserver.DialWyoming(t, addr)
	start := time.Now()
	c.Send("describe", nil)
	info := c.Next()
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
	c.Send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": "en-us"}})
	pcm, rate, chunks := c.Audio()
	if rate != 22050 || !testserver.SameLength(pcm, rate, httpPCM) || chunks < 2 {
		t.Errorf("synthesize: %d bytes at %d Hz in %d chunks; the HTTP API made %d at 24 kHz", len(pcm), rate, chunks, len(httpPCM))
	}

	// Streaming, with the compatibility copy of the whole text.
	c.Send("synthesize-start", map[string]any{"voice": map[string]any{"name": "en-us"}})
	for _, part := range []string{"Hello from ", "voxkit. This is the ", "second sentence."} {
		c.Send("synthesize-chunk", map[string]any{"text": part})
	}
	c.Send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": "en-us"}})
	c.Send("synthesize-stop", nil)
	pcm, rate, _ = c.Audio()
	if e := c.Next(); e.Type != "synthesize-stopped" {
		t.Fatalf("after streaming: %s", e.Type)
	}
	if !testserver.SameLength(pcm, rate, httpPCM) {
		t.Errorf("streaming: %d bytes at %d Hz; the HTTP API made %d at 24 kHz", len(pcm), rate, len(httpPCM))
	}

	// By language; an unknown voice is an error, and the connection goes on.
	c.Send("synthesize", map[string]any{"text": "Cheerio.", "voice": map[string]any{"language": "en-GB"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("by language: no audio")
	}
	c.Send("synthesize", map[string]any{"text": "Hi.", "voice": map[string]any{"name": "nobody"}})
	if e := c.Next(); e.Type != "error" || !strings.Contains(e.String("text"), "nobody") {
		t.Errorf("unknown voice: %s %v", e.Type, e.Data)
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "en-us"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("after the error: no audio")
	}
}

// TestWyomingConnections: 20 connections one after another, then 8 at
// once, each describing and synthesizing.
func TestWyomingConnections(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	addr := testserver.StartWyoming(t, e)
	one := func(t *testing.T) {
		c := testserver.DialWyoming(t, addr)
		c.Send("describe", nil)
		if ev := c.Next(); ev.Type != "info" {
			t.Errorf("describe: %s", ev.Type)
		}
		c.Send("synthesize", map[string]any{"text": "One sentence.", "voice": map[string]any{"name": "fake"}})
		if pcm, _, _ := c.Audio(); len(pcm) == 0 {
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
	e := testserver.New(t, testserver.Options{})
	addr := testserver.StartWyoming(t, e)
	c := testserver.DialWyoming(t, addr)
	c.C.Write([]byte(`{"type":"describe","pad":"` + strings.Repeat("a", wyoming.MaxHeader) + "\"}\n"))
	if ev := c.Next(); ev.Type != "error" || ev.String("code") != "too_large" {
		t.Errorf("oversized header: %s %v", ev.Type, ev.Data)
	}
	if _, err := wyoming.Read(c.R); err == nil {
		t.Error("the connection stayed open after an oversized header")
	}
	d := testserver.DialWyoming(t, addr)
	d.Send("describe", nil)
	if ev := d.Next(); ev.Type != "info" {
		t.Errorf("another connection: %s", ev.Type)
	}
}

// TestWyomingPiper: a multi-speaker Piper model is one voice in info with
// its speakers, chosen by name and speaker, and each Piper voice speaks
// at its own rate.
func TestWyomingPiper(t *testing.T) {
	e := testserver.NewPiperEnv(t)
	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	c.Send("describe", nil)
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
	b, _ := json.Marshal(c.Next().Data)
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
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
			strings.NewReader(`{"voice":"`+tc.httpID+`","response_format":"pcm","input":"`+text+`"}`))
		httpPCM, _ := io.ReadAll(res.Body)
		res.Body.Close()
		c.Send("synthesize", map[string]any{"text": text, "voice": tc.voice})
		pcm, rate, _ := c.Audio()
		if rate != tc.wantRate || !testserver.SameLength(pcm, rate, httpPCM) {
			t.Errorf("%v: %d bytes at %d Hz, want %d Hz as long as the HTTP API's %d bytes at 24 kHz", tc.voice, len(pcm), rate, tc.wantRate, len(httpPCM))
		}
	}
	c.Send("synthesize", map[string]any{"text": "Hi.", "voice": map[string]any{"name": "en_GB-tonevctk-medium", "speaker": "nobody"}})
	if ev := c.Next(); ev.Type != "error" || !strings.Contains(ev.String("text"), "nobody") {
		t.Errorf("unknown speaker: %s %v", ev.Type, ev.Data)
	}
}

// TestWyomingSSML: with text_format "ssml" the text is SSML, whole or in
// chunks; a break adds its time, malformed SSML and an unknown
// text_format are error events, and the connection goes on.
func TestWyomingSSML(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	voice := map[string]any{"name": "en-us"}
	c.Send("synthesize", map[string]any{"text": "Hello there. General Kenobi.", "voice": voice})
	plain, rate, _ := c.Audio()
	const doc = `<speak>Hello there. <break time="1s"/>General Kenobi.</speak>`
	c.Send("synthesize", map[string]any{"text": doc, "voice": voice, "text_format": "ssml"})
	pcm, _, _ := c.Audio()
	if added := float64(len(pcm)-len(plain)) / 2 / float64(rate); math.Abs(added-1) > 0.02 {
		t.Errorf("whole SSML: the break added %.3f s, want 1 s", added)
	}
	c.Send("synthesize-start", map[string]any{"voice": voice, "text_format": "ssml"})
	for _, part := range []string{`<speak>Hello there. <bre`, `ak time="1s"/>General `, `Kenobi.</speak>`} {
		c.Send("synthesize-chunk", map[string]any{"text": part})
	}
	c.Send("synthesize", map[string]any{"text": doc, "voice": voice})
	c.Send("synthesize-stop", nil)
	streamed, _, _ := c.Audio()
	if ev := c.Next(); ev.Type != "synthesize-stopped" || math.Abs(float64(len(streamed)-len(pcm))) > 0.01*float64(len(pcm)) {
		t.Errorf("streamed SSML: %d bytes then %s; whole: %d bytes", len(streamed), ev.Type, len(pcm))
	}
	for _, bad := range []map[string]any{
		{"text": "<speak>Hello <break time=\"1s\"></speak>", "voice": voice, "text_format": "ssml"},
		{"text": "Hello.", "voice": voice, "text_format": "markdown"},
	} {
		c.Send("synthesize", bad)
		if ev := c.Next(); ev.Type != "error" || ev.String("code") == "" {
			t.Errorf("%v: %s %v, want an error event", bad, ev.Type, ev.Data)
		}
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": voice})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("after the errors: no audio")
	}
}

// BenchmarkWyomingFirstAudio measures, for streaming synthesis, the time
// from a sentence's text arriving to its first audio chunk, beside the
// time the synthesizer takes for that sentence alone (synth-ms): the
// difference is what the Wyoming front end adds.
func BenchmarkWyomingFirstAudio(b *testing.B) {
	e := testserver.New(b, testserver.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go e.Server.ServeWyoming(l, "local")
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
		if _, _, err := e.Synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: sentence, Format: encode.Format{Name: "pcm", SampleRate: 22050}}); err != nil {
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
