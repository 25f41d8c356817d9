package recording_test

import (
	"encoding/base64"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/browsertest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

var update = flag.Bool("update", false, "record testdata/chromium.webm again with Chromium's MediaRecorder")

// chromiumFixture is a recording made by Chromium's MediaRecorder; see
// testdata/README.md.
const chromiumFixture = "testdata/chromium.webm"

// chromiumPitch is the pitch of the recording Chromium's fake microphone
// plays.
const chromiumPitch = 180

// recordPage records 3 s from the microphone with MediaRecorder, as the
// playground does, and leaves the WebM in base64 in window.recorded.
const recordPage = `<!doctype html><script>
navigator.mediaDevices.getUserMedia({audio: true}).then(stream => {
	const rec = new MediaRecorder(stream, {mimeType: 'audio/webm;codecs=opus', audioBitsPerSecond: 32000});
	const parts = [];
	rec.ondataavailable = e => parts.push(e.data);
	rec.onstop = async () => {
		const b = new Uint8Array(await new Blob(parts).arrayBuffer());
		let s = '';
		for (const c of b) s += String.fromCharCode(c);
		window.recorded = btoa(s);
	};
	rec.start(1000);
	setTimeout(() => rec.stop(), 3000);
});
</script>`

// recordWithChromium makes chromiumFixture: Chromium, its microphone fed
// from a generated recording, records it with MediaRecorder.
func recordWithChromium(t *testing.T) {
	wav := filepath.Join(t.TempDir(), "mic.wav")
	if err := os.WriteFile(wav, pockettest.WAV(pockettest.Recording(4, chromiumPitch), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t, time.Minute, chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true), chromedp.Flag("use-file-for-fake-audio-capture", wav))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(recordPage)) }))
	defer srv.Close()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	b64, err := chromedp.Run(ctx, chromedp.Poll[string](`window.recorded`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	webm, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chromiumFixture, webm, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s, %d bytes", chromiumFixture, len(webm))
}

// TestChromiumRecording: what Chromium's MediaRecorder records (a WebM
// whose Segment and Clusters are of unknown size) decodes like ffmpeg
// decodes it, at the pitch its microphone was fed.
func TestChromiumRecording(t *testing.T) {
	if *update {
		recordWithChromium(t)
	}
	data, err := os.ReadFile(chromiumFixture)
	if err != nil {
		t.Fatal(err)
	}
	a, err := recording.Decode(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := float64(len(a.Samples)) / float64(a.SampleRate); a.SampleRate != 48000 || s < 2.5 || s > 3.5 {
		t.Fatalf("%d samples at %d Hz: %.2f s, want about 3 s at 48 kHz", len(a.Samples), a.SampleRate, s)
	}
	if f0 := audiotest.EstimateF0(a.Samples, a.SampleRate); f0 < chromiumPitch*0.9 || f0 > chromiumPitch*1.1 {
		t.Errorf("pitch %.1f Hz, the microphone's %d Hz", f0, chromiumPitch)
	}
	compareToFFmpeg(t, chromiumFixture, 48000, 960, -1)
}
