package server_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/wire"
)

// TestCloneOddRates: a recording at a rate below the 8 kHz read (1 Hz,
// 7,999 Hz) is a 400 unsupported_audio that says which rates are read,
// not a 500; one at a rate whose ratio to the model's 24 kHz is fine
// (44,101 Hz, 383,997 Hz: 24,000 and 8,000 exact phases) is cloned.
func TestCloneOddRates(t *testing.T) {
	// Recordings resampled from 383,997 Hz and cloned: seconds of CPU.
	testserver.Long(t)
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	for _, rate := range []int{1, 7999} {
		got := testserver.APIError(t, e.Upload(e.Key, map[string]string{"name": "x"}, pockettest.WAV(pockettest.Recording(2, 200), rate)), 400, wire.CodeUnsupportedAudio)
		if got.Param != "audio" || !strings.Contains(got.Message, "8000 to 384000 Hz") {
			t.Errorf("%d Hz: %+v", rate, got)
		}
	}
	for _, rate := range []int{44101, 383997} {
		// The samples of 2 s at 24 kHz, stated at rate: a second or more.
		audio := pockettest.WAV(pockettest.Recording(float64(2*rate)/pockettest.SampleRate, 200), rate)
		res := e.Upload(e.Key, map[string]string{"name": "odd"}, audio)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var v wire.Voice
		if res.StatusCode != 201 || json.Unmarshal(b, &v) != nil || v.ID == "" {
			t.Errorf("%d Hz: %d %s", rate, res.StatusCode, b)
		}
	}
}

// TestCloneCutRecording: a recording whose upload was cut inside its last
// frame (an MP3 of 2 s, 3 bytes short) is cloned from what arrived; cut
// with less than a second left it is a 400 unsupported_audio.
func TestCloneCutRecording(t *testing.T) {
	// A clone of seconds of CPU. Under -short the same path is
	// TestCloneFromRecording's (an upload decoded and cloned) and
	// TestCloneRecordingErrors' (what does not decode is a 400), and the
	// cut itself internal/codec/recording's TestDecodeCut.
	testserver.Long(t)
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	mp3 := ffmpegRecording(t, 150, "mp3", "-ar", "44100", "-c:a", "libmp3lame")
	res := e.Upload(e.Key, map[string]string{"name": "cut"}, mp3[:len(mp3)-3])
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Errorf("an MP3 cut 3 bytes short: %d %s", res.StatusCode, b)
	}
	got := testserver.APIError(t, e.Upload(e.Key, map[string]string{"name": "cut"}, mp3[:len(mp3)/4]), 400, wire.CodeUnsupportedAudio)
	if !strings.Contains(got.Message, "ends inside a frame") {
		t.Errorf("an MP3 cut at 0.5 s: %+v", got)
	}
}
