package admin_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestPlaygroundJobs: signed in with the session cookie, the Long-form
// tab submits a pasted Markdown text of two chapters as a job; its
// progress bar, fed by the job's events, reaches 100 %; the chapters
// appear with players whose audio loads (a duration above 0) and with
// downloads; the job is listed. A file the server refuses shows the
// server's message; a long job is cancelled, and a finished one deleted.
func TestPlaygroundJobs(t *testing.T) {
	p := newPage(t)
	e := testserver.New(t, testserver.Options{Jobs: server.JobOptions{Enabled: true, MaxSegment: 200, Poll: 50 * time.Millisecond}})
	p.signIn(e, "/")
	p.do(chromedp.Click("#tab-jobs", chromedp.NodeVisible), chromedp.WaitVisible("#job-form"))
	p.wait(`document.querySelectorAll("#job-voice option").length > 0 && document.getElementById("joblist").textContent.includes("None yet")`)

	text := "# The Start\n\nIt was the first day of spring. The river ran high and fast.\n\n" +
		"# The End\n\n\"Is that all?\" asked Mira. It was, and they went home.\n"
	q, _ := json.Marshal(text)
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("job-text").value = `+string(q)),
		chromedp.SetValue("#job-voice", "en-us"), chromedp.SetValue("#job-format", "mp3"))
	// Record every value the progress bar shows.
	p.do(chromedp.Evaluate[chromedp.Void](`window.shown = []; new MutationObserver(() => shown.push(parseFloat(document.getElementById("job-progress").getAttribute("aria-valuenow"))))
		.observe(document.getElementById("job-progress"), {attributes: true, attributeFilter: ["aria-valuenow"]})`))
	p.do(chromedp.Click("#job-submit"))
	p.wait(`document.getElementById("job-view").dataset.status === "succeeded" || document.getElementById("job-msg").classList.contains("err")`)
	if m := p.text("#job-msg"); !strings.HasPrefix(m, "Started job_") || !strings.HasSuffix(m, "2 chapters.") {
		t.Fatalf("submitting: %q", m)
	}
	id := eval[string](p, `document.getElementById("job-view").dataset.job`)
	shown := eval[[]float64](p, `shown`)
	if len(shown) == 0 || shown[len(shown)-1] != 100 {
		t.Errorf("the progress bar showed %v, not ending at 100", shown)
	}
	for i := 1; i < len(shown); i++ {
		if shown[i] < shown[i-1] {
			t.Errorf("the progress bar went back: %v", shown)
		}
	}
	if w := eval[string](p, `document.getElementById("job-bar").style.width`); w != "100%" {
		t.Errorf("the bar's width: %q", w)
	}
	titles := eval[[]string](p, `[...document.querySelectorAll("#job-chapters .title")].map((e) => e.textContent)`)
	if strings.Join(titles, "|") != "1. The Start|2. The End" {
		t.Errorf("chapters: %q", titles)
	}
	// Each chapter's player loads its audio (mp3 by the session cookie,
	// under the page's Content-Security-Policy).
	p.wait(`[...document.querySelectorAll("#job-chapters audio")].every((a) => a.error || a.duration > 0)`)
	durations := eval[[]float64](p, `[...document.querySelectorAll("#job-chapters audio")].map((a) => a.error ? -a.error.code : a.duration)`)
	if len(durations) != 2 || durations[0] < 1 || durations[1] < 1 {
		t.Errorf("the chapters' players: durations %v (a negative value is a MediaError's code)", durations)
	}
	links := eval[[]string](p, `[...document.querySelectorAll("#job-downloads a, #job-chapters a")].map((a) => a.getAttribute("href"))`)
	for _, want := range []string{"/" + id + "/audio", "/" + id + "/captions.srt", "/" + id + "/chapters/2/audio"} {
		if !strings.Contains(strings.Join(links, " "), want) {
			t.Errorf("downloads %q: none ends in %s", links, want)
		}
	}
	// A download link answers the page's cookie with the file.
	cookie := p.cookie(e.TS.URL)
	if code, body := sendAs(t, e, "GET", "/v1/audio/jobs/"+id+"/captions.srt", "", cookie, "", ""); code != http.StatusOK {
		t.Errorf("captions with the cookie: %d %s", code, body)
	}
	p.wait(`document.querySelector('#joblist tr[data-job="` + id + `"][data-status="succeeded"]') !== null`)
	p.shot("jobs")

	// A file no book is: the server's message.
	pdf := filepath.Join(t.TempDir(), "book.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF-1.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.SetUploadFiles("#job-file", []string{pdf}), chromedp.Click("#job-submit"))
	p.wait(`document.getElementById("job-msg").classList.contains("err")`)
	if m := p.text("#job-msg"); !strings.Contains(m, `Unsupported file "book.pdf"`) {
		t.Errorf("a PDF: %q", m)
	}

	// A long job, cancelled from its card.
	long, _ := json.Marshal(strings.Repeat("A sentence of a long text, to be cancelled. ", 1000))
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("job-file").value = ""; document.getElementById("job-text").value = `+string(long)),
		chromedp.Click("#job-submit"))
	p.wait(`document.getElementById("job-view").dataset.job !== "` + id + `" && document.getElementById("job-end").textContent === "Cancel"`)
	longID := eval[string](p, `document.getElementById("job-view").dataset.job`)
	p.do(chromedp.Click("#job-end"))
	p.wait(`document.getElementById("job-view").dataset.status === "cancelled"`)
	var j struct{ Status string }
	if code := e.Call("GET", "/v1/audio/jobs/"+longID, e.Key, "", &j); code != http.StatusOK || j.Status != "cancelled" {
		t.Errorf("the cancelled job: %d %+v", code, j)
	}

	// The finished job, deleted from the list.
	p.do(chromedp.Click(`#joblist tr[data-job="` + id + `"] button.delete`))
	p.wait(`document.querySelector('#joblist tr[data-job="` + id + `"]') === null`)
	if code := e.Call("GET", "/v1/audio/jobs/"+id, e.Key, "", nil); code != http.StatusNotFound {
		t.Errorf("the deleted job: %d", code)
	}
	if blocked := eval[[]string](p, `blocked`); len(blocked) > 0 {
		t.Errorf("the CSP blocked %q", blocked)
	}
}

// TestPlaygroundWithoutJobs: a server that serves no jobs (-no-jobs)
// shows no Long-form tab.
func TestPlaygroundWithoutJobs(t *testing.T) {
	p := newPage(t)
	e := testserver.New(t, testserver.Options{})
	p.signIn(e, "/#jobs")
	p.wait(`document.getElementById("tab-jobs").hidden && !document.getElementById("speech").hidden && document.getElementById("jobs").hidden`)
}

// signIn opens the playground at path (under e's root) and signs in as
// the account local.
func (p *browserPage) signIn(e *testserver.Env, path string) {
	p.t.Helper()
	e.SetPassword("local", testserver.TestPassword)
	p.do(chromedp.Navigate(e.TS.URL+path), chromedp.WaitVisible("#signin-form"))
	p.do(chromedp.SendKeys("#signin-password", testserver.TestPassword), chromedp.Click("#signin-form button"), chromedp.WaitVisible("#tabs"))
}
