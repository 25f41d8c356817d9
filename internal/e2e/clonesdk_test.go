package e2e

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// cloneResult is one case of elevenlabs_clone.cjs's or
// cartesia_clone.cjs's output.
type cloneResult struct {
	OK                   bool    `json:"ok"`
	VoiceID              string  `json:"voiceId"`
	RequiresVerification *bool   `json:"requiresVerification"`
	Name                 string  `json:"name"`
	Category             string  `json:"category"`
	Listed               *string `json:"listed"`
	IsOwner              *bool   `json:"isOwner"`
	Status               string  `json:"status"`
	File                 string  `json:"file"`
	Bytes                int     `json:"bytes"`
	Chunks               int     `json:"chunks"`
	SameSeed, OtherSeed  bool
	Searched             []string `json:"searched"`
	Voice                struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Language string `json:"language"`
		IsOwner  bool   `json:"is_owner"`
	} `json:"voice"`
	Error struct {
		Name   string          `json:"name"`
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"error"`
}

// runCloneSDK runs script (elevenlabs_clone.cjs or cartesia_clone.cjs)
// against a server with the generated PocketTTS model under base, with a
// 3 s recording, and returns a getter of its cases.
func runCloneSDK(t *testing.T, sdk, script, base string) func(name string, wantOK bool) cloneResult {
	t.Helper()
	node, modules := nodeSDK(t)
	if _, err := os.Stat(filepath.Join(modules, sdk, "package.json")); err != nil {
		t.Fatalf("%s is not in %s (run .ci/install-node-sdk.sh)", sdk, modules)
	}
	e := newEnv(t, envOptions{pocket: true})
	dir := t.TempDir()
	rec := filepath.Join(dir, "me.wav")
	if err := os.WriteFile(rec, pockettest.WAV(pockettest.Recording(3, 200), pockettest.SampleRate), 0o600); err != nil {
		t.Fatal(err)
	}
	results := runNode(t, node, modules, script, nil, e.url(base), e.key, e.otherKey, dir, rec, "Hello there. How are you today?")
	for name, r := range results {
		t.Logf("%s: %.400s", name, r)
	}
	return func(name string, wantOK bool) cloneResult {
		t.Helper()
		var r cloneResult
		if err := json.Unmarshal(results[name], &r); err != nil || r.OK != wantOK {
			t.Fatalf("case %s: want ok=%v: %s", name, wantOK, results[name])
		}
		return r
	}
}

// wantVoiceNotFound fails t unless r (the case name) failed with a 404 whose body has
// the error code voice_not_found (ElevenLabs' status, Cartesia's
// error_code).
func wantVoiceNotFound(t *testing.T, name string, r cloneResult) {
	t.Helper()
	if r.Error.Status != 404 || !strings.Contains(string(r.Error.Body), `"voice_not_found"`) {
		t.Errorf("%s: want a 404 voice_not_found, got %d %s", name, r.Error.Status, r.Error.Body)
	}
}

// speaks fails t unless file holds at least a second of 24 kHz 16-bit
// pcm that is not silence.
func speaks(t *testing.T, what, file string) {
	t.Helper()
	pcm := mustRead(t, file)
	var sum float64
	for i := 0; i+1 < len(pcm); i += 2 {
		s := float64(int16(binary.LittleEndian.Uint16(pcm[i:]))) / 32768
		sum += s * s
	}
	n := len(pcm) / 2
	if n < 24000 {
		t.Errorf("%s: %d samples, want a second or more", what, n)
		return
	}
	if rms := math.Sqrt(sum / float64(n)); rms < 0.001 {
		t.Errorf("%s: silence (RMS %.5f)", what, rms)
	}
}

// TestElevenLabsSDKClone drives instant voice cloning with the official
// ElevenLabs Node SDK: voices.ivc.create from a WAV file gives a voice id
// that convert and stream speak with (convert's seed says a text the
// same way every time), voices.get, getAll and search show it as
// cloned, another account can neither see, use nor delete it,
// voices.delete removes it, and speaking with it then is ElevenLabs' 404.
func TestElevenLabsSDKClone(t *testing.T) {
	get := runCloneSDK(t, "@elevenlabs/elevenlabs-js", "elevenlabs_clone.cjs", "/elevenlabs")
	made := get("create", true)
	if made.VoiceID == "" || made.RequiresVerification == nil || *made.RequiresVerification {
		t.Fatalf("ivc.create: %+v", made)
	}
	speaks(t, "convert", get("convert", true).File)
	if s := get("stream", true); s.Chunks < 1 {
		t.Errorf("stream: %d chunks", s.Chunks)
	} else {
		speaks(t, "stream", s.File)
	}
	if s := get("seeded", true); !s.SameSeed || s.OtherSeed {
		t.Errorf("convert with seed: seed 11 twice alike %v (want true), seeds 11 and 12 alike %v (want false)", s.SameSeed, s.OtherSeed)
	}
	if g := get("get", true); g.VoiceID != made.VoiceID || g.Name != "My voice" || g.Category != "cloned" || g.Listed == nil || *g.Listed != "cloned" ||
		len(g.Searched) != 1 || g.Searched[0] != made.VoiceID {
		t.Errorf("voices.get, getAll and search: %+v", g)
	}
	notFound := func(name string) { t.Helper(); wantVoiceNotFound(t, name, get(name, false)) }
	notFound("other_get")
	if r := get("other_list", true); r.Listed != nil || len(r.Searched) != 0 {
		t.Errorf("the other account lists the clone (as %v) or finds it (%v)", r.Listed, r.Searched)
	}
	notFound("other_convert")
	notFound("other_delete")
	if d := get("delete", true); d.Status != "ok" || d.Listed != nil {
		t.Errorf("voices.delete: %+v", d)
	}
	notFound("deleted_convert")
}

// TestCartesiaSDKClone drives voice cloning with the official Cartesia
// Node SDK: voices.clone from a WAV file gives the voice, tts.generate
// speaks with it, voices.get and list show it with is_owner, another
// account can neither see, use nor delete it, voices.delete removes it,
// and speaking with it then is Cartesia's 404.
func TestCartesiaSDKClone(t *testing.T) {
	get := runCloneSDK(t, "@cartesia/cartesia-js", "cartesia_clone.cjs", "/cartesia")
	v := get("clone", true).Voice
	if v.ID == "" || v.Name != "My voice" || !v.IsOwner {
		t.Fatalf("voices.clone: %+v", v)
	}
	speaks(t, "tts.generate", get("bytes", true).File)
	if g := get("get", true); g.Voice.ID != v.ID || !g.Voice.IsOwner || g.IsOwner == nil || !*g.IsOwner {
		t.Errorf("voices.get and list: %+v", g)
	}
	notFound := func(name string) { t.Helper(); wantVoiceNotFound(t, name, get(name, false)) }
	notFound("other_get")
	if r := get("other_list", true); r.IsOwner != nil {
		t.Errorf("the other account lists the clone (is_owner %v)", *r.IsOwner)
	}
	notFound("other_bytes")
	notFound("other_delete")
	if d := get("delete", true); d.IsOwner != nil {
		t.Errorf("voices.delete: still listed (%+v)", d)
	}
	notFound("deleted_bytes")
}
