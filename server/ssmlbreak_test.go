package server_test

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/servertest"
)

// TestSSMLBreakBomb: an SSML break of any time costs no more than the
// audio limit's tags, over HTTP and Wyoming: the document is refused
// with audio_too_long while it is read, without growing the server, and
// the next request is answered.
func TestSSMLBreakBomb(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	// 10,000 s first: it is cheap to make even when unbounded, so a
	// server that is not bounded fails here before the bomb.
	for _, doc := range []string{`<speak>Hi.<break time="1e7ms"/></speak>`, `<speak><break time="1e10ms"/>Hi.</speak>`} {
		runtime.GC()
		debug.FreeOSMemory()
		servertest.ResetPeakRSS(t)
		base := servertest.PeakRSS(t)
		res, body := e.SpeechRequest(e.Key, speechJSON(doc, "pcm", 0, ""))
		checkAudioTooLong(t, res.StatusCode, body, "10m0s")
		growth := servertest.PeakRSS(t) - base
		t.Logf("%s: peak RSS +%.1f MB", doc, float64(growth)/1e6)
		if !testserver.RaceEnabled && growth > 100<<20 {
			t.Errorf("%s: peak RSS grew by %d MB, want < 100 MB", doc, growth>>20)
		}
	}
	if status, _ := e.Speak(e.Key, "en-us"); status != 200 {
		t.Errorf("the next request: %d", status)
	}

	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	voice := map[string]any{"name": "en-us"}
	c.Send("synthesize", map[string]any{"text": `<speak><break time="3e9ms"/>Hi.</speak>`, "voice": voice, "text_format": "ssml"})
	if ev := c.Next(); ev.Type != "error" || ev.String("code") != "audio_too_long" || !strings.Contains(ev.String("text"), "10m0s") {
		t.Errorf("Wyoming: %s %v, want the audio_too_long error event", ev.Type, ev.Data)
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": voice})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("Wyoming after the bomb: no audio")
	}
}
