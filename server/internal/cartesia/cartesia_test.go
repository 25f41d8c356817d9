package cartesia_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// cartesiaBody is a generation request of text in en-us at 24 kHz in
// container and encoding.
func cartesiaBody(text, container, encoding string) string {
	b, _ := json.Marshal(map[string]any{"model_id": "sonic-3", "transcript": text, "voice": map[string]any{"mode": "id", "id": "en-us"},
		"output_format": map[string]any{"container": container, "encoding": encoding, "sample_rate": 24000}, "language": "en"})
	return string(b)
}

// TestCartesiaHTTP: voices in pages, /tts/bytes in Cartesia's formats,
// /tts/sse with word timestamps, errors in Cartesia's shape.
func TestCartesiaHTTP(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
	res, b := e.CartesiaDo("GET", "/voices?limit=100", e.Key, "")
	var page struct {
		Data []struct {
			ID      string `json:"id"`
			IsOwner bool   `json:"is_owner"`
		} `json:"data"`
		HasMore bool `json:"has_more"`
	}
	json.Unmarshal(b, &page)
	owned := map[string]bool{}
	for _, v := range page.Data {
		owned[v.ID] = v.IsOwner
	}
	if _, ok := owned["en-us"]; res.StatusCode != 200 || !ok || !owned["local-clone"] {
		t.Errorf("voices: %d %.300s", res.StatusCode, b)
	}
	_, b = e.CartesiaDo("GET", "/voices?limit=2", e.Key, "")
	json.Unmarshal(b, &page)
	first := page.Data
	_, b = e.CartesiaDo("GET", "/voices?limit=2&starting_after="+first[1].ID, e.Key, "")
	json.Unmarshal(b, &page)
	if len(first) != 2 || len(page.Data) != 2 || page.Data[0].ID == first[1].ID || !page.HasMore {
		t.Errorf("pages: %v then %v", first, page.Data)
	}
	if res, b := e.CartesiaDo("GET", "/voices", "sk_nope", ""); res.StatusCode != 401 || !strings.Contains(string(b), `"message"`) {
		t.Errorf("bad key: %d %s", res.StatusCode, b)
	}

	text := "Hello from voxkit. This is the second sentence."
	want := e.OpenAIPCM("en-us", text)
	for _, c := range []struct {
		container, encoding, contentType string
		bytesPerSample                   int
		header                           int
	}{
		{"raw", "pcm_s16le", "audio/pcm", 2, 0},
		{"raw", "pcm_f32le", "audio/pcm", 4, 0},
		{"raw", "pcm_mulaw", "audio/basic", 1, 0},
		{"wav", "pcm_s16le", "audio/wav", 2, 44},
		{"wav", "pcm_f32le", "audio/wav", 4, 44},
		{"wav", "pcm_alaw", "audio/wav", 1, 44},
	} {
		res, audio := e.CartesiaDo("POST", "/tts/bytes", e.Key, cartesiaBody(text, c.container, c.encoding))
		samples := (len(audio) - c.header) / c.bytesPerSample
		if res.StatusCode != 200 || !testserver.CloseTo(samples*2, len(want), 0.01) || !strings.HasPrefix(res.Header.Get("Content-Type"), c.contentType) ||
			!strings.Contains(res.Header.Get("X-Voxkit-Ignored"), "model_id") {
			t.Errorf("%s %s: %d, %d samples (OpenAI API: %d), %s, ignored %q", c.container, c.encoding, res.StatusCode, samples, len(want)/2,
				res.Header.Get("Content-Type"), res.Header.Get("X-Voxkit-Ignored"))
			continue
		}
		if c.container == "wav" {
			if p := audiotest.ProbeBytes(t, audio, "wav"); p.SampleRate != 24000 {
				t.Errorf("wav %s: %+v", c.encoding, p)
			}
		}
		if c.encoding == "pcm_f32le" && c.container == "raw" { // floats in [-1, 1], as loud as the 16-bit samples
			var sum, wantSum float64
			for i := range samples {
				f := float64(math.Float32frombits(binary.LittleEndian.Uint32(audio[4*i:])))
				if math.IsNaN(f) || f < -1 || f > 1 {
					t.Fatalf("f32le sample %d: %v", i, f)
				}
				sum += f * f
			}
			for i := range len(want) / 2 {
				s := float64(int16(binary.LittleEndian.Uint16(want[2*i:]))) / 32768
				wantSum += s * s
			}
			if rms, wantRMS := math.Sqrt(sum/float64(samples)), math.Sqrt(wantSum/float64(len(want)/2)); math.Abs(rms-wantRMS) > 0.05*wantRMS {
				t.Errorf("f32le: RMS %.4f, the 16-bit samples' %.4f", rms, wantRMS)
			}
		}
	}
	res, mp3 := e.CartesiaDo("POST", "/tts/bytes", e.Key, `{"transcript":"Hello there.","voice":{"mode":"id","id":"en-us"},"output_format":{"container":"mp3","sample_rate":44100,"bit_rate":128000}}`)
	if p := audiotest.ProbeBytes(t, mp3, "mp3"); res.StatusCode != 200 || p.Codec != "mp3" || p.SampleRate != 44100 {
		t.Errorf("mp3: %d %+v", res.StatusCode, p)
	}

	// SSE: chunk events whose audio is the whole speech, word timestamps
	// in order within it, then done.
	body := `{"transcript":"It costs $9.50 today. Thanks.","voice":"en-us","add_timestamps":true,"context_id":"c1",` +
		`"output_format":{"container":"raw","encoding":"pcm_s16le","sample_rate":24000}}`
	res, b = e.CartesiaDo("POST", "/tts/sse", e.Key, body)
	var pcm []byte
	var words []string
	var last float64
	done := false
	for _, line := range strings.Split(string(b), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type      string `json:"type"`
			Data      string `json:"data"`
			ContextID string `json:"context_id"`
			Words     struct {
				Words []string  `json:"words"`
				Start []float64 `json:"start"`
			} `json:"word_timestamps"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.ContextID != "c1" {
			t.Fatalf("event %q: %v", data, err)
		}
		switch ev.Type {
		case "chunk":
			a, _ := base64.StdEncoding.DecodeString(ev.Data)
			pcm = append(pcm, a...)
		case "timestamps":
			words = append(words, ev.Words.Words...)
			for _, s := range ev.Words.Start {
				if s < last {
					t.Errorf("word starts go back: %v", ev.Words.Start)
				}
				last = s
			}
		case "done":
			done = true
		}
	}
	if res.StatusCode != 200 || !done || len(pcm) == 0 || strings.Join(words, " ") != "It costs $9.50 today Thanks" || last > float64(len(pcm))/2/24000 {
		t.Errorf("sse: %d, done %v, %d bytes, words %q, last start %.3f s: %.400s", res.StatusCode, done, len(pcm), words, last, b)
	}
	res, b = e.CartesiaDo("POST", "/tts/sse", e.Key, strings.Replace(body, `"add_timestamps":true`, `"add_timestamps":true,"use_normalized_timestamps":true`, 1))
	if !strings.Contains(string(b), `"nine"`) || !strings.Contains(string(b), `"dollars"`) {
		t.Errorf("normalized timestamps: %.600s", b)
	}
	// Normalized words, as the words as written, come without their
	// punctuation (they came as "cents", "today." and "Thanks!").
	if !strings.Contains(string(b), `"today"`) || !strings.Contains(string(b), `"Thanks"`) {
		t.Errorf("normalized timestamps with their punctuation: %.600s", b)
	}

	for _, c := range []struct {
		path, body, want string
		status           int
	}{
		{"/tts/bytes", strings.Replace(cartesiaBody(text, "raw", "pcm_s16le"), `"en-us"`, `"nobody"`, 1), `"error_code":"voice_not_found"`, 404},
		{"/tts/bytes", strings.Replace(cartesiaBody(text, "raw", "pcm_s16le"), "24000", "11025", 1), `"error_code":"unsupported_format"`, 400},
		{"/tts/bytes", strings.Replace(cartesiaBody(text, "raw", "pcm_s16le"), "pcm_s16le", "pcm_s24le", 1), `output_format.encoding`, 400},
		{"/tts/bytes", cartesiaBody("", "raw", "pcm_s16le"), `"error_code":"missing_required_parameter"`, 400},
		{"/tts/bytes", `{"transcript":`, `"error_code":"invalid_json"`, 400},
		// The text is named as Cartesia names it.
		{"/tts/bytes", cartesiaBody(strings.Repeat("a", 5000), "raw", "pcm_s16le"), `"message":"transcript is 5000 characters long`, 400},
		{"/tts/sse", cartesiaBody(strings.Repeat("a", 5000), "raw", "pcm_s16le"), `"error_code":"string_above_max_length"`, 400},
		{"/tts/bytes", cartesiaBody(" \n ", "raw", "pcm_s16le"), `"error_code":"missing_required_parameter"`, 400},
		{"/tts/sse", cartesiaBody(text, "wav", "pcm_s16le"), `output_format.container`, 400},
		{"/tts/bytes", strings.Replace(cartesiaBody(text, "raw", "pcm_s16le"), `"language"`, `"generation_config":{"speed":5},"language"`, 1), `generation_config.speed`, 400},
	} {
		res, b := e.CartesiaDo("POST", c.path, e.Key, c.body)
		if res.StatusCode != c.status || !strings.Contains(string(b), c.want) || !strings.Contains(string(b), `"title"`) {
			t.Errorf("%s %.80s: %d %s, want %d with %s", c.path, c.body, res.StatusCode, b, c.status, c.want)
		}
	}
}

// TestCartesiaWebSocket: two contexts fed in pieces and interleaved on
// one socket, each speaking its own text (as long as the HTTP API's),
// with word timestamps, flush_done and done per context; a cancelled
// context stops while another continues; a bad context gets an error and
// the socket stays usable.
func TestCartesiaWebSocket(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := e.CartesiaSocket()
	send := func(v map[string]any) {
		data, _ := json.Marshal(v)
		if err := c.Write(context.Background(), websocket.MessageText, data); err != nil {
			t.Fatal(err)
		}
	}
	format := map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}
	gen := func(id, text string, more bool, extra map[string]any) map[string]any {
		m := map[string]any{"context_id": id, "model_id": "sonic-3", "voice": map[string]any{"mode": "id", "id": "en-us"},
			"output_format": format, "transcript": text, "continue": more, "add_timestamps": true}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	texts := map[string][]string{
		"a": {"The first ", "context speaks ", "about apples. ", "It has two sentences."},
		"b": {"A second voice ", "talks about the weather ", "today."},
	}
	for i := range 4 {
		for _, id := range []string{"a", "b"} {
			if i < len(texts[id]) {
				send(gen(id, texts[id][i], true, nil))
			}
		}
	}
	send(gen("a", "", true, map[string]any{"flush": true}))
	send(gen("a", "", false, nil))
	send(gen("b", "", false, nil))
	send(gen("x", "Hi.", false, map[string]any{"voice": "nobody"}))

	audio := map[string][]byte{}
	words := map[string][]string{}
	flushed := map[string]bool{}
	var errors []testserver.CartesiaEvent
	for done := 0; done < 2; {
		ev := testserver.ReadCartesia(t, c)
		switch ev.Type {
		case "chunk":
			a, _ := base64.StdEncoding.DecodeString(ev.Data)
			audio[ev.ContextID] = append(audio[ev.ContextID], a...)
		case "timestamps":
			words[ev.ContextID] = append(words[ev.ContextID], ev.Words.Words...)
		case "flush_done":
			flushed[ev.ContextID] = ev.FlushID == 1
		case "done":
			done++
		case "error":
			errors = append(errors, ev)
		}
	}
	for id, pieces := range texts {
		text := strings.Join(pieces, "")
		want := e.OpenAIPCM("en-us", text)
		if !testserver.CloseTo(len(audio[id]), len(want), 0.05) || strings.Join(words[id], " ") != strings.Join(strings.Fields(strings.ReplaceAll(text, ".", "")), " ") {
			t.Errorf("context %s: %d bytes (HTTP: %d), words %q", id, len(audio[id]), len(want), words[id])
		}
	}
	if !flushed["a"] {
		t.Errorf("no flush_done with flush_id 1 for context a")
	}
	if len(errors) != 1 || errors[0].ContextID != "x" || errors[0].ErrorCode != "voice_not_found" {
		t.Errorf("errors: %+v", errors)
	}

	// Cancel one context while another continues; then the socket still
	// serves a new context.
	send(gen("long", strings.Repeat("This sentence goes on and on for a while. ", 20), true, nil))
	send(gen("short", "Short and sweet.", false, nil))
	send(map[string]any{"context_id": "long", "cancel": true})
	got := map[string]string{}
	for got["short"] != "done" {
		ev := testserver.ReadCartesia(t, c)
		got[ev.ContextID] = ev.Type
	}
	send(gen("after", "Still here.", false, nil))
	for ev := testserver.ReadCartesia(t, c); ev.ContextID != "after" || ev.Type != "done"; ev = testserver.ReadCartesia(t, c) {
		if ev.ContextID == "long" && ev.Type == "done" {
			t.Errorf("the cancelled context finished")
		}
	}
}

// TestCartesiaBufferDelay: without a sentence end, a context speaks what
// it holds after max_buffer_delay_ms; with 0, at once.
func TestCartesiaBufferDelay(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := e.CartesiaSocket()
	for _, delay := range []int{0, 200} {
		data, _ := json.Marshal(map[string]any{"context_id": "d", "voice": "en-us", "transcript": "no sentence end here", "continue": true,
			"max_buffer_delay_ms": delay, "output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}})
		c.Write(context.Background(), websocket.MessageText, data)
		if ev := testserver.ReadCartesia(t, c); ev.Type != "chunk" || ev.Data == "" {
			t.Errorf("delay %d: %+v", delay, ev)
		}
		c.Write(context.Background(), websocket.MessageText, []byte(`{"context_id":"d","cancel":true}`))
	}
}

// TestCartesiaSlowReaderIsCut: a client that stops reading /tts/bytes or
// /tts/sse is cut off after the write timeout, as on the OpenAI API: the
// answer ends aborted with less than the audio, instead of holding the
// handler as long as the client likes.
func TestCartesiaSlowReaderIsCut(t *testing.T) {
	testserver.Long(t)
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{Log: &log, WriteTimeout: 300 * time.Millisecond})
	text := strings.Repeat("One more sentence is spoken here. ", 110) // about 10 MB at 48 kHz, more as SSE
	for _, path := range []string{"/tts/bytes", "/tts/sse"} {
		t.Run(path, func(t *testing.T) {
			body := strings.Replace(cartesiaBody(text, "raw", "pcm_s16le"), "24000", "48000", 1)
			req, _ := http.NewRequestWithContext(t.Context(), "POST", e.TS.URL+"/cartesia"+path, strings.NewReader(body))
			req.Header.Set("X-API-Key", e.Key)
			id := "slow-reader-" + strings.TrimPrefix(path, "/tts/")
			req.Header.Set("X-Request-Id", id)
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			line := log.RequestLine(t, id) // logged while the body is unread
			if line["aborted"] != true || line["status"] != float64(200) {
				t.Errorf("access log: %v; want status 200 aborted=true", line)
			}
		})
	}
}

// TestCartesiaBreakTag: a <break time="1s"/> in a transcript (Cartesia's
// pause) pauses that long on /tts/bytes and the WebSocket (where it may
// come in pieces), and is not read aloud (it was spoken as "break time
// equals one s", 2.2 s longer).
func TestCartesiaBreakTag(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	plain := e.OpenAIPCM("en-us", "Hello there. How are you?")
	second := 24000 * 2 // bytes of a second of 24 kHz pcm
	format := map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}
	body, _ := json.Marshal(map[string]any{"model_id": "sonic-3", "voice": map[string]any{"mode": "id", "id": "en-us"},
		"output_format": format, "transcript": `Hello there. <break time="1s"/> How are you?`})
	res, pcm := e.CartesiaDo("POST", "/tts/bytes", e.Key, string(body))
	if got := len(pcm) - len(plain); res.StatusCode != 200 || got < second*8/10 || got > second*12/10 {
		t.Errorf("bytes: %d, %.2f s longer than the text without the break, want 1 s", res.StatusCode, float64(got)/float64(second))
	}
	c := e.CartesiaSocket()
	pieces := []string{"Hello there. <break ", `time="1000ms"/> `, "How are you?"} // a tag in pieces
	for i, piece := range pieces {
		data, _ := json.Marshal(map[string]any{"context_id": "b", "model_id": "sonic-3", "voice": map[string]any{"mode": "id", "id": "en-us"},
			"output_format": format, "transcript": piece, "continue": i < len(pieces)-1})
		if err := c.Write(context.Background(), websocket.MessageText, data); err != nil {
			t.Fatal(err)
		}
	}
	var audio []byte
	for ev := testserver.ReadCartesia(t, c); ev.Type != "done"; ev = testserver.ReadCartesia(t, c) {
		if ev.Type == "error" {
			t.Fatalf("error event: %+v", ev)
		}
		a, _ := base64.StdEncoding.DecodeString(ev.Data)
		audio = append(audio, a...)
	}
	if got := len(audio) - len(plain); got < second*8/10 || got > second*12/10 {
		t.Errorf("WebSocket: %.2f s longer than the text without the break, want 1 s", float64(got)/float64(second))
	}
}
