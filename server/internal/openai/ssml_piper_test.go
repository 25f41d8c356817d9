package openai_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestSSMLOnPiperOverTheAPI: SSML on a generated Piper voice, over HTTP
// (SSE, with word timestamps) and the WebSocket: a break adds 1 s ± 20 ms,
// sub speaks its alias, say-as characters spells, phoneme speaks its IPA
// (two pronunciations, two audios), every word's char_start/char_end
// point into the markup at the text it came from, and malformed SSML is
// a 400 with its position.
func TestSSMLOnPiperOverTheAPI(t *testing.T) {
	e := testserver.NewPiperEnv(t)
	const voice = "en_US-tone-medium"
	type word struct {
		Word               string
		CharStart, CharEnd int
	}
	var sseVoice func(input, voice string) (pcm []byte, words []word)
	sse := func(input string) (pcm []byte, words []word) { return sseVoice(input, voice) }
	sseVoice = func(input, voice string) (pcm []byte, words []word) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"voice": voice, "input": input, "response_format": "pcm", "stream_format": "sse", "timestamps": "word"})
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", bytes.NewReader(b))
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", input, res.StatusCode, body)
		}
		for line := range strings.Lines(string(body)) {
			data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
			if !ok {
				continue
			}
			var ev struct {
				Type  string `json:"type"`
				Audio string `json:"audio"`
				Words []struct {
					Word      string `json:"word"`
					CharStart int    `json:"char_start"`
					CharEnd   int    `json:"char_end"`
				} `json:"words"`
			}
			json.Unmarshal([]byte(data), &ev)
			a, _ := base64.StdEncoding.DecodeString(ev.Audio)
			pcm = append(pcm, a...)
			for _, w := range ev.Words {
				words = append(words, word{w.Word, w.CharStart, w.CharEnd})
			}
		}
		return pcm, words
	}
	seconds := func(pcm []byte) float64 { return float64(len(pcm)) / 48000 }

	with, _ := sse(`<speak>Hello there. <break time="1s"/> How are you?</speak>`)
	without, _ := sse(`<speak>Hello there. How are you?</speak>`)
	if d := seconds(with) - seconds(without); math.Abs(d-1) > 0.020 {
		t.Errorf("HTTP: the break added %.3f s, want 1 ± 0.020", d)
	}

	// Word timestamps point at the markup's text, on Piper and espeak-ng.
	input := `<speak>I like <sub alias="World Wide Web">WWW</sub>, <say-as interpret-as="characters">abc</say-as> and <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme>.</speak>`
	runes := []rune(input)
	from := map[string]string{"I": "I", "like": "like", "World": "WWW", "Wide": "WWW", "Web": "WWW", "and": "and", "tomato": "tomato"}
	for _, v := range []string{voice, "en-us"} {
		_, words := sseVoice(input, v)
		var said []string
		for _, w := range words {
			said = append(said, w.Word)
			if w.CharStart < 0 || w.CharEnd > len(runes) || w.CharStart >= w.CharEnd {
				t.Errorf("%s: word %+v out of the input", v, w)
				continue
			}
			src := string(runes[w.CharStart:w.CharEnd])
			if want, ok := from[w.Word]; ok && src != want || strings.ContainsAny(src, "<>") {
				t.Errorf("%s: word %q points at %q", v, w.Word, src)
			}
		}
		got := strings.Join(said, " ")
		if !strings.Contains(got, "World Wide Web") || !strings.Contains(got, "tomato") || strings.Contains(got, "WWW") {
			t.Errorf("%s: words %q: want the alias, not WWW, and tomato", v, got)
		}
	}
	spelt, _ := sse(`<speak><say-as interpret-as="characters">cat</say-as></speak>`)
	whole, _ := sse(`<speak>cat</speak>`)
	if len(spelt) <= len(whole) {
		t.Errorf("say-as characters: %d bytes, the word cat %d: spelling takes longer", len(spelt), len(whole))
	}
	mahto, _ := sse(`<speak><phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme></speak>`)
	mayto, _ := sse(`<speak><phoneme alphabet="ipa" ph="təˈmeɪtoʊ">tomato</phoneme></speak>`)
	if bytes.Equal(mahto, mayto) || len(mahto) == 0 {
		t.Errorf("phoneme: the two pronunciations gave the same audio (%d bytes)", len(mahto))
	}

	// The WebSocket: the same break and the phoneme's audio.
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	wsSay := func(id, input string) []testserver.WSEvent {
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": id, "voice": voice, "input": input, "response_format": "pcm", "timestamps": "word"})
		return testserver.ReadContext(t, c)
	}
	audioMS := func(events []testserver.WSEvent) float64 {
		ms, _ := events[len(events)-1].Raw["audio_ms"].(float64)
		return ms
	}
	if d := audioMS(wsSay("a", `<speak>Hello there. <break time="1s"/> How are you?</speak>`)) - audioMS(wsSay("b", `<speak>Hello there. How are you?</speak>`)); math.Abs(d-1000) > 20 {
		t.Errorf("WebSocket: the break added %.0f ms, want 1000 ± 20", d)
	}
	var wsAudio []byte
	for _, ev := range wsSay("c", `<speak><phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme></speak>`) {
		wsAudio = append(wsAudio, ev.Audio...)
	}
	if !bytes.Equal(wsAudio, mahto) {
		t.Errorf("WebSocket phoneme: %d bytes, HTTP %d: want the same audio", len(wsAudio), len(mahto))
	}

	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"`+voice+`","input":"<speak>Hi <break time=\"1s\"> there</speak>"}`))
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(body), "line 1") || !strings.Contains(string(body), `"param":"input"`) {
		t.Errorf("malformed SSML on Piper: %d %s", res.StatusCode, body)
	}
}
