package e2e

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// nodeSDK returns the node binary and the node_modules directory holding
// the official openai package. It skips the test when either is missing,
// except under CI, where .ci/install-node-sdk.sh must have run.
func nodeSDK(t *testing.T) (node, modules string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+" (run .ci/install-node-sdk.sh)", args...)
		}
		t.Skipf(format+" (run .ci/install-node-sdk.sh)", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < 20 {
		t.Skipf("node %s is too old for the openai SDK (20 or newer)", strings.TrimSpace(string(out)))
	}
	dir := os.Getenv("VOXKIT_NODE_SDK_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "node-sdk")
	}
	modules, err = filepath.Abs(filepath.Join(dir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "openai", "package.json")); err != nil {
		missing("the openai Node SDK is not in %s", modules)
	}
	return node, modules
}

// sentences are what the SDK script speaks: audiotest.Candidates written
// as text.
func sentences() []string {
	out := make([]string, len(audiotest.Candidates))
	for i, c := range audiotest.Candidates {
		out[i] = strings.ToUpper(c[:1]) + c[1:] + "."
	}
	return out
}

// sdkResult is one case of sdk.cjs's output.
type sdkResult struct {
	OK          bool     `json:"ok"`
	File        string   `json:"file"`
	Bytes       int      `json:"bytes"`
	Sentence    int      `json:"sentence"`
	ContentType string   `json:"contentType"`
	Cache       string   `json:"cacheControl"`
	Upstream    string   `json:"upstream"`
	Gateway     string   `json:"gateway"`
	RequestID   string   `json:"requestID"`
	IgnoredTags string   `json:"ignoredTags"`
	SDKReqID    string   `json:"sdkRequestID"`
	Status      int      `json:"status"`
	Chunks      int      `json:"chunks"`
	Types       []string `json:"types"`
	Error       struct {
		Name             string  `json:"name"`
		Message          string  `json:"message"`
		Status           int     `json:"status"`
		Type             string  `json:"type"`
		Code             *string `json:"code"`
		Param            *string `json:"param"`
		IsNotFound       bool    `json:"isNotFound"`
		IsAuthentication bool    `json:"isAuthentication"`
		IsBadRequest     bool    `json:"isBadRequest"`
	} `json:"error"`
	Models []struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	} `json:"models"`
	Model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	} `json:"model"`
}

// pcmToWav wraps raw 16-bit mono pcm in a WAV header so ffmpeg reads it.
func pcmToWav(t *testing.T, pcm []byte, rate int) string {
	t.Helper()
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm)))
	return audiotest.WriteTemp(t, append(h, pcm...), "wav")
}

// runNode runs a testdata script with node, the SDKs in modules on its
// NODE_PATH and env added to its environment, and returns the JSON
// object it prints: its results by case name.
func runNode(t *testing.T, node, modules, script string, env []string, args ...string) map[string]json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(append(os.Environ(), "NODE_PATH="+modules), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	var results map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &results); err != nil {
		t.Fatalf("%s output %q: %v", script, stdout, err)
	}
	t.Logf("%s: SDK %s", script, results["sdkVersion"])
	return results
}

// TestNodeSDK drives the server with the official OpenAI Node SDK: speech
// in every format (probed, decoded and recognized), the default format,
// instructions and speed, a streamed pcm body, SSE, the model list and
// retrieval, and the SDK's error classes for each error case.
func TestNodeSDK(t *testing.T) {
	node, modules := nodeSDK(t)
	audiotest.Require(t, "ffprobe", "ffmpeg", "pocketsphinx_continuous")
	e := newEnv(t, envOptions{espeak: true})
	out := t.TempDir()
	sents := sentences()
	js, _ := json.Marshal(sents)
	results := runNode(t, node, modules, "sdk.cjs", nil, e.url("/v1"), e.key, out, string(js))
	get := func(t *testing.T, name string, wantOK bool) sdkResult {
		t.Helper()
		var r sdkResult
		if err := json.Unmarshal(results[name], &r); err != nil {
			t.Fatalf("case %s missing or malformed: %s", name, results[name])
		}
		if r.OK != wantOK {
			t.Fatalf("case %s: ok=%v, want %v: %s", name, r.OK, wantOK, results[name])
		}
		return r
	}
	recognize := func(t *testing.T, path string, sentence int) {
		t.Helper()
		want := audiotest.Candidates[sentence]
		if got := audiotest.Recognize(t, path, audiotest.Candidates); got != want {
			t.Errorf("recognizer heard %q, want %q", got, want)
		}
	}
	codecs := map[string]string{"wav": "pcm_s16le", "mp3": "mp3", "opus": "opus", "flac": "flac"}

	for _, f := range []string{"wav", "mp3", "opus", "flac", "pcm"} {
		t.Run("format/"+f, func(t *testing.T) {
			r := get(t, "format_"+f, true)
			body, err := os.ReadFile(r.File)
			if err != nil {
				t.Fatal(err)
			}
			if r.ContentType != contentTypes[f] {
				t.Errorf("Content-Type %q, want %q", r.ContentType, contentTypes[f])
			}
			if r.Cache != "no-store" || r.RequestID == "" {
				t.Errorf("Cache-Control %q, x-request-id %q", r.Cache, r.RequestID)
			}
			if f != "pcm" {
				up, err1 := strconv.ParseFloat(r.Upstream, 64)
				gw, err2 := strconv.ParseFloat(r.Gateway, 64)
				if err1 != nil || err2 != nil || up <= 0 || gw < up {
					t.Errorf("timing headers x-upstream-ms %q x-gateway-ms %q", r.Upstream, r.Gateway)
				}
			}
			path := r.File
			if f == "pcm" {
				path = pcmToWav(t, body, 24000)
			} else if got := sniff(body); got != f {
				t.Errorf("bytes look like %q", got)
			}
			p := audiotest.ProbeFile(t, path)
			if want := codecs[f]; want != "" && p.Codec != want {
				t.Errorf("ffprobe codec %q, want %q", p.Codec, want)
			}
			if p.Duration < 1 || p.Duration > 6 {
				t.Errorf("duration %.2fs for one sentence", p.Duration)
			}
			recognize(t, path, r.Sentence)
		})
	}

	t.Run("default_format", func(t *testing.T) {
		r := get(t, "default_format", true)
		body, _ := os.ReadFile(r.File)
		got := sniff(body)
		if got != "wav" || r.ContentType != "audio/wav" {
			t.Errorf("no response_format: Content-Type %q, bytes %q; the documented default is wav", r.ContentType, got)
		}
		recognize(t, r.File, 0)
	})

	t.Run("voice_object", func(t *testing.T) {
		r := get(t, "voice_object", true)
		if r.Status != 200 || r.SDKReqID == "" || r.SDKReqID != r.RequestID {
			t.Errorf("withResponse: status %d, request_id %q, x-request-id %q", r.Status, r.SDKReqID, r.RequestID)
		}
		recognize(t, r.File, 3)
	})

	t.Run("instructions", func(t *testing.T) {
		r := get(t, "instructions", true)
		recognize(t, r.File, 1)
	})

	// Home Assistant's request (gpt-4o-mini-tts, marin, instructions) speaks,
	// slower than without the prompt, and names the word it did not act on.
	t.Run("instructions_marin", func(t *testing.T) {
		r := get(t, "instructions_marin", true)
		if r.IgnoredTags != "instructions:pirate" {
			t.Errorf("x-ignored-tags %q, want instructions:pirate", r.IgnoredTags)
		}
		d, d1 := audiotest.ProbeFile(t, r.File).Duration, audiotest.ProbeFile(t, get(t, "speed_1", true).File).Duration
		if d < 1.1*d1 {
			t.Errorf("slowly and calmly lasts %.2fs, without instructions %.2fs", d, d1)
		}
		recognize(t, r.File, 1)
	})

	t.Run("speed", func(t *testing.T) {
		d1 := audiotest.ProbeFile(t, get(t, "speed_1", true).File).Duration
		r2 := get(t, "speed_2", true)
		d2 := audiotest.ProbeFile(t, r2.File).Duration
		if d2 > 0.75*d1 || d2 < 0.3*d1 {
			t.Errorf("speed 2 lasts %.2fs, speed 1 %.2fs: want about half", d2, d1)
		}
		// Twice as fast is beyond what the recognizer follows; 1.5 is not.
		recognize(t, get(t, "speed_1_5", true).File, 1)
	})

	t.Run("pcm_stream", func(t *testing.T) {
		r := get(t, "pcm_stream", true)
		if r.ContentType != "audio/pcm" || r.Bytes == 0 || r.Bytes%2 != 0 {
			t.Errorf("streamed pcm: Content-Type %q, %d bytes", r.ContentType, r.Bytes)
		}
		d := float64(r.Bytes) / 2 / 24000
		if d < 4 || d > 20 {
			t.Errorf("four sentences streamed as %.2fs of audio", d)
		}
	})

	t.Run("sse", func(t *testing.T) {
		r := get(t, "sse", true)
		if r.ContentType != "text/event-stream" {
			t.Errorf("Content-Type %q", r.ContentType)
		}
		n := len(r.Types)
		if n < 3 || r.Types[n-1] != "[DONE]" || r.Types[n-2] != "speech.audio.done" {
			t.Fatalf("event types %v, want deltas, speech.audio.done, [DONE]", r.Types)
		}
		for _, ty := range r.Types[:n-2] {
			if ty != "speech.audio.delta" {
				t.Errorf("event types %v", r.Types)
				break
			}
		}
		body, _ := os.ReadFile(r.File)
		recognize(t, pcmToWav(t, body, 24000), r.Sentence)
	})

	t.Run("models", func(t *testing.T) {
		r := get(t, "models_list", true)
		seen := map[string]string{}
		for _, m := range r.Models {
			if m.Object != "model" || m.Created <= 0 || m.ID == "" {
				t.Errorf("model %+v", m)
			}
			seen[m.ID] = m.OwnedBy
		}
		if seen["en-us"] != "service" || seen["fake"] != "service" {
			t.Errorf("global voices missing or not owned_by service: en-us %q, fake %q", seen["en-us"], seen["fake"])
		}
		if _, ok := seen["other-clone"]; ok {
			t.Error("another account's clone is listed")
		}
		m := get(t, "models_retrieve", true).Model
		if m.ID != "en-us" || m.Object != "model" || m.OwnedBy != "service" {
			t.Errorf("retrieve en-us: %+v", m)
		}
		u := get(t, "models_retrieve_unknown", false).Error
		if !u.IsNotFound || u.Status != 404 || u.Code == nil || *u.Code != "model_not_found" {
			t.Errorf("retrieve unknown: %+v", u)
		}
	})

	str := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	for _, c := range []struct {
		name, class string
		status      int
		typ, param  string
	}{
		{"unknown_voice", "NotFoundError", 404, "proxy_error", "voice"},
		{"bad_format", "BadRequestError", 400, "invalid_request_error", "response_format"},
		{"aac", "BadRequestError", 400, "invalid_request_error", "response_format"},
		{"too_long", "BadRequestError", 400, "invalid_request_error", "input"},
		{"bad_speed", "BadRequestError", 400, "invalid_request_error", "speed"},
		{"empty_input", "BadRequestError", 400, "invalid_request_error", "input"},
		{"bad_key", "AuthenticationError", 401, "invalid_request_error", ""},
		{"bad_key_models", "AuthenticationError", 401, "invalid_request_error", ""},
	} {
		t.Run("error/"+c.name, func(t *testing.T) {
			er := get(t, "error_"+c.name, false).Error
			if er.Name != c.class || er.Status != c.status || er.Type != c.typ {
				t.Errorf("got %s status %d type %q, want %s %d %q (message %q)", er.Name, er.Status, er.Type, c.class, c.status, c.typ, er.Message)
			}
			if c.param != "" && str(er.Param) != c.param {
				t.Errorf("param %s, want %q", str(er.Param), c.param)
			}
			switch c.status {
			case 404:
				if !er.IsNotFound || !strings.Contains(strings.ToLower(er.Message), "unknown") {
					t.Errorf("unknown voice: instanceof NotFoundError %v, message %q", er.IsNotFound, er.Message)
				}
			case 401:
				if !er.IsAuthentication || str(er.Code) != "invalid_api_key" {
					t.Errorf("bad key: instanceof AuthenticationError %v, code %s", er.IsAuthentication, str(er.Code))
				}
			case 400:
				if !er.IsBadRequest {
					t.Error("not instanceof BadRequestError")
				}
			}
		})
	}
}
