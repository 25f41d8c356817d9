package jobs_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// A three-chapter job, followed by its events to the end: progress rises
// to 100 %, the whole audio is as long as its chapters, and as long as the
// same text spoken by POST /v1/audio/speech within 1 %; captions and word
// timings come with it.
func TestJobBook(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{})
	chapters := book(3, shortBook(700, 350))
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "wav", "chapters": chapters, "captions": []string{"srt", "vtt"}})
	// A worker may have taken it before the answer was read back.
	if j.Status != store.JobQueued && j.Status != store.JobRunning || len(j.Chapters) != 3 || j.Chapters[1].Title != "Chapter 2" || j.Progress.SegmentsTotal < 6 {
		t.Fatalf("submitted: %+v", j)
	}
	evs := follow(t, e, j.ID)
	last := -1.0
	for _, ev := range evs {
		if ev.job.Progress.Percent < last {
			t.Errorf("progress went back: %.1f after %.1f", ev.job.Progress.Percent, last)
		}
		last = ev.job.Progress.Percent
	}
	if end := evs[len(evs)-1]; end.name != "done" || end.job.Status != store.JobSucceeded || last != 100 {
		t.Fatalf("last event %s %+v", end.name, end.job)
	}
	if len(evs) < 3 {
		t.Errorf("%d events: want progress between", len(evs))
	}

	res, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "audio/wav" ||
		!strings.Contains(res.Header.Get("Content-Disposition"), j.ID+"-audio.wav") {
		t.Fatalf("audio: %d %v", res.StatusCode, res.Header)
	}
	total, rate := wavSamples(t, whole)
	sum := 0
	for n := 1; n <= 3; n++ {
		_, b := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/chapters/"+string(rune('0'+n))+"/audio")
		s, _ := wavSamples(t, b)
		sum += s
		_, speech, _ := testserver.SpeechOf(t, e, e.Key, mustJSON(map[string]any{"voice": "en-us", "response_format": "wav", "input": chapters[n-1]["input"]}))
		want, _ := wavSamples(t, speech)
		if math.Abs(float64(s-want)) > 0.01*float64(want) {
			t.Errorf("chapter %d: %d samples, the same text as speech %d (more than 1 %% apart)", n, s, want)
		}
	}
	if seams := 2; math.Abs(float64(total-sum)) > float64(seams*rate/100) {
		t.Errorf("whole %d samples, chapters %d", total, sum)
	}
	got := getJob(t, e, e.Key, j.ID)
	if got.Progress.AudioSeconds < float64(total)/float64(rate)-0.1 || got.Results == nil || got.Chapters[2].Audio == "" {
		t.Errorf("finished job: %+v", got)
	}

	res, part := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio", "Range", "bytes=100-199")
	if res.StatusCode != http.StatusPartialContent || string(part) != string(whole[100:200]) {
		t.Errorf("range: %d, %d bytes", res.StatusCode, len(part))
	}
	// A range past the end is a 416 in OpenAI's error shape, as every
	// error is (http.ServeContent wrote "invalid range: failed to
	// overlap" as plain text).
	res, body := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio", "Range", fmt.Sprintf("bytes=%d-", len(whole)+10))
	var fe fault.Error
	if res.StatusCode != http.StatusRequestedRangeNotSatisfiable || res.Header.Get("Content-Type") != "application/json" ||
		json.Unmarshal(body, &fe) != nil || fe.Code != fault.CodeInvalidValue || res.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", len(whole)) {
		t.Errorf("range past the end: %d %v %s", res.StatusCode, res.Header, body)
	}
	_, stamps := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/timestamps.json")
	var ts runner.Timestamps
	if err := json.Unmarshal(stamps, &ts); err != nil || len(ts.Words) < 100 || len(ts.Chapters) != 3 {
		t.Fatalf("timestamps: %v, %d words, %d chapters", err, len(ts.Words), len(ts.Chapters))
	}
	for i := 1; i < len(ts.Words); i++ {
		if ts.Words[i].Start < ts.Words[i-1].Start {
			t.Fatalf("word %d starts at %.3f, before word %d (%.3f)", i, ts.Words[i].Start, i-1, ts.Words[i-1].Start)
		}
	}
	if lw := ts.Words[len(ts.Words)-1]; lw.End > float64(total)/float64(rate)+0.05 || ts.Chapters[2].End < lw.End {
		t.Errorf("last word ends at %.3f, audio %.3f, chapter 3 %.3f", lw.End, float64(total)/float64(rate), ts.Chapters[2].End)
	}
	_, srt := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/captions.srt")
	_, vtt := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/captions.vtt")
	if !strings.HasPrefix(string(srt), "1\n00:00:0") || !strings.HasPrefix(string(vtt), "WEBVTT\n\n00:00:0") {
		t.Errorf("captions:\n%.80s\n%.80s", srt, vtt)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A job is its account's: another account's key finds nothing, reads
// nothing and cancels nothing.
func TestJobOtherAccount(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{})
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "input": "A short text."})
	for _, p := range []string{"", "/events", "/audio", "/chapters/1/audio", "/captions.srt", "/timestamps.json"} {
		res, body := fetch(t, e, e.OtherKey, "/v1/audio/jobs/"+j.ID+p)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"code":"not_found"`) {
			t.Errorf("GET %s by another account: %d %s", p, res.StatusCode, body)
		}
	}
	if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.OtherKey, "", nil); code != http.StatusNotFound {
		t.Errorf("DELETE by another account: %d", code)
	}
	var l jobs.List
	if e.Call("GET", "/v1/audio/jobs", e.OtherKey, "", &l); len(l.Data) != 0 {
		t.Errorf("another account lists %d jobs", len(l.Data))
	}
	if e.Call("GET", "/v1/audio/jobs", e.Key, "", &l); len(l.Data) != 1 || l.Data[0].ID != j.ID {
		t.Errorf("the account lists %+v", l)
	}
	waitStatus(t, e, j.ID, store.JobSucceeded)
}

// Requests a job refuses: clear 4xx errors in the OpenAI shape.
func TestJobRefused(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxInput: 1000, MaxActive: 1})
	long := strings.Repeat("Words and words. ", 100)
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"voice":"en-us","input":"` + long + `"}`, 400, "string_above_max_length"},
		{`{"voice":"en-us"}`, 400, "missing_required_parameter"},
		{`{"voice":"en-us","input":"a","chapters":[]}`, 400, "invalid_value"},
		{`{"voice":"en-us","chapters":[{"title":"x","input":" "}]}`, 400, "string_below_min_length"},
		{`{"voice":"nobody","input":"Hello."}`, 404, "voice_not_found"},
		{`{"voice":"other-clone","input":"Hello."}`, 404, "voice_not_found"},
		{`{"voice":"en-us","input":"Hello.","response_format":"xyz"}`, 400, "unsupported_format"},
		{`{"voice":"en-us","input":"Hello.","speed":9}`, 400, "decimal_above_max_value"},
		{`{"voice":"en-us","input":"Hello.","captions":"ass"}`, 400, "invalid_value"},
		{`{"voice":"en-us","input":"Hello.","stream_format":"sse"}`, 400, "invalid_value"},
		{`[1]`, 400, "invalid_json"},
	} {
		res := e.Do("POST", "/v1/audio/jobs", e.Key, "application/json", strings.NewReader(c.body))
		werr := testserver.APIError(t, res, c.status, c.code)
		if werr.Message == "" {
			t.Errorf("%.60s: no message", c.body)
		}
	}
	// A voice the account may not use is refused as POST /v1/audio/speech
	// refuses it (the job named the field "id": "You have no voice clone").
	for _, v := range []string{"nobody", "other-clone"} {
		body := `{"voice":"` + v + `","input":"Hello."}`
		got := testserver.APIError(t, e.Do("POST", "/v1/audio/jobs", e.Key, "application/json", strings.NewReader(body)), 404, "voice_not_found")
		want := testserver.APIError(t, e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body)), 404, "voice_not_found")
		if got.Type != want.Type || got.Param != want.Param || !strings.HasPrefix(want.Message, strings.SplitAfter(got.Message, ".")[0]) {
			t.Errorf("voice %s: the job's error %+v, the speech's %+v", v, got, want)
		}
	}
	// One job queued or running at most: a second is refused until it ends.
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "input": strings.Repeat("One more sentence here. ", 30)})
	res := e.Do("POST", "/v1/audio/jobs", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Hello."}`))
	testserver.APIError(t, res, http.StatusTooManyRequests, jobs.CodeJobLimit)
	res = e.Do("GET", "/v1/audio/jobs/"+j.ID+"/audio", e.Key, "", nil)
	testserver.APIError(t, res, http.StatusConflict, jobs.CodeNotReady)
	res = e.Do("GET", "/v1/audio/jobs/job_nope", e.Key, "", nil)
	testserver.APIError(t, res, http.StatusNotFound, "not_found")
}

// DELETE cancels a running job at once: no segment finishes after it,
// and the job answers cancelled; a second DELETE deletes it.
func TestJobCancel(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxSegment: 120})
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "input": strings.Repeat("The slow voice says this. ", 200)})
	waitFor(t, func() bool { return getJob(t, e, e.Key, j.ID).Progress.SegmentsDone >= 1 })
	events := make(chan []event, 1)
	go func() { events <- follow(t, e, j.ID) }()
	var c jobs.Job
	if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.Key, "", &c); code != http.StatusOK || c.Status != store.JobCancelled {
		t.Fatalf("cancel: %d %+v", code, c)
	}
	done := c.Progress.SegmentsDone
	renders := rendered(segments(t, e, j.ID))
	time.Sleep(time.Second)
	if after := getJob(t, e, e.Key, j.ID); after.Progress.SegmentsDone > done+1 || after.Status != store.JobCancelled {
		t.Errorf("a second after the cancel: %d segments done (%d at the cancel), %s", after.Progress.SegmentsDone, done, after.Status)
	}
	if r := rendered(segments(t, e, j.ID)); r != renders {
		t.Errorf("%d renderings began after the cancel (%d before)", r-renders, renders)
	}
	select {
	case evs := <-events:
		if end := evs[len(evs)-1]; end.name != "error" || end.job.Status != store.JobCancelled {
			t.Errorf("the events ended with %s %s", end.name, end.job.Status)
		}
	case <-time.After(10 * time.Second):
		t.Error("the events go on after the cancel")
	}
	var d jobs.Deleted
	if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.Key, "", &d); code != http.StatusOK || !d.Deleted {
		t.Errorf("delete: %d %+v", code, d)
	}
	res := e.Do("GET", "/v1/audio/jobs/"+j.ID, e.Key, "", nil)
	testserver.APIError(t, res, http.StatusNotFound, "not_found")
}

func rendered(segs []store.JobSegment) int {
	n := 0
	for _, s := range segs {
		n += s.Renders
	}
	return n
}

func waitFor(t *testing.T, f func() bool) {
	t.Helper()
	if !wait.For(jobTimeout, f) {
		t.Fatal("timed out")
	}
}

// A server stopped mid-job leaves its finished segments done: the next
// server on the store finishes the job without rendering them again.
// Under -short the job is 10 segments, not 15; two workers whatever the
// machine's cores, so that segments are left to resume.
func TestJobResume(t *testing.T) {
	t.Parallel()
	log := new(testserver.SyncBuffer)
	e := testserver.New(t, testserver.Options{Log: log, Jobs: server.JobOptions{Enabled: true, MaxSegment: 120, Poll: 50 * time.Millisecond, Workers: 2}})
	t.Cleanup(func() {
		if t.Failed() {
			log.Mu.Lock()
			t.Logf("log:\n%s", log.B.String())
			log.Mu.Unlock()
		}
	})
	text := strings.Repeat("The slow voice says this. ", shortBook(60, 40))
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "response_format": "wav", "input": text})
	waitFor(t, func() bool { return getJob(t, e, e.Key, j.ID).Progress.SegmentsDone >= 2 })
	if err := e.Server.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := segments(t, e, j.ID)
	var done []int
	for _, s := range before {
		if s.Done {
			done = append(done, s.Seq)
		}
	}
	if len(done) == len(before) {
		t.Fatalf("all %d segments done before the stop: make the job longer", len(before))
	}
	e2 := testserver.New(t, testserver.Options{DBPath: e.DBPath, Log: log, Jobs: server.JobOptions{Enabled: true, MaxSegment: 120, Poll: 50 * time.Millisecond, Workers: 2}})
	t.Cleanup(func() {
		if t.Failed() {
			dumpQueue(t, e2)
		}
	})
	waitStatus(t, e2, j.ID, store.JobSucceeded)
	after := segments(t, e2, j.ID)
	for _, seq := range done {
		if after[seq].Renders != 1 {
			t.Errorf("segment %d, done before the stop, rendered %d times", seq, after[seq].Renders)
		}
	}
	_, whole := fetch(t, e2, e2.Key, "/v1/audio/jobs/"+j.ID+"/audio")
	n, _ := wavSamples(t, whole)
	_, speech, _ := testserver.SpeechOf(t, e2, e2.Key, mustJSON(map[string]any{"voice": "slow", "response_format": "wav", "input": text[:len(text)/2]}))
	if half, _ := wavSamples(t, speech); n < 2*half*95/100 {
		t.Errorf("resumed job: %d samples; half its text alone is %d", n, half)
	}
}
