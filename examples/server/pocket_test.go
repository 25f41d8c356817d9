package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
)

// TestPocketVoices: a PocketTTS model directory in -voices is loaded, its
// recordings are voices MODEL:STEM, and they speak at 24 kHz.
func TestPocketVoices(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	voicesDir := t.TempDir()
	generatePocket(t, filepath.Join(voicesDir, "pocket-gen"))
	addr, key, cancel, done := serveVoices(t, voicesDir)
	defer cancel()
	voice := "pocket-gen:alto"
	if st, body := callAPI(t, addr, key, "GET", "/v1/models/"+voice, ""); st != 200 {
		t.Fatalf("GET /v1/models/%s: %d %s", voice, st, body)
	}
	st, speech := callAPI(t, addr, key, "POST", "/v1/audio/speech", `{"voice":"`+voice+`","input":"A cloned voice speaks through the server.","response_format":"wav"}`)
	if st != 200 || len(speech) < 44+2*24000 || string(speech[:4]) != "RIFF" {
		t.Fatalf("speech: %d, %d bytes", st, len(speech))
	}
	if rate := binary.LittleEndian.Uint32([]byte(speech[24:28])); rate != 24000 {
		t.Errorf("speech at %d Hz, want 24000", rate)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// generatePocket writes the generated PocketTTS model (random weights)
// into dir, with a 2 s recording alto.wav in its test_wavs.
func generatePocket(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "../../engine/pocket/testdata/gen/pocket.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("generating the model (needs Debian's python3-onnx): %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "test_wavs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test_wavs", "alto.wav"), toneWAV(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toneWAV is 2 s of a tone at 24 kHz as a WAV file: a recording that
// clones.
func toneWAV() []byte {
	wav := encode.WAVHeader(encode.WAVPCM, 24000, 16, 2*48000)
	for i := range 48000 {
		wav = binary.LittleEndian.AppendUint16(wav, uint16(int16(8000*math.Sin(float64(i)*0.05))))
	}
	return wav
}

// TestRescanPocketOnHangup: a PocketTTS model directory moved into the
// voices directory is served after SIGHUP (its recordings are voices,
// it clones), and one moved out goes: its clones stay listed and
// speaking with them is a 400 until the model is back.
func TestRescanPocketOnHangup(t *testing.T) {
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	voicesDir, away := t.TempDir(), filepath.Join(t.TempDir(), "pocket-gen")
	generatePocket(t, away)
	addr, key, cancel, done := serveVoices(t, voicesDir)
	defer cancel()
	call := func(method, path, body string) (int, string) { return callAPI(t, addr, key, method, path, body) }
	clone := func() (int, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("name", "Me")
		fw, _ := mw.CreateFormFile("audio", "me.wav")
		fw.Write(toneWAV())
		mw.Close()
		return sendAPI(t, addr, key, "POST", "/v1/voices", mw.FormDataContentType(), &body)
	}
	// move renames from to to and has the server rescan until the
	// model's recording voice has status want.
	move := func(from, to string, want int) {
		t.Helper()
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, _ := call("GET", "/v1/models/pocket-gen:alto", "")
			if st == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after SIGHUP: pocket-gen:alto %d, want %d", st, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	speak := func(voice string) (int, string) {
		return call("POST", "/v1/audio/speech", `{"voice":"`+voice+`","input":"Hello there.","response_format":"pcm"}`)
	}
	if st, body := clone(); st != 400 || !strings.Contains(body, "no model here clones voices") {
		t.Fatalf("a clone without a model: %d %s", st, body)
	}

	move(away, filepath.Join(voicesDir, "pocket-gen"), 200)
	st, body := clone()
	var v struct {
		ID string `json:"id"`
	}
	if st != 201 || json.Unmarshal([]byte(body), &v) != nil {
		t.Fatalf("a clone with the model: %d %s", st, body)
	}
	if st, body := speak(v.ID); st != 200 {
		t.Fatalf("speaking the clone: %d %s", st, body)
	}

	move(filepath.Join(voicesDir, "pocket-gen"), away, 404)
	if _, list := call("GET", "/v1/voices", ""); !strings.Contains(list, v.ID) {
		t.Errorf("the clone is not listed with its model gone: %s", list)
	}
	if st, body := speak(v.ID); st != 400 || !strings.Contains(body, "not loaded") {
		t.Errorf("speaking the clone with its model gone: %d %s", st, body)
	}

	move(away, filepath.Join(voicesDir, "pocket-gen"), 200)
	if st, body := speak(v.ID); st != 200 {
		t.Errorf("speaking the clone with its model back: %d %s", st, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
