//go:build cgo

package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// ElevenDo sends an ElevenLabs API request with the key in xi-api-key.
func (e *Env) ElevenDo(method, path, key, body string) (*http.Response, []byte) {
	e.T.Helper()
	return e.VendorDo(method, "/elevenlabs"+path, body, "xi-api-key", key)
}

// VendorDo sends a request to path, JSON unless the headers, given as
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

// OpenAIPCM is the OpenAI API's 24 kHz pcm of text in voice.
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

// ElevenSocket dials an ElevenLabs WebSocket of the test server.
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

// ElevenWSMessage is a server message of the ElevenLabs sockets.
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

// AddDictionaryFile uploads pls as ElevenLabs' add-from-file does (a
// multipart form of name and file; no file for "") and returns the
// answer.
func (e *Env) AddDictionaryFile(key, name, pls string) (*http.Response, []byte) {
	e.T.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("name", name)
	mw.WriteField("description", "acronyms we say in full")
	if pls != "" {
		fw, _ := mw.CreateFormFile("file", "dictionary.pls")
		io.WriteString(fw, pls)
	}
	mw.Close()
	return e.VendorDo("POST", "/elevenlabs/v1/pronunciation-dictionaries/add-from-file", body.String(),
		"xi-api-key", key, "Content-Type", mw.FormDataContentType())
}

// ElevenJSON sends an ElevenLabs request and decodes its JSON answer
// into out, failing unless the status is want.
func (e *Env) ElevenJSON(method, path, key, body string, want int, out any) {
	e.T.Helper()
	res, b := e.ElevenDo(method, path, key, body)
	if res.StatusCode != want {
		e.T.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
	}
	if err := json.Unmarshal(b, out); err != nil {
		e.T.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
}

// ElevenPCM is the pcm_24000 of text in en-us over ElevenLabs' HTTP API,
// with the locators given (JSON, "" for none).
func (e *Env) ElevenPCM(key, text, locators string) (int, []byte) {
	e.T.Helper()
	body := map[string]any{"text": text}
	if locators != "" {
		body["pronunciation_dictionary_locators"] = json.RawMessage(locators)
	}
	js, _ := json.Marshal(body)
	res, b := e.ElevenDo("POST", "/v1/text-to-speech/en-us?output_format=pcm_24000", key, string(js))
	return res.StatusCode, b
}

// VendorDial opens a vendor socket at path (after the server's URL) with
// header h.
func (e *Env) VendorDial(t *testing.T, path string, h http.Header) *websocket.Conn {
	t.Helper()
	c, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+path,
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial %s: %v %v", path, err, res)
	}
	c.SetReadLimit(16 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}
