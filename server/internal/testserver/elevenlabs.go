package testserver

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// elevenDo sends an ElevenLabs API request with the key in xi-api-key.
func (e *Env) ElevenDo(method, path, key, body string) (*http.Response, []byte) {
	e.T.Helper()
	return e.VendorDo(method, "/elevenlabs"+path, body, "xi-api-key", key)
}

// vendorDo sends a request to path, JSON unless the headers, given as
// name, value pairs, say another Content-Type, and returns the response
// and its body.
func (e *Env) VendorDo(method, path, body string, header ...string) (*http.Response, []byte) {
	e.T.Helper()
	req, err := http.NewRequest(method, e.TS.URL+path, strings.NewReader(body))
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.TS.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b
}

// openAIPCM is the OpenAI API's 24 kHz pcm of text in voice.
func (e *Env) OpenAIPCM(voice, text string) []byte {
	e.T.Helper()
	body, _ := json.Marshal(map[string]any{"voice": voice, "input": text, "response_format": "pcm"})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	pcm, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return pcm
}

func CloseTo(got, want int, frac float64) bool {
	return math.Abs(float64(got-want)) <= frac*float64(want)
}

// elevenSocket dials an ElevenLabs WebSocket of the test server.
func (e *Env) ElevenSocket(path string) *websocket.Conn {
	e.T.Helper()
	h := http.Header{}
	h.Set("xi-api-key", e.Key)
	c, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/elevenlabs"+path,
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
	if err != nil {
		e.T.Fatalf("dial %s: %v %v", path, err, res)
	}
	c.SetReadLimit(16 << 20)
	e.T.Cleanup(func() { c.CloseNow() })
	return c
}

// elevenWSMessage is a server message of the ElevenLabs sockets.
type ElevenWSMessage struct {
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

func SendJSON(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func ReadEleven(t *testing.T, c *websocket.Conn) ElevenWSMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m ElevenWSMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
