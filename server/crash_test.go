package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// crashText crashes libespeak-ng 1.51 as it is: the process that calls it
// aborts with "stack smashing detected".
var crashText = strings.Repeat("a.", 100)

// TestCrashingTextThroughEveryDoor: texts that crash libespeak-ng speak
// through every door (the engine's guard), and the server answers the
// next request.
func TestCrashingTextThroughEveryDoor(t *testing.T) {
	t.Parallel() // its own server and engine processes, no timing bound
	e := testserver.New(t, testserver.Options{})
	for _, text := range []string{crashText, strings.Repeat("u.s. ", 100), "<|phoneme:" + strings.Repeat("ˈ", 1500) + "həl|>hello"} {
		body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": text, "response_format": "pcm"})
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
		audio, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(audio) < 4800 {
			t.Errorf("%.20q…: %d, %d bytes", text, res.StatusCode, len(audio))
		}
	}
	ssml := `<speak><phoneme alphabet="ipa" ph="` + strings.Repeat("həl", 300) + `">hello</phoneme></speak>`
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": ssml, "response_format": "pcm"})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("SSML phoneme of 900 IPA symbols: %d", res.StatusCode)
	}

	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	c.Send("synthesize", map[string]any{"text": crashText, "voice": map[string]any{"name": "en-us"}})
	if pcm, _, _ := c.Audio(); len(pcm) < 24000 {
		t.Errorf("Wyoming: %d bytes", len(pcm))
	}

	ws := testserver.DialWS(t, e, e.Key)
	testserver.SendJSON(t, ws, map[string]any{"type": "speech.create", "voice": "en-us", "input": crashText, "response_format": "pcm"})
	if m := untilEnd(t, ws); m.Type != "speech.done" {
		t.Errorf("WebSocket: %s %v", m.Type, m.Error)
	}
	quick := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Still here."}`))
	quick.Body.Close()
	if quick.StatusCode != http.StatusOK {
		t.Errorf("the next request: %d", quick.StatusCode)
	}
}

// untilEnd reads a voxkit socket's messages up to speech.done or error.
func untilEnd(t *testing.T, c *websocket.Conn) testserver.WSMsg {
	t.Helper()
	for {
		if m := testserver.Next(t, c); m.Type == "speech.done" || m.Type == "error" {
			return m
		}
	}
}

// TestEngineCrashContained: unguarded, the text crashes libespeak-ng for
// real. The request gets a 500 engine_crashed (OpenAI-shaped over HTTP,
// an error event over Wyoming and the socket), and the server, the
// socket and the engine go on at once.
func TestEngineCrashContained(t *testing.T) {
	t.Parallel() // its own server and engine processes, no timing bound
	e := testserver.New(t, testserver.Options{Unguarded: true})
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": crashText})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	werr := testserver.APIError(t, res, http.StatusInternalServerError, wire.CodeEngineCrashed)
	if werr.Type != wire.TypeServer {
		t.Errorf("type %q", werr.Type)
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Still here."}`))
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("after the crash: %d", res.StatusCode)
	}

	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	c.Send("synthesize", map[string]any{"text": crashText, "voice": map[string]any{"name": "en-us"}})
	if ev := c.Next(); ev.Type != "error" {
		t.Errorf("Wyoming: %s, want error", ev.Type)
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "en-us"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("Wyoming after the crash: no audio")
	}

	ws := testserver.DialWS(t, e, e.Key)
	testserver.SendJSON(t, ws, map[string]any{"type": "speech.create", "voice": "en-us", "input": crashText, "response_format": "pcm"})
	if m := untilEnd(t, ws); m.Type != "error" || m.Error["code"] != wire.CodeEngineCrashed {
		t.Errorf("WebSocket: %s %v", m.Type, m.Error)
	}
	testserver.SendJSON(t, ws, map[string]any{"type": "speech.create", "voice": "en-us", "input": "Still here.", "response_format": "pcm"})
	if m := untilEnd(t, ws); m.Type != "speech.done" {
		t.Errorf("WebSocket after the crash: %s %v", m.Type, m.Error)
	}
}

// TestCrashCooldownRefuses: an account whose requests crash the engine
// CrashesPerMinute times is refused speech at once (429 with
// Retry-After, whatever its input), on every door; another account
// speaks; and the crashes make one ERROR log line, not one each.
func TestCrashCooldownRefuses(t *testing.T) {
	t.Parallel() // its own server and engine processes; the log bound counts from its own start
	var log testserver.SyncBuffer
	start := time.Now()
	e := testserver.New(t, testserver.Options{Unguarded: true, Log: &log})
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": crashText})
	for range server.CrashesPerMinute {
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", bytes.NewReader(body))
		testserver.APIError(t, res, http.StatusInternalServerError, wire.CodeEngineCrashed)
	}
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Still here."}`))
	if res.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if werr := testserver.APIError(t, res, http.StatusTooManyRequests, wire.CodeRateLimit); !strings.Contains(werr.Message, "crashed the speech engine") {
		t.Errorf("message %q", werr.Message)
	}
	ws := testserver.DialWS(t, e, e.Key)
	testserver.SendJSON(t, ws, map[string]any{"type": "speech.create", "voice": "en-us", "input": "Still here.", "response_format": "pcm"})
	if m := untilEnd(t, ws); m.Type != "error" || m.Error["code"] != wire.CodeRateLimit {
		t.Errorf("WebSocket: %s %v", m.Type, m.Error)
	}
	res = e.Do("POST", "/v1/audio/speech", e.OtherKey, "application/json", strings.NewReader(`{"voice":"en-us","input":"Still here."}`))
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("another account: %d", res.StatusCode)
	}
	// A gateway's key carries all its accounts' requests (the gateway
	// keeps their crashes): its crashes start no cooldown, and an
	// account's cooldown does not refuse it.
	_, gateway, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "other", Name: "gateway", Scope: store.ScopeGateway})
	if err != nil {
		t.Fatal(err)
	}
	for range server.CrashesPerMinute + 1 {
		res := e.Do("POST", "/v1/audio/speech", gateway, "application/json", bytes.NewReader(body))
		testserver.APIError(t, res, http.StatusInternalServerError, wire.CodeEngineCrashed)
	}
	_, localGateway, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "gateway", Scope: store.ScopeGateway})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{e.OtherKey, localGateway} {
		res = e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Still here."}`))
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("after a gateway's crashes, or through a gateway: %d", res.StatusCode)
		}
	}
	// One crash line at most every 10 s (crashLogEvery), each counting
	// the crashes not logged since the one before.
	elapsed := time.Since(start)
	log.Mu.Lock()
	lines := log.B.String()
	log.Mu.Unlock()
	crashes := 2*server.CrashesPerMinute + 1
	n, notLogged := 0, 0
	for line := range strings.Lines(lines) {
		var entry struct {
			Msg       string
			NotLogged int `json:"crashes_not_logged"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "server: synthesis failed: the engine crashed" {
			n++
			notLogged += entry.NotLogged
		}
	}
	if most := 1 + int(elapsed/(10*time.Second)); n == 0 || n > most || n+notLogged > crashes {
		t.Errorf("%d crash log lines (counting %d more not logged) for %d crashes in %v, want 1 to %d:\n%s", n, notLogged, crashes, elapsed, most, lines)
	}
}
