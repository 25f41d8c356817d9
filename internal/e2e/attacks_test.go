package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/servertest"
)

// TestAttacksRepeated repeats, against the example server as built, the
// attacks of the fourth hardening round that a single client could take
// it down with: texts that crash libespeak-ng, over HTTP and over
// Wyoming without a key, and SSML break bombs. After each the server is
// up and answers the next request; a bomb costs little memory.
func TestAttacksRepeated(t *testing.T) {
	addr, wyomingAddr := freeAddr(t), freeAddr(t)
	p := startExample(t, nil, "-addr", addr, "-wyoming-addr", wyomingAddr)
	key := <-p.keys
	base := "http://" + addr

	answered := func(after string) {
		t.Helper()
		if code, b := speechWithKey(t, base, key, "Still here."); code != http.StatusOK || len(b) == 0 {
			t.Fatalf("after %s: %d %s\n%s", after, code, b, p.Stderr())
		}
	}

	crashers := map[string]string{
		"spelled letters":   strings.Repeat("a.", 100),
		"spelled words":     strings.Repeat("u.s. ", 100),
		"dotted host":       "Visit http://" + strings.Repeat("a.", 100) + "com today.",
		"stress marks":      "<|phoneme:" + strings.Repeat("ˈ", 1500) + "həl|>hello",
		"long phonemes":     "<|phoneme:" + strings.Repeat("həl", 300) + "|>hello",
		"SSML long phoneme": `<speak><phoneme alphabet="ipa" ph="` + strings.Repeat("həl", 300) + `">hello</phoneme></speak>`,
	}
	for name, text := range crashers {
		if code, b := speechWithKey(t, base, key, text); code != http.StatusOK || len(b) == 0 {
			t.Errorf("%s over HTTP: %d %.200s", name, code, b)
		}
		answered(name + " over HTTP")
		if pcm, err := wyomingSpeak(t, wyomingAddr, text); err != nil || len(pcm) == 0 {
			t.Errorf("%s over Wyoming: %v, %d bytes", name, err, len(pcm))
		}
		answered(name + " over Wyoming")
	}

	pid := p.cmd.Process.Pid
	for _, bomb := range []struct{ name, text string }{
		{"HTTP", `<speak>Hi <break time="1e10ms"/> there.</speak>`},
		{"Wyoming", `<speak>Hi <break time="3e9ms"/> there.</speak>`},
	} {
		servertest.ResetPeakRSSOf(t, pid)
		before := servertest.PeakRSSOf(t, pid)
		start := time.Now()
		var got string
		if bomb.name == "HTTP" {
			code, b := speechWithKey(t, base, key, bomb.text)
			got = fmt.Sprintf("%d %s", code, b)
			if code != http.StatusBadRequest || !strings.Contains(string(b), "audio_too_long") {
				t.Errorf("break bomb over HTTP: %s", got)
			}
		} else {
			_, err := wyomingSpeak(t, wyomingAddr, bomb.text)
			got = fmt.Sprint(err)
			if err == nil || !strings.Contains(err.Error(), "audio_too_long") {
				t.Errorf("break bomb over Wyoming: %v", err)
			}
		}
		took, grew := time.Since(start), servertest.PeakRSSOf(t, pid)-before
		t.Logf("break bomb over %s: %s in %v, peak RSS %+.1f MB", bomb.name, got, took.Round(time.Millisecond), float64(grew)/(1<<20))
		if grew > 100<<20 {
			t.Errorf("break bomb over %s: peak RSS grew %d MB", bomb.name, grew>>20)
		}
		answered("the break bomb over " + bomb.name)
	}
}

// speechWithKey asks for text as 24 kHz PCM with the key.
func speechWithKey(t *testing.T, base, key, input string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "tts-1", "voice": "alloy", "input": input, "response_format": "pcm"})
	req, _ := http.NewRequest("POST", base+"/v1/audio/speech", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the server is gone: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// wyomingSpeak asks a Wyoming listener, with no key, to synthesize text
// and returns its audio, or the error event it answered.
func wyomingSpeak(t *testing.T, addr, text string) ([]byte, error) {
	t.Helper()
	var pcm []byte
	for _, ev := range wyomingCall(t, addr, "synthesize", map[string]any{"text": text}, "audio-stop", "error") {
		switch ev.Type {
		case "audio-chunk":
			pcm = append(pcm, ev.Payload...)
		case "error":
			return nil, fmt.Errorf("wyoming error: %s", ev.Data)
		}
	}
	return pcm, nil
}
