package e2e

import (
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// cartesiaResult is one case of cartesia.cjs's output.
type cartesiaResult struct {
	OK     bool     `json:"ok"`
	File   string   `json:"file"`
	Bytes  int      `json:"bytes"`
	Words  []string `json:"words"`
	Types  []string `json:"types"`
	Voices []string `json:"voices"`
	A, B   struct {
		Bytes int      `json:"bytes"`
		Words []string `json:"words"`
	}
	ShortBytes int      `json:"shortBytes"`
	ShortTypes []string `json:"shortTypes"`
	LongDone   bool     `json:"longDone"`
	Dict       struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Items []struct {
			Text  string `json:"text"`
			Alias string `json:"alias"`
		} `json:"items"`
	} `json:"dict"`
	PlainBytes, DictBytes, SpelledBytes, SSEBytes, WSBytes int
	UpdatedItems                                           int      `json:"updatedItems"`
	Listed                                                 []string `json:"listed"`
	Second                                                 string   `json:"second"`
	Error                                                  struct {
		Name   string          `json:"name"`
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"error"`
}

// TestCartesiaSDK drives the Cartesia-compatible API with the official
// Cartesia Node SDK: the voice list (paged), bytes (raw pcm heard by the
// recognizer, and wav of 32-bit floats), SSE with word timestamps, the
// WebSocket with a context fed in pieces, two contexts at once, one
// cancelled while the other finishes, pronunciation dictionaries through
// the SDK's own calls (made, used by bytes, SSE and a socket context,
// updated, listed in pages, deleted), and errors.
func TestCartesiaSDK(t *testing.T) {
	node, modules := nodeSDK(t)
	if _, err := os.Stat(filepath.Join(modules, "@cartesia", "cartesia-js", "package.json")); err != nil {
		t.Fatalf("the Cartesia SDK is not in %s (run .ci/install-node-sdk.sh)", modules)
	}
	audiotest.Require(t, "ffprobe", "ffmpeg", "pocketsphinx_continuous")
	e := newEnv(t, envOptions{espeak: true, tls: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	sentence := 1
	text := sentences()[sentence]
	results := runNode(t, node, modules, "cartesia.cjs", []string{"NODE_EXTRA_CA_CERTS=" + ca}, e.url("/cartesia"), e.key, dir, text)
	for _, name := range []string{"ws_two", "ws_cancel", "dict_use", "dict_update", "unknown_voice", "bad_key"} {
		t.Logf("%s: %.300s", name, results[name])
	}
	get := func(name string, wantOK bool) cartesiaResult {
		t.Helper()
		var r cartesiaResult
		if err := json.Unmarshal(results[name], &r); err != nil || r.OK != wantOK {
			t.Fatalf("case %s: want ok=%v: %s", name, wantOK, results[name])
		}
		return r
	}
	if v := get("voices", true); len(v.Voices) < 25 || !strings.Contains(strings.Join(v.Voices, " "), "en-us") {
		t.Errorf("voices (pages of 20): %d %v", len(v.Voices), v.Voices)
	}
	pcm := get("bytes_pcm", true)
	body, _ := os.ReadFile(pcm.File)
	if got, want := audiotest.Recognize(t, pcmToWav(t, body, 24000), audiotest.Candidates), audiotest.Candidates[sentence]; got != want {
		t.Errorf("bytes: recognizer heard %q, want %q", got, want)
	}
	if p := audiotest.ProbeFile(t, get("bytes_wav_f32", true).File); p.Codec != "pcm_f32le" || p.SampleRate != 44100 {
		t.Errorf("bytes wav pcm_f32le: %+v", p)
	}
	want := strings.Join(strings.Fields(strings.NewReplacer(".", "", ",", "").Replace(text)), " ")
	for _, name := range []string{"sse", "ws_pieces"} {
		r := get(name, true)
		if !closeToInt(r.Bytes, pcm.Bytes, 0.05) || strings.Join(r.Words, " ") != want || r.Types[len(r.Types)-1] != "done" {
			t.Errorf("%s: %d bytes (bytes: %d), words %q, events %v", name, r.Bytes, pcm.Bytes, r.Words, r.Types)
		}
	}
	if got, want := audiotest.Recognize(t, pcmToWav(t, mustRead(t, get("ws_pieces", true).File), 24000), audiotest.Candidates), audiotest.Candidates[sentence]; got != want {
		t.Errorf("websocket: recognizer heard %q, want %q", got, want)
	}
	two := get("ws_two", true)
	if strings.Join(two.A.Words, " ") != "The first context talks about apples" || strings.Join(two.B.Words, " ") != "A second context talks about the weather today" ||
		two.A.Bytes == 0 || two.B.Bytes <= two.A.Bytes {
		t.Errorf("two contexts: %+v", two)
	}
	if c := get("ws_cancel", true); c.ShortBytes == 0 || c.ShortTypes[len(c.ShortTypes)-1] != "done" || c.LongDone {
		t.Errorf("cancel: %+v", c)
	}
	if c := get("dict_create", true); c.Dict.ID == "" || c.Dict.Name != "acronyms" || len(c.Dict.Items) != 1 || c.Dict.Items[0].Alias != "World Health Organization" {
		t.Errorf("dictionary made: %+v", c.Dict)
	}
	u := get("dict_use", true)
	for name, n := range map[string]int{"bytes": u.DictBytes, "sse": u.SSEBytes, "websocket": u.WSBytes} {
		if !closeToInt(n, u.SpelledBytes, 0.05) || closeToInt(n, u.PlainBytes, 0.05) {
			t.Errorf("%s with the dictionary: %d bytes; the alias written out %d, without the dictionary %d", name, n, u.SpelledBytes, u.PlainBytes)
		}
	}
	if d := get("dict_update", true); d.UpdatedItems != 2 || len(d.Dict.Items) != 2 || d.Dict.Items[1].Alias != "<<b|ɑ|j|u>>" ||
		len(d.Listed) != 2 || d.Listed[1] != d.Second {
		t.Errorf("dictionary updated and listed: %+v", d)
	}
	if r := get("dict_delete", false); r.Error.Status != 404 {
		t.Errorf("a deleted dictionary: %+v %s", r.Error, r.Error.Body)
	}
	if r := get("unknown_voice", false); r.Error.Status != 404 || !strings.Contains(string(r.Error.Body), "voice_not_found") {
		t.Errorf("unknown voice: %+v %s", r.Error, r.Error.Body)
	}
	if r := get("bad_key", false); r.Error.Status != 401 {
		t.Errorf("bad key: %+v %s", r.Error, r.Error.Body)
	}
}

func closeToInt(got, want int, frac float64) bool {
	d := float64(got - want)
	return d <= frac*float64(want) && -d <= frac*float64(want)
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
