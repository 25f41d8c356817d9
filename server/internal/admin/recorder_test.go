package admin_test

import (
	"bytes"
	"encoding/base64"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/internal/testkit/browsertest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/wire"
)

// The playground's recorder: a voice cloned from a recording made with
// the microphone or from a chosen file, in headless Chromium against a
// server with the generated PocketTTS model.

// recorderPage signs the browser p in to e's playground as local and opens
// the Voices tab, where the recorder is.
func recorderPage(t *testing.T, p *browserPage, e *testserver.Env) {
	t.Helper()
	e.SetPassword("local", testserver.TestPassword)
	p.do(chromedp.Navigate(e.TS.URL+"/"), chromedp.WaitVisible("#signin-form"))
	p.do(chromedp.SendKeys("#signin-password", testserver.TestPassword), chromedp.Click("#signin-form button"), chromedp.WaitVisible("#tabs"))
	p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#clone-form"))
	if visible := eval[bool](p, `!document.getElementById("clone-model-field").hidden`); visible {
		t.Error("the model picker is shown with one cloning model")
	}
	if visible := eval[bool](p, `!document.getElementById("noclone").hidden`); visible {
		t.Error(`"no model clones" is shown beside a cloning model`)
	}
}

// recordingShown waits for the recording to be decoded and drawn, and
// returns its length in seconds and the pixels of its waveform.
func (p *browserPage) recordingShown() (seconds float64, inked int) {
	p.t.Helper()
	p.wait(`document.getElementById("clone-preview").dataset.duration !== undefined`)
	d, err := strconv.ParseFloat(eval[string](p, `document.getElementById("clone-preview").dataset.duration`), 64)
	if err != nil {
		p.t.Fatal(err)
	}
	return d, eval[int](p, `(() => {
		const c = document.getElementById("clone-wave"), d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
		return n;
	})()`)
}

// createVoice names the voice and presses Create voice; it returns the
// message the form shows and whether it is an error.
func (p *browserPage) createVoice(name string) (msg string, failed bool) {
	p.t.Helper()
	p.do(chromedp.SetValue("#clone-name", name), chromedp.Click("#clone-create"))
	p.wait(`(() => { const m = document.getElementById("clone-msg"); return m.classList.contains("ok") || m.classList.contains("err"); })()`)
	return p.text("#clone-msg"), eval[bool](p, `document.getElementById("clone-msg").classList.contains("err")`)
}

// checkClone checks that the page's new voice, named name, is the
// account's clone by the generated model, listed, and speaks aloud over
// the API; then that "Speak with it" speaks it in the Speech tab.
func checkClone(t *testing.T, p *browserPage, e *testserver.Env, name string) {
	t.Helper()
	var l wire.VoiceList
	if st := e.Call("GET", "/v1/voices", e.Key, "", &l); st != 200 || len(l.Data) != 1 || l.Data[0].Name != name || l.Data[0].Model != pockettest.Model {
		t.Fatalf("the account's voices: %d %+v", st, l)
	}
	id := l.Data[0].ID
	p.wait(`document.getElementById("myvoices").textContent.includes(` + strconv.Quote(id) + `)`)
	st, pcm := e.Speak(e.Key, id)
	if st != 200 || len(pcm) < 24000 {
		t.Fatalf("speaking the clone: %d, %d bytes", st, len(pcm))
	}
	if r := testserver.PCMRMS(pcm); r < 0.001 {
		t.Errorf("the clone speaks silence (rms %.5f)", r)
	}
	p.do(chromedp.Click("#clone-speak"), chromedp.WaitVisible("#speech-form"))
	if v := eval[string](p, `document.getElementById("voice").value`); v != id {
		t.Fatalf("the Speech tab's voice is %q, want the new %q", v, id)
	}
	p.setText("Hello from my own voice.", 0)
	if d := p.speak(); d < 0.3 {
		t.Errorf("the Speech tab spoke the clone for %.3f s", d)
	}
}

// startRecording presses Record and waits until the page records.
func (p *browserPage) startRecording() {
	p.t.Helper()
	p.do(chromedp.Click("#clone-record"))
	p.wait(`document.getElementById("clone-record").getAttribute("aria-pressed") === "true" || document.getElementById("clone-msg").classList.contains("err")`)
	if m := p.text("#clone-msg"); m != "" {
		p.t.Fatalf("recording: %s", m)
	}
	if !eval[bool](p, `document.getElementById("clone-file").disabled`) {
		p.t.Error("the file input is enabled while recording")
	}
}

// TestPlaygroundCloneFromFile: a WAV file chosen in the Voices tab is
// drawn, refused with the server's message when it is silence, and
// becomes the account's voice, which speaks.
func TestPlaygroundCloneFromFile(t *testing.T) {
	p := newPage(t)
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	recorderPage(t, p, e)
	dir := t.TempDir()
	silent, voice := filepath.Join(dir, "silent.wav"), filepath.Join(dir, "me.wav")
	if err := os.WriteFile(silent, pockettest.WAV(make([]float32, 2*pockettest.SampleRate), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(voice, pockettest.WAV(pockettest.Recording(3, 180), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}

	p.do(chromedp.SetUploadFiles("#clone-file", []string{silent}))
	if d, _ := p.recordingShown(); math.Abs(d-2) > 0.01 {
		t.Errorf("the silent file lasts %.3f s on the page, want 2", d)
	}
	if msg, failed := p.createVoice("Quiet"); !failed || !strings.Contains(msg, "silent") {
		t.Errorf("a silent recording: %q (error %v), want the server's message", msg, failed)
	}

	p.do(chromedp.SetUploadFiles("#clone-file", []string{voice}))
	d, inked := p.recordingShown()
	if math.Abs(d-3) > 0.01 || inked < 2000 {
		t.Errorf("the recording: %.3f s, %d pixels of waveform", d, inked)
	}
	p.shot("voices-recording")
	if msg, failed := p.createVoice("From a file"); failed || !strings.HasPrefix(msg, "Created From a file") {
		t.Fatalf("creating the voice: %q", msg)
	}
	checkClone(t, p, e, "From a file")

	// Signing out forgets the recording.
	p.do(chromedp.Click("#tab-voices"), chromedp.SetUploadFiles("#clone-file", []string{voice}))
	p.recordingShown()
	p.do(chromedp.Click("#signout"), chromedp.WaitVisible("#signin-form"))
	p.do(chromedp.SendKeys("#signin-password", testserver.TestPassword), chromedp.Click("#signin-form button"), chromedp.WaitVisible("#tabs"))
	p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#clone-form"))
	if kept := eval[bool](p, `!document.getElementById("clone-preview").hidden || !document.getElementById("clone-create").disabled || clone.blob !== null`); kept {
		t.Error("the recording is still there after signing out and in")
	}
}

// TestPlaygroundCloneFromMicrophone: Chromium's microphone plays a WAV
// file; the page records about 3 s of it with MediaRecorder, draws it,
// and uploads the recording as Chromium made it (WebM/Opus), which
// becomes the account's voice.
func TestPlaygroundCloneFromMicrophone(t *testing.T) {
	mic := filepath.Join(t.TempDir(), "mic.wav")
	if err := os.WriteFile(mic, pockettest.WAV(pockettest.Recording(4, 180), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPage(t, browsertest.FakeMicrophone(mic)...)
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	recorderPage(t, p, e)

	// Left alone, the recorder stops at 10 s.
	p.startRecording()
	p.wait(`document.getElementById("clone-record").getAttribute("aria-pressed") === "false"`)
	if d, _ := p.recordingShown(); d < 9.5 || d > 10.5 {
		t.Errorf("a recording left to run lasts %.3f s, want 10", d)
	}
	if s := p.text("#clone-elapsed"); s != "10.0 / 10 s" {
		t.Errorf("a recording left to run shows %q", s)
	}

	// Stopped after about 3 s.
	p.startRecording()
	p.wait(`parseFloat(document.getElementById("clone-elapsed").textContent) >= 3`)
	p.do(chromedp.Click("#clone-record"))
	d, inked := p.recordingShown()
	if d < 2.5 || d > 10 || inked < 2000 {
		t.Errorf("the recording: %.3f s, %d pixels of waveform (%s)", d, inked, p.text("#clone-info"))
	}
	webm, err := base64.StdEncoding.DecodeString(eval[string](p, `clone.blob.arrayBuffer().then((b) => {
		let s = "";
		for (const c of new Uint8Array(b)) s += String.fromCharCode(c);
		return btoa(s);
	})`))
	if err != nil || !bytes.HasPrefix(webm, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Fatalf("the recording is not WebM (%v): % x", err, webm[:min(len(webm), 16)])
	}
	if msg, failed := p.createVoice("From the microphone"); failed || !strings.HasPrefix(msg, "Created From the microphone") {
		t.Fatalf("creating the voice: %q", msg)
	}
	checkClone(t, p, e, "From the microphone")
}

// TestPlaygroundCloneSampling: the Voices tab's sampling fields go with
// the recording. A clone made with temperature 0 says a text the same way
// every time; one made with the defaults (temperature 0.7, no seed) does
// not.
func TestPlaygroundCloneSampling(t *testing.T) {
	p := newPage(t)
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	recorderPage(t, p, e)
	voice := filepath.Join(t.TempDir(), "me.wav")
	if err := os.WriteFile(voice, pockettest.WAV(pockettest.Recording(3, 180), pockettest.SampleRate), 0o644); err != nil {
		t.Fatal(err)
	}
	made := map[string]string{} // name → id
	for _, c := range []struct{ name, temperature, steps string }{{"Lively", "", ""}, {"Steady", "0", "3"}} {
		p.do(chromedp.SetUploadFiles("#clone-file", []string{voice}))
		p.recordingShown()
		p.do(chromedp.SetValue("#clone-temperature", c.temperature), chromedp.SetValue("#clone-steps", c.steps))
		if msg, failed := p.createVoice(c.name); failed {
			t.Fatalf("creating %s: %q", c.name, msg)
		}
		var l wire.VoiceList
		e.Call("GET", "/v1/voices", e.Key, "", &l)
		for _, v := range l.Data {
			made[v.Name] = v.ID
		}
	}
	twice := func(name string) (same bool) {
		_, a := e.Speak(e.Key, made[name])
		_, b := e.Speak(e.Key, made[name])
		if len(a) < 24000 {
			t.Fatalf("%s spoke %d bytes", name, len(a))
		}
		return bytes.Equal(a, b)
	}
	if !twice("Steady") {
		t.Error("the clone made with temperature 0 spoke a text two ways")
	}
	if twice("Lively") {
		t.Error("the clone made with the defaults spoke a text the same way twice: the fields decide nothing")
	}
}
