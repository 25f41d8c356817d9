package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// elevenResult is one case of elevenlabs.cjs's output.
type elevenResult struct {
	OK         bool      `json:"ok"`
	File       string    `json:"file"`
	Bytes      int       `json:"bytes"`
	Chunks     int       `json:"chunks"`
	Characters []string  `json:"characters"`
	Starts     []float64 `json:"starts"`
	Ends       []float64 `json:"ends"`
	Normalized string    `json:"normalized"`
	Voices     []struct {
		VoiceID  string `json:"voiceId"`
		Category string `json:"category"`
	} `json:"voices"`
	Dictionary struct {
		ID              string `json:"id"`
		VersionID       string `json:"versionId"`
		VersionRulesNum int    `json:"versionRulesNum"`
	} `json:"dictionary"`
	Added, Removed struct {
		VersionID       string `json:"versionId"`
		VersionRulesNum int    `json:"versionRulesNum"`
	}
	Rules    []string `json:"rules"`
	Latest   string   `json:"latest"`
	Listed   []string `json:"listed"`
	Document string   `json:"document"`
	Error    struct {
		Name   string          `json:"name"`
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"error"`
}

// TestElevenLabsSDK drives the ElevenLabs-compatible API with the official
// ElevenLabs Node SDK: the voice list, convert (mp3_44100_128 and
// pcm_24000, heard by the recognizer), stream, convert with timestamps,
// pronunciation dictionaries (made from a file and from rules, their
// rules changed, read, listed, downloaded, and named by locators in
// convert: "WHO" heard as the alias), and its errors.
func TestElevenLabsSDK(t *testing.T) {
	node, modules := nodeSDK(t)
	if _, err := os.Stat(filepath.Join(modules, "@elevenlabs", "elevenlabs-js", "package.json")); err != nil {
		t.Fatalf("the ElevenLabs SDK is not in %s (run .ci/install-node-sdk.sh)", modules)
	}
	audiotest.Require(t, "ffprobe", "ffmpeg", "pocketsphinx_continuous")
	e := newEnv(t, envOptions{espeak: true})
	sentence := 0
	text := sentences()[sentence] + " It costs $9.50."
	results := runNode(t, node, modules, "elevenlabs.cjs", nil, e.url("/elevenlabs"), e.key, t.TempDir(), text)
	get := func(name string, wantOK bool) elevenResult {
		t.Helper()
		var r elevenResult
		if err := json.Unmarshal(results[name], &r); err != nil || r.OK != wantOK {
			t.Fatalf("case %s: want ok=%v: %s", name, wantOK, results[name])
		}
		return r
	}
	voices := get("voices", true)
	if len(voices.Voices) < 3 || !strings.Contains(string(results["voices"]), `"voiceId":"en-us","category":"premade"`) {
		t.Errorf("voices: %s", results["voices"])
	}
	mp3 := get("convert_mp3", true)
	if p := audiotest.ProbeFile(t, mp3.File); p.Codec != "mp3" || p.SampleRate != 44100 || p.Duration < 1 {
		t.Errorf("convert mp3_44100_128: %+v", p)
	}
	pcm := get("convert_pcm", true)
	body, _ := os.ReadFile(pcm.File)
	wav := pcmToWav(t, body, 24000)
	if got, want := audiotest.Recognize(t, wav, audiotest.Candidates), audiotest.Candidates[sentence]; got != want {
		t.Errorf("convert pcm_24000: recognizer heard %q, want %q", got, want)
	}
	if s := get("stream", true); s.Bytes < pcm.Bytes*9/10 || s.Bytes > pcm.Bytes*11/10 || s.Chunks < 2 {
		t.Errorf("stream: %d bytes in %d chunks; convert made %d", s.Bytes, s.Chunks, pcm.Bytes)
	}
	ts := get("timestamps", true)
	if strings.Join(ts.Characters, "") != text || len(ts.Starts) != len(ts.Characters) || len(ts.Ends) != len(ts.Characters) {
		t.Errorf("timestamps: %d characters %q, %d starts, %d ends", len(ts.Characters), strings.Join(ts.Characters, ""), len(ts.Starts), len(ts.Ends))
	}
	for i := 1; i < len(ts.Starts); i++ {
		if ts.Starts[i] < ts.Starts[i-1]-0.001 || ts.Ends[i] < ts.Starts[i] {
			t.Errorf("character %d %q: %.3f–%.3f after %.3f", i, ts.Characters[i], ts.Starts[i], ts.Ends[i], ts.Starts[i-1])
			break
		}
	}
	if !strings.Contains(ts.Normalized, "nine dollars") {
		t.Errorf("normalized alignment: %q", ts.Normalized)
	}
	file := get("dictionary_file", true).Dictionary
	if file.ID == "" || file.VersionID == "" || file.VersionRulesNum != 1 {
		t.Errorf("createFromFile: %s", results["dictionary_file"])
	}
	rules := get("dictionary_rules", true)
	if rules.Dictionary.VersionRulesNum != 2 || rules.Added.VersionRulesNum != 3 || rules.Removed.VersionRulesNum != 2 ||
		rules.Latest != rules.Removed.VersionID || strings.Join(rules.Rules, ",") != "tomato,WHO" ||
		strings.Join(rules.Listed, ",") != rules.Dictionary.ID+","+file.ID || strings.Contains(rules.Document, "NASA") ||
		!strings.Contains(rules.Document, "<grapheme>WHO</grapheme>") {
		t.Errorf("createFromRules, rules.add, rules.remove, get, list, download: %s", results["dictionary_rules"])
	}
	body, _ = os.ReadFile(get("dictionary_speech", true).File)
	alias := "we met the world health organization today"
	if heard := audiotest.Recognize(t, pcmToWav(t, body, 24000), []string{alias, "we met the who today", "we met the w h o today"}); heard != alias {
		t.Errorf("convert with pronunciationDictionaryLocators: heard %q, want %q", heard, alias)
	}
	if r := get("dictionary_unknown", false); r.Error.Status != 404 || !strings.Contains(string(r.Error.Body), "pronunciation_dictionary_not_found") {
		t.Errorf("an unknown dictionary: %+v %s", r.Error, r.Error.Body)
	}
	if r := get("unknown_voice", false); r.Error.Status != 404 || !strings.Contains(string(r.Error.Body), "voice_not_found") {
		t.Errorf("unknown voice: %+v %s", r.Error, r.Error.Body)
	}
	if r := get("bad_key", false); r.Error.Status != 401 || !strings.Contains(string(r.Error.Body), "invalid_api_key") {
		t.Errorf("bad key: %+v %s", r.Error, r.Error.Body)
	}
}
