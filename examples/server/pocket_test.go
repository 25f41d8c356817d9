package main

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/encode"
)

// TestPocketVoices: a PocketTTS model directory in -voices is loaded, its
// recordings are voices MODEL:STEM, and they speak at 24 kHz.
func TestPocketVoices(t *testing.T) {
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	// The generated model (random weights) and a recording in its
	// test_wavs.
	voicesDir := t.TempDir()
	model := filepath.Join(voicesDir, "pocket-gen")
	if out, err := exec.Command("/usr/bin/python3", "../../engine/pocket/testdata/gen/pocket.py", model).CombinedOutput(); err != nil {
		t.Fatalf("generating the model (needs Debian's python3-onnx): %v\n%s", err, out)
	}
	wav := encode.WAVHeader(encode.WAVPCM, 24000, 16, 2*48000)
	for i := range 48000 {
		wav = binary.LittleEndian.AppendUint16(wav, uint16(int16(8000*math.Sin(float64(i)*0.05))))
	}
	if err := os.MkdirAll(filepath.Join(model, "test_wavs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(model, "test_wavs", "alto.wav"), wav, 0o644); err != nil {
		t.Fatal(err)
	}
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
