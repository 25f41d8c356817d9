package openai_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/openaisdk"
	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/openai/openai-go/v3"
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/wire"
)

func TestSDKSpeechAllFormats(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
	c := openaisdk.Client(e.TS, e.Key)
	wantCodec := map[string]string{"wav": "pcm_s16le", "pcm": "pcm_s16le", "mp3": "mp3", "flac": "flac", "opus": "opus"}
	formats := encode.DefaultRegistry.Names()
	if testing.Short() {
		// A container and a codec of frames through the SDK: the other
		// formats take the same path here, their encoders are probed in
		// encode's tests, and the server's TestMetricsCount speaks each.
		formats = []string{"wav", "mp3"}
	}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			res, err := c.Audio.Speech.New(context.Background(), openai.AudioSpeechNewParams{
				Model:          openai.SpeechModelGPT4oMiniTTS,
				Voice:          openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("alloy")},
				Input:          "Hello from voxkit. This is the second sentence.",
				ResponseFormat: openai.AudioSpeechNewParamsResponseFormat(format),
				Speed:          openai.Float(1.25),
				Instructions:   openai.String("Speak clearly."),
			})
			if err != nil {
				t.Fatal(err)
			}
			audio, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			codec, _ := encode.Lookup(format)
			if got := res.Header.Get("Content-Type"); got != codec.ContentType {
				t.Errorf("Content-Type %q, want %q", got, codec.ContentType)
			}
			name, rate, dur := testserver.Probe(t, audio, format)
			if want, ok := wantCodec[format]; ok && name != want {
				t.Errorf("codec %q, want %q", name, want)
			}
			if format != "opus" && rate != 24000 {
				t.Errorf("rate %d, want 24000", rate)
			}
			if dur < 1 || dur > 10 {
				t.Errorf("duration %.2f s for two sentences", dur)
			}
		})
	}
}

func TestSDKVoiceObjectAndClone(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := openaisdk.Client(e.TS, e.Key)
	res, err := c.Audio.Speech.New(context.Background(), openai.AudioSpeechNewParams{
		Voice: openai.AudioSpeechNewParamsVoiceUnion{OfAudioSpeechNewsVoiceID: &openai.AudioSpeechNewParamsVoiceID{ID: "local-clone"}},
		Input: "Mine.",
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("Content-Type") != "audio/wav" || !bytes.HasPrefix(b, []byte("RIFF")) {
		t.Fatalf("default format is not wav: %q", res.Header.Get("Content-Type"))
	}
}

// speechAudioEvent is an SSE event of stream_format "sse".
type speechAudioEvent struct {
	Type  string     `json:"type"`
	Audio string     `json:"audio"`
	Usage wire.Usage `json:"usage"`
}

func TestSDKSpeechSSE(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := testserver.New(t, testserver.Options{})
	c := openaisdk.Client(e.TS, e.Key)
	res, err := c.Audio.Speech.New(context.Background(), openai.AudioSpeechNewParams{
		Voice:          openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("en-us")},
		Input:          "First sentence. Second sentence. Third sentence.",
		ResponseFormat: openai.AudioSpeechNewParamsResponseFormatPCM,
		StreamFormat:   openai.AudioSpeechNewParamsStreamFormatSSE,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	// Read the raw events, checking the exact wire shape.
	var pcm []byte
	var types []string
	var sawDone bool
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("non-data line %q", line)
		}
		if data == "[DONE]" {
			sawDone = true
			continue
		}
		var ev speechAudioEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		types = append(types, ev.Type)
		switch ev.Type {
		case "speech.audio.delta":
			b, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				t.Fatal(err)
			}
			pcm = append(pcm, b...)
		case "speech.audio.done":
			u := ev.Usage
			if u.InputTokens != 48 || u.OutputTokens < 50 || u.TotalTokens != u.InputTokens+u.OutputTokens {
				t.Errorf("usage %+v", u)
			}
		}
	}
	if len(types) < 4 || types[len(types)-1] != "speech.audio.done" || !sawDone {
		t.Fatalf("events %v, [DONE] %v: want a delta per sentence, done, [DONE]", types, sawDone)
	}
	if _, _, dur := testserver.Probe(t, pcm, "pcm"); dur < 1.5 {
		t.Errorf("SSE audio is %.2f s", dur)
	}
	if res.Trailer.Get("x-upstream-ms") == "" || res.Trailer.Get("x-gateway-ms") == "" {
		t.Errorf("trailers %v", res.Trailer)
	}
}

func TestSDKModels(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		key       string
		mine, not string
	}{
		{e.Key, "local-clone", "other-clone"},
		{e.OtherKey, "other-clone", "local-clone"},
	} {
		c := openaisdk.Client(e.TS, tc.key)
		page, err := c.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		owned := map[string]string{}
		for _, m := range page.Data {
			owned[m.ID] = m.OwnedBy
			if m.Object != "model" || m.Created != 1700000000 {
				t.Errorf("model %+v", m)
			}
		}
		if owned["en-us"] != "service" || owned[tc.mine] != "user" || owned[tc.not] != "" {
			t.Errorf("list for %s: %v", tc.mine, owned)
		}
		m, err := c.Models.Get(ctx, tc.mine)
		if err != nil || m.ID != tc.mine || m.OwnedBy != "user" {
			t.Errorf("get %s: %+v %v", tc.mine, m, err)
		}
		_, err = c.Models.Get(ctx, tc.not)
		openaisdk.CheckAPIError(t, err, 404, "invalid_request_error", "model_not_found", "model")
	}
}

// TestSDKModelsWithClone lists models with the official OpenAI SDK.
func TestSDKModelsWithClone(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"sdk-clone","name":"SDK","base_voice":"en-us","pitch":2}`, nil); st != 201 {
		t.Fatalf("create: %d", st)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		key  string
		want string
	}{{e.Key, "user"}, {e.OtherKey, ""}} {
		page, err := openaisdk.Client(e.TS, tc.key).Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		owned := ""
		for _, m := range page.Data {
			if m.ID == "sdk-clone" {
				owned = string(m.OwnedBy)
			}
		}
		if owned != tc.want {
			t.Errorf("owned_by %q, want %q", owned, tc.want)
		}
	}
	m, err := openaisdk.Client(e.TS, e.Key).Models.Get(ctx, "sdk-clone")
	if err != nil || m.OwnedBy != "user" {
		t.Errorf("get: %+v %v", m, err)
	}
	_, err = openaisdk.Client(e.TS, e.OtherKey).Models.Get(ctx, "sdk-clone")
	openaisdk.CheckAPIError(t, err, 404, "invalid_request_error", "model_not_found", "model")
}

func TestSDKErrors(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	ctx := context.Background()
	voice := func(v string) openai.AudioSpeechNewParamsVoiceUnion {
		return openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String(v)}
	}
	for _, tc := range []struct {
		name             string
		key              string
		params           openai.AudioSpeechNewParams
		status           int
		typ, code, param string
	}{
		{"no key", "", openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi."}, 401, "invalid_request_error", "missing_api_key", ""},
		{"wrong key", "sk_nope", openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi."}, 401, "invalid_request_error", "invalid_api_key", ""},
		{"revoked key", e.Revoked, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi."}, 401, "invalid_request_error", "invalid_api_key", ""},
		{"unknown voice", e.Key, openai.AudioSpeechNewParams{Voice: voice("nobody"), Input: "Hi."}, 404, "proxy_error", "voice_not_found", "voice"},
		{"other account's voice", e.Key, openai.AudioSpeechNewParams{Voice: voice("other-clone"), Input: "Hi."}, 404, "proxy_error", "voice_not_found", "voice"},
		{"empty input", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us")}, 400, "invalid_request_error", "string_below_min_length", "input"},
		{"missing voice", e.Key, openai.AudioSpeechNewParams{Input: "Hi."}, 400, "invalid_request_error", "missing_required_parameter", "voice"},
		{"aac", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi.", ResponseFormat: "aac"}, 400, "invalid_request_error", "invalid_value", "response_format"},
		{"speed low", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi.", Speed: openai.Float(0.1)}, 400, "invalid_request_error", "decimal_below_min_value", "speed"},
		{"speed high", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi.", Speed: openai.Float(4.5)}, 400, "invalid_request_error", "decimal_above_max_value", "speed"},
		{"input too long", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: strings.Repeat("a", 4097)}, 400, "invalid_request_error", "string_above_max_length", "input"},
		{"stream format", e.Key, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: "Hi.", StreamFormat: "video"}, 400, "invalid_request_error", "invalid_value", "stream_format"},
		{"engine failure", e.Key, openai.AudioSpeechNewParams{Voice: voice("faulty"), Input: "Please FAIL."}, 502, "proxy_error", "engine_error", ""},
		{"panic", e.Key, openai.AudioSpeechNewParams{Voice: voice("faulty"), Input: "Please PANIC."}, 500, "server_error", "internal_error", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openaisdk.Client(e.TS, tc.key).Audio.Speech.New(ctx, tc.params)
			openaisdk.CheckAPIError(t, err, tc.status, tc.typ, tc.code, tc.param)
		})
	}
	// Errors the typed SDK methods cannot provoke, through its generic calls.
	c := openaisdk.Client(e.TS, e.Key)
	_, err := c.Audio.Speech.New(ctx, openai.AudioSpeechNewParams{Voice: voice("en-us"), Input: strings.Repeat("a", 1<<20)})
	openaisdk.CheckAPIError(t, err, 413, "invalid_request_error", "request_too_large", "")
	err = c.Delete(ctx, "audio/speech", nil, nil)
	openaisdk.CheckAPIError(t, err, 405, "invalid_request_error", "method_not_allowed", "")
	err = c.Get(ctx, "nothing/here", nil, nil)
	openaisdk.CheckAPIError(t, err, 404, "invalid_request_error", "not_found", "")
	err = c.Post(ctx, "keys", map[string]int{"name": 5}, nil)
	openaisdk.CheckAPIError(t, err, 400, "invalid_request_error", "invalid_type", "name")
	// The server keeps serving after the panic.
	res, err := c.Audio.Speech.New(ctx, openai.AudioSpeechNewParams{Voice: voice("faulty"), Input: "Fine."})
	if err != nil {
		t.Fatalf("after panic: %v", err)
	}
	res.Body.Close()
	_, err = openaisdk.Client(e.TS, e.Key).Models.Get(ctx, "nobody")
	openaisdk.CheckAPIError(t, err, 404, "invalid_request_error", "model_not_found", "model")
}

func TestHeadersAndTrailers(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	body := `{"model":"tts-1","voice":"en-us","input":"Hello there. How are you?","response_format":"%s"}`
	for _, format := range []string{"wav", "pcm"} {
		t.Run(format, func(t *testing.T) {
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(strings.Replace(body, "%s", format, 1)))
			defer res.Body.Close()
			h := res.Header
			if res.StatusCode != 200 || h.Get("Cache-Control") != "no-store" || h.Get("x-request-id") == "" {
				t.Fatalf("status %d headers %v", res.StatusCode, h)
			}
			audio, err := io.ReadAll(res.Body)
			if err != nil || len(audio) < 24000 {
				t.Fatalf("%d bytes, %v", len(audio), err)
			}
			timing := h
			if format == "pcm" {
				if res.ContentLength != -1 || len(res.TransferEncoding) == 0 {
					t.Errorf("pcm is not streamed: length %d, TE %v", res.ContentLength, res.TransferEncoding)
				}
				if h.Get("x-upstream-ms") != "" {
					t.Errorf("pcm timing sent as header, not trailer")
				}
				if _, ok := res.Trailer["X-Upstream-Ms"]; !ok {
					t.Errorf("Trailer does not declare x-upstream-ms: %v", h.Values("Trailer"))
				}
				timing = res.Trailer
			} else if res.ContentLength != int64(len(audio)) {
				t.Errorf("Content-Length %d, body %d", res.ContentLength, len(audio))
			}
			up, err1 := strconv.ParseFloat(timing.Get("x-upstream-ms"), 64)
			gw, err2 := strconv.ParseFloat(timing.Get("x-gateway-ms"), 64)
			eng, err3 := strconv.ParseFloat(timing.Get("x-engine-ms"), 64)
			if err1 != nil || err2 != nil || err3 != nil || eng <= 0 || up < eng || gw < up {
				t.Errorf("x-engine-ms %q x-upstream-ms %q x-gateway-ms %q", timing.Get("x-engine-ms"), timing.Get("x-upstream-ms"), timing.Get("x-gateway-ms"))
			}
		})
	}
	// An error response carries the request id too, and a client's own id is kept.
	req, _ := http.NewRequest("GET", e.TS.URL+"/v1/models", nil)
	req.Header.Set("X-Request-Id", "trace-123")
	res, err := e.TS.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 || res.Header.Get("x-request-id") != "trace-123" {
		t.Errorf("status %d, request id %q", res.StatusCode, res.Header.Get("x-request-id"))
	}
}

func TestPCMFirstByteBeforeSynthesisEnds(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	body := `{"voice":"slow","input":"` + testserver.Sentences10 + `","response_format":"pcm"}`
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	var first [1]byte
	if _, err := io.ReadFull(res.Body, first[:]); err != nil {
		t.Fatal(err)
	}
	// The slow engine sleeps before each of the 10 sentences; when the
	// first byte is here at most the second has begun.
	if n := len(e.Slow.Requests()); n >= 10 {
		t.Fatalf("first byte arrived after %d of 10 sentences were requested", n)
	}
	rest, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.Slow.Requests()); n != 10 {
		t.Errorf("%d sentences synthesized, want 10", n)
	}
	if len(rest) < 24000 || res.Trailer.Get("x-gateway-ms") == "" {
		t.Errorf("%d bytes, trailer %v", len(rest)+1, res.Trailer)
	}
}

func TestDisconnectCancelsSynthesis(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"voice":"slow","input":"` + testserver.Sentences10 + `","response_format":"pcm"}`
	req, _ := http.NewRequestWithContext(ctx, "POST", e.TS.URL+"/v1/audio/speech", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.Key)
	res, err := e.TS.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var first [1]byte
	if _, err := io.ReadFull(res.Body, first[:]); err != nil {
		t.Fatal(err)
	}
	atDisconnect := len(e.Slow.Requests())
	cancel()
	res.Body.Close()
	select {
	case <-e.Done:
	case <-time.After(10 * time.Second):
		t.Fatal("handler still running 10 s after the client left")
	}
	// Once its first audio is out a stream renders ahead on the free
	// render slots (GOMAXPROCS of them here), so those and the next in
	// turn may have begun; none may begin once the handler is done.
	ended := len(e.Slow.Requests())
	if most := atDisconnect + 1 + runtime.GOMAXPROCS(0); ended > most || ended >= 10 {
		t.Errorf("%d sentences requested at disconnect, %d after: more than the next and one per render slot (%d)", atDisconnect, ended, most)
	}
	time.Sleep(200 * time.Millisecond) // five of the slow engine's 40 ms pauses before a sentence
	if n := len(e.Slow.Requests()); n != ended {
		t.Errorf("%d sentences requested when the handler ended, %d later", ended, n)
	}
}

func TestKeysSurviveRestart(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), sqlite.FileName)
	e := testserver.New(t, testserver.Options{DBPath: dbPath})
	res := e.Do("POST", "/v1/keys", e.Key, "application/json", strings.NewReader(`{"name":"laptop"}`))
	var created wire.APIKey
	json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != 201 || !store.WellFormed(created.Key) || created.Prefix != created.Key[:11] {
		t.Fatalf("create key: %d %+v", res.StatusCode, created)
	}
	e.TS.Close()
	e.Store.Close()

	e2 := testserver.New(t, testserver.Options{DBPath: dbPath})
	for _, key := range []string{created.Key, e.Key} {
		res := e2.Do("GET", "/v1/models", key, "", nil)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("key %s… after restart: %d", key[:11], res.StatusCode)
		}
	}
	e2.Store.Close()
	for _, f := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, key := range []string{created.Key, e.Key, e.OtherKey, e2.Key} {
			if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(key[11:])) {
				t.Errorf("%s holds a plaintext key", filepath.Base(f))
			}
		}
	}
}

func TestKeyManagement(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := testserver.New(t, testserver.Options{Signup: true})
	res := e.Do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"carol","password":"`+testserver.TestPassword+`"}`))
	var su wire.Signup
	json.NewDecoder(res.Body).Decode(&su)
	res.Body.Close()
	if res.StatusCode != 201 || su.Account.Name != "carol" || su.Session == nil {
		t.Fatalf("signup: %d %+v", res.StatusCode, su)
	}
	res = e.Do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"carol","password":"`+testserver.TestPassword+`"}`))
	res.Body.Close()
	if res.StatusCode != 409 {
		t.Errorf("duplicate signup: %d", res.StatusCode)
	}
	_, bs := e.SignIn("carol", testserver.TestPassword)
	res = e.DoAs(bs, true, "POST", "/v1/keys", `{"name":"laptop","scope":"admin"}`)
	json.NewDecoder(res.Body).Decode(&su.Key)
	res.Body.Close()
	if res.StatusCode != 201 || !store.WellFormed(su.Key.Key) {
		t.Fatalf("first key: %d %+v", res.StatusCode, su.Key)
	}
	res = e.Do("GET", "/v1/keys", su.Key.Key, "", nil)
	var list wire.KeyList
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 1 || list.Data[0].Key != "" || list.Data[0].Prefix != su.Key.Prefix {
		t.Fatalf("list: %+v", list)
	}
	// Another account cannot revoke carol's key.
	res = e.Do("DELETE", "/v1/keys/"+su.Key.Prefix, e.Key, "", nil)
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("revoke across accounts: %d", res.StatusCode)
	}
	res = e.Do("DELETE", "/v1/keys/"+su.Key.Prefix, su.Key.Key, "", nil)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("revoke: %d", res.StatusCode)
	}
	res = e.Do("GET", "/v1/models", su.Key.Key, "", nil)
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("revoked key used: %d", res.StatusCode)
	}
}

// TestNormalizeEndpoint: GET /v1/normalize shows the text a voice reads
// and where each piece of it comes from, in characters.
func TestNormalizeEndpoint(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	input := "é costs $9.50 <|pause|> now"
	res := e.Do("GET", "/v1/normalize?voice=en-us&text="+url.QueryEscape(input), e.Key, "", nil)
	var got wire.Normalization
	json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if res.StatusCode != 200 || got.Text != "é costs nine dollars and fifty cents <|pause|> now" {
		t.Fatalf("%d %+v", res.StatusCode, got)
	}
	runes, text := []rune(input), []rune(got.Text)
	found := false
	for _, s := range got.Spans {
		if s.Changed && string(runes[s.InputStart:s.InputEnd]) == "$9.50" && string(text[s.TextStart:s.TextEnd]) == "nine dollars and fifty cents" {
			found = true
		}
	}
	if !found {
		t.Errorf("no span maps the words said to $9.50: %+v", got.Spans)
	}
	for _, c := range []struct {
		query, code string
		status      int
	}{{"voice=en-us", "missing_required_parameter", 400}, {"text=hi", "missing_required_parameter", 400},
		{"voice=nobody&text=hi", "voice_not_found", 404}, {"voice=en-us&text=" + strings.Repeat("a", 4097), "string_above_max_length", 400}} {
		res := e.Do("GET", "/v1/normalize?"+c.query, e.Key, "", nil)
		var body struct{ Error struct{ Code string } }
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if res.StatusCode != c.status || body.Error.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.query, res.StatusCode, body.Error.Code, c.status, c.code)
		}
	}
	res = e.Do("GET", "/v1/normalize?voice=en-us&text=hi", "", "", nil)
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("without a key: %d", res.StatusCode)
	}
}

// TestSSMLOverTheAPI: SSML over HTTP and the WebSocket: malformed SSML is
// a 400 naming where, elements left out are listed, input_format forces
// the reading.
func TestSSMLOverTheAPI(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"<speak>Hi\n<prosody>there</speak>"}`))
	var we wire.Error
	json.NewDecoder(res.Body).Decode(&we)
	res.Body.Close()
	if res.StatusCode != 400 || we.Code != "invalid_value" || we.Param != "input" || !strings.Contains(we.Message, "line 2, column") {
		t.Errorf("malformed SSML: %d %+v", res.StatusCode, we)
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"<speak>Hi <audio src=\"x\"/> there.</speak>","response_format":"pcm"}`))
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Trailer.Get("X-Ignored-Tags") != "audio" && res.Header.Get("X-Ignored-Tags") != "audio" {
		t.Errorf("SSML with audio: %d, ignored %q %q", res.StatusCode, res.Header.Get("X-Ignored-Tags"), res.Trailer.Get("X-Ignored-Tags"))
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Just text","input_format":"ssml"}`))
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("input_format ssml of plain text: %d", res.StatusCode)
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Hi","input_format":"xml"}`))
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("input_format xml: %d", res.StatusCode)
	}
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "x", "voice": "en-us", "input": "<speak>Hi <break time=\"1s\"></speak>"})
	if m := testserver.Next(t, c); m.Type != "error" || m.Error["param"] != "input" || !strings.Contains(m.Error["message"].(string), "column") {
		t.Errorf("malformed SSML on the WebSocket: %+v", m)
	}
}

// TestSSMLSpokenOverTheAPI: over HTTP and the WebSocket, on espeak-ng, an
// SSML break adds its second (± 20 ms) and sub speaks its alias.
func TestSSMLSpokenOverTheAPI(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	pcmLength := func(input string) time.Duration {
		b, _ := json.Marshal(map[string]any{"voice": "en-us", "input": input, "response_format": "pcm"})
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", bytes.NewReader(b))
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", input, res.StatusCode)
		}
		return time.Duration(n) * time.Second / 48000 // 24 kHz, 16 bits
	}
	d := pcmLength(`<speak>Hello there. <break time="1s"/> How are you?</speak>`) - pcmLength(`<speak>Hello there. How are you?</speak>`)
	if math.Abs(d.Seconds()-1) > 0.020 {
		t.Errorf("HTTP: the break added %v, want 1 s ± 20 ms", d)
	}
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	wsSay := func(id, input string) []testserver.WSEvent {
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": id, "voice": "en-us", "input": input, "timestamps": "word"})
		return testserver.ReadContext(t, c)
	}
	audioMS := func(events []testserver.WSEvent) float64 {
		ms, _ := events[len(events)-1].Raw["audio_ms"].(float64)
		return ms
	}
	with, without := wsSay("a", `<speak>Hello there. <break time="1s"/> How are you?</speak>`), wsSay("b", `<speak>Hello there. How are you?</speak>`)
	if d := audioMS(with) - audioMS(without); math.Abs(d-1000) > 20 {
		t.Errorf("WebSocket: the break added %.0f ms, want 1000 ± 20", d)
	}
	var words []string
	for _, ev := range wsSay("c", `<speak>I like <sub alias="World Wide Web">WWW</sub> and <say-as interpret-as="characters">abc</say-as>.</speak>`) {
		for _, w := range ev.Words {
			words = append(words, w.Word)
		}
	}
	if got := strings.Join(words, " "); !strings.Contains(got, "World Wide Web") || strings.Contains(got, "WWW") {
		t.Errorf("sub: words %q", got)
	}
}
