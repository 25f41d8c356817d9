package server_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// TestCloneFromFLAC: a FLAC recording clones the voice the WAV of the
// same samples does (at temperature 0 they speak alike, sample for
// sample); a FLAC cut short is a 400 unsupported_audio.
func TestCloneFromFLAC(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	samples := pockettest.Recording(2, 170)
	flac := audiotest.Encoded(t, encode.Format{Name: "flac", SampleRate: pockettest.SampleRate}, dsp.AppendInt16(nil, samples))
	clone := func(id string, audio []byte) (int, []byte) {
		res := e.Upload(e.Key, map[string]string{"id": id, "name": id, "temperature": "0", "steps": "3"}, audio)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if st, b := clone("from-wav", pockettest.WAV(samples, pockettest.SampleRate)); st != 201 {
		t.Fatalf("from a WAV: %d %s", st, b)
	}
	if st, b := clone("from-flac", flac); st != 201 {
		t.Fatalf("from a FLAC: %d %s", st, b)
	}
	_, fromWAV := e.Speak(e.Key, "from-wav")
	st, fromFLAC := e.Speak(e.Key, "from-flac")
	if st != 200 || len(fromFLAC) == 0 || !bytes.Equal(fromFLAC, fromWAV) {
		t.Errorf("the FLAC's clone: %d, %d bytes, the same as the WAV's %d bytes: %v", st, len(fromFLAC), len(fromWAV), bytes.Equal(fromFLAC, fromWAV))
	}
	if st, b := clone("cut", flac[:len(flac)/2]); st != 400 || !bytes.Contains(b, []byte(`"unsupported_audio"`)) {
		t.Errorf("a FLAC cut short: %d %s", st, b)
	}
}
