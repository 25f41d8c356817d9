package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/opus"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/wire"
)

// chromiumWebM is a recording made by Chromium's MediaRecorder (WebM
// Opus, see its README).
const chromiumWebM = "../internal/codec/recording/testdata/chromium.webm"

// ffmpegRecording is a 2 s generated recording at pitch encoded by ffmpeg
// with args into a file with extension ext.
func ffmpegRecording(t *testing.T, pitch float64, ext string, args ...string) []byte {
	t.Helper()
	audiotest.Require(t, "ffmpeg")
	src := audiotest.WriteTemp(t, pockettest.WAV(pockettest.Recording(2, pitch), pockettest.SampleRate), "wav")
	out := filepath.Join(t.TempDir(), "rec."+ext)
	if b, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-i", src}, args...), out)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCloneFromCompressedRecordings: recordings in MP3 (ffmpeg's, 44.1 kHz
// stereo VBR), Ogg Opus (voxkit's own) and WebM Opus (Chromium's
// MediaRecorder) uploaded to POST /v1/voices become voices that speak,
// each its own way; MP4/AAC (what Safari records) and a WebM of Vorbis
// are a 400 that names the formats read.
func TestCloneFromCompressedRecordings(t *testing.T) {
	if testing.Short() {
		t.Skip("three clones and four ffmpeg runs, about 3 s")
	}
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	webm, err := os.ReadFile(chromiumWebM)
	if err != nil {
		t.Fatal(err)
	}
	uploads := []struct {
		name  string
		audio []byte
	}{
		{"mp3", ffmpegRecording(t, 150, "mp3", "-af", "pan=stereo|c0=c0|c1=0.5*c0", "-ar", "44100", "-c:a", "libmp3lame", "-q:a", "4")},
		{"ogg", audiotest.Encoded(t, encode.Format{Name: "opus", SampleRate: 24000},
			dsp.AppendInt16(nil, pockettest.Recording(2, 210)))},
		{"webm", webm},
	}
	spoken := map[string][]byte{}
	for _, u := range uploads {
		res := e.Upload(e.Key, map[string]string{"id": u.name, "name": "From " + u.name, "temperature": "0", "steps": "2"}, u.audio)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var v wire.Voice
		if res.StatusCode != 201 || json.Unmarshal(b, &v) != nil || v.ID != u.name {
			t.Fatalf("%s upload: %d %s", u.name, res.StatusCode, b)
		}
		st, pcm := e.Speak(e.Key, u.name)
		if st != 200 || len(pcm) < 24000 {
			t.Fatalf("speaking the %s clone: %d, %d bytes", u.name, st, len(pcm))
		}
		for other, o := range spoken {
			if bytes.Equal(pcm, o) {
				t.Errorf("the %s and %s clones speak alike", u.name, other)
			}
		}
		spoken[u.name] = pcm
	}

	for name, audio := range map[string][]byte{
		"mp4 aac":     ffmpegRecording(t, 180, "m4a", "-c:a", "aac"),
		"webm vorbis": ffmpegRecording(t, 180, "webm", "-c:a", "libvorbis"),
	} {
		got := testserver.APIError(t, e.Upload(e.Key, map[string]string{"name": "x"}, audio), 400, wire.CodeUnsupportedAudio)
		if got.Param != "audio" || !strings.Contains(got.Message, "WAV, FLAC, MP3, Ogg Opus or WebM Opus") {
			t.Errorf("%s: %+v", name, got)
		}
		t.Logf("%s: %s", name, got.Message)
	}
}

// TestRecordingFormatsOnEveryDoor: voices cloned from a WAV, an MP3 and a
// WebM Opus recording (Chromium's) speak on every door — /v1, voxkit's
// WebSocket, ElevenLabs, Cartesia and Wyoming — the same samples, at
// temperature 0, as /v1 gives.
func TestRecordingFormatsOnEveryDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("three clones spoken on five doors, about 3 s")
	}
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	webm, err := os.ReadFile(chromiumWebM)
	if err != nil {
		t.Fatal(err)
	}
	const text = "Hello there, how are you today?" // e.speak's
	ws := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, ws) // ready
	wyoming := testserver.DialWyoming(t, testserver.StartWyomingAs(t, e, "local"))
	for _, u := range []struct {
		id    string
		audio []byte
	}{
		{"wav", pockettest.WAV(pockettest.Recording(2, 170), pockettest.SampleRate)},
		{"mp3", ffmpegRecording(t, 150, "mp3", "-c:a", "libmp3lame", "-b:a", "64k")},
		{"webm", webm},
	} {
		res := e.Upload(e.Key, map[string]string{"id": u.id, "name": "From " + u.id, "temperature": "0", "steps": "2"}, u.audio)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 201 {
			t.Fatalf("%s upload: %d %s", u.id, res.StatusCode, b)
		}
		st, want := e.Speak(e.Key, u.id)
		if st != 200 || len(want) < 24000 || bytes.Count(want, []byte{0}) == len(want) {
			t.Fatalf("%s over /v1: %d, %d bytes", u.id, st, len(want))
		}
		spoken := map[string][]byte{}
		_, spoken["ElevenLabs"] = e.ElevenDo("POST", "/v1/text-to-speech/"+u.id+"?output_format=pcm_24000", e.Key, `{"text":"`+text+`"}`)
		cartesia, _ := json.Marshal(map[string]any{"model_id": "sonic-3", "transcript": text, "voice": map[string]any{"mode": "id", "id": u.id},
			"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}})
		_, spoken["Cartesia"] = e.CartesiaDo("POST", "/tts/bytes", e.Key, string(cartesia))
		testserver.SendWS(t, ws, map[string]any{"type": "speech.create", "id": u.id, "voice": u.id, "input": text, "response_format": "pcm"})
		for _, ev := range testserver.ReadContext(t, ws) {
			spoken["voxkit's WebSocket"] = append(spoken["voxkit's WebSocket"], ev.Audio...)
		}
		wyoming.Send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": u.id}})
		spoken["Wyoming"], _, _ = wyoming.Audio()
		for door, got := range spoken {
			if !bytes.Equal(got, want) {
				t.Errorf("the %s clone over %s: %d bytes, not /v1's %d", u.id, door, len(got), len(want))
			}
		}
	}
}
