package jobs_test

import (
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// prose is n sentences of plain text.
func prose(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString([]string{"The keeper counted the lamps by the door. ", "Nobody answered the bell that evening. ", "A cold wind came over the hill. "}[i%3])
	}
	return b.String()
}

// jobSeconds waits for a wav job to succeed and returns its audio's
// length in seconds.
func jobSeconds(t *testing.T, e *testserver.Env, id string) float64 {
	t.Helper()
	end := waitStatus(t, e, id, store.JobSucceeded, store.JobFailed, store.JobCancelled)
	if end.Status != store.JobSucceeded {
		t.Fatalf("job %s: %+v", end.Status, end.Error)
	}
	res, b := fetch(t, e, e.Key, "/v1/audio/jobs/"+id+"/audio")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("audio: %d", res.StatusCode)
	}
	n, rate := wavSamples(t, b)
	return float64(n) / float64(rate)
}

// A style opened before a cut between segments goes on after it, as in
// one input: the chapter's audio is as long as the chapter spoken in one
// request, and its closing tag, in a later segment, closes it there (a
// strict job failed: "closing tag without an open tag", and the text
// after the first segment was spoken at the request's rate). The
// instructions' styles, which every segment opens, end where the text
// closes them.
func TestJobStylesAcrossSegments(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxSegment: 200})
	for _, c := range []struct{ name, instructions, text string }{
		{"tag", "", "<|rate:2|>" + prose(18) + "<|/rate|>" + prose(3)},
		{"instructions", "Speak slowly.", prose(12) + "<|/slow|>" + prose(9)},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := submit(t, e, e.Key, map[string]any{"voice": "fake", "response_format": "wav", "strict_tags": true,
				"instructions": c.instructions, "input": c.text})
			if j.Progress.SegmentsTotal < 4 {
				t.Fatalf("%d segments: want the styles to cross several cuts", j.Progress.SegmentsTotal)
			}
			got := jobSeconds(t, e, j.ID)
			res, err := e.Synth.WriteClip(t.Context(), io.Discard, tts.Request{Account: "local", Voice: "fake", Input: c.text,
				Instructions: c.instructions, StrictTags: true, Format: encode.Format{Name: "pcm"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := res.Audio.Seconds(); math.Abs(got-want) > 0.02*want {
				t.Errorf("the job's audio is %.2f s; the text spoken as one input %.2f s", got, want)
			}
		})
	}
}

// Slow speech is cut into shorter segments, so that each makes no more
// audio than at normal speed and stays within a request's limit
// (-max-audio): a job at speed 0.25 failed with "input makes too much
// audio" as soon as a segment's text would speak past it. Segments are
// shorter too where -max-audio is lower than its default (a job failed
// as soon as its segment made more).
func TestJobSlowSpeech(t *testing.T) {
	t.Parallel()
	maxAudio := func(o *tts.Options) { o.MaxAudio = 40 * time.Second }
	e := testserver.New(t, testserver.Options{Synth: maxAudio, Jobs: server.JobOptions{Enabled: true, MaxSegment: 300, Poll: 50 * time.Millisecond}})
	low := testserver.New(t, testserver.Options{Synth: maxAudio, Jobs: server.JobOptions{Enabled: true, Poll: 50 * time.Millisecond}})
	text := prose(9)
	for _, c := range []struct {
		name  string
		e     *testserver.Env
		speed float64
		text  string
		least float64 // seconds of audio the text makes
	}{
		{"speed", e, 0.25, text, 60},
		{"tag", e, 1, "<|rate:0.25|>" + text, 60},
		{"max-audio", low, 1, prose(24), 45}, // past one request's 40 s
	} {
		t.Run(c.name, func(t *testing.T) {
			j := submit(t, c.e, c.e.Key, map[string]any{"voice": "fake", "response_format": "wav", "speed": c.speed, "input": c.text})
			if got := jobSeconds(t, c.e, j.ID); got < c.least {
				t.Errorf("%.1f s of audio: the text makes more", got)
			}
		})
	}
}

// A job that ended without results holds no audio: a cancelled one and
// a failed one drop their segments' audio (they kept it, counted against
// -job-storage, until deleted: an account that cancelled its jobs got
// 429 job_limit_reached for the next).
func TestJobEndedHoldsNoAudio(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) { o.MaxAudio = 40 * time.Second },
		Jobs: server.JobOptions{Enabled: true, MaxSegment: 300, Workers: 1, Poll: 50 * time.Millisecond}})
	held := func() int64 {
		n, err := e.Store.JobBytes(t.Context(), "local")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Cancelled once a segment of the slow voice is done.
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "response_format": "wav", "input": prose(60)})
	if !wait.For(jobTimeout, func() bool { return getJob(t, e, e.Key, j.ID).Progress.SegmentsDone > 0 }) {
		t.Fatal("no segment done")
	}
	var cancelled jobs.Job
	if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.Key, "", &cancelled); code != http.StatusOK || cancelled.Status != store.JobCancelled {
		t.Fatalf("cancel: %d %s", code, cancelled.Status)
	}
	if n := held(); n != 0 {
		t.Errorf("a cancelled job holds %d bytes", n)
	}
	// Failed at its second segment (50 s of pauses, past the 40 s a
	// request may make), once its first is done.
	j = submit(t, e, e.Key, map[string]any{"voice": "fake", "response_format": "wav", "input": prose(6) + "\n\n" + strings.Repeat("<|pause:5s|> ", 10) + "Done."})
	if end := waitStatus(t, e, j.ID, store.JobSucceeded, store.JobFailed); end.Status != store.JobFailed || end.Progress.SegmentsDone != 1 {
		t.Fatalf("job %s with %d segments done, want failed after one", end.Status, end.Progress.SegmentsDone)
	}
	// The job shows failed before its audio is dropped.
	if !wait.For(10*time.Second, func() bool { return held() == 0 }) {
		t.Errorf("a failed job holds %d bytes", held())
	}
}

// A job cancelled while it is finishing stops encoding and keeps none of
// the files it wrote (they stayed, counted against -job-storage, beside
// the job "cancelled"). A run whose finishing ends before the cancel
// (the job is then deleted) is tried again.
func TestJobCancelledWhileFinishing(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxSegment: 2000})
	for try := 0; ; try++ {
		if try == 5 {
			t.Skip("no cancel landed while the job was finishing")
		}
		j := submit(t, e, e.Key, map[string]any{"voice": "fake", "response_format": "wav", "chapters": []map[string]string{
			{"title": "One", "input": prose(50)}, {"title": "Two", "input": prose(50)}}})
		if !wait.For(jobTimeout, func() bool { // a part of a file is written
			var n int
			e.Store.QueueDB().QueryRowContext(t.Context(), "SELECT count(*) FROM job_file_parts WHERE job = ?", j.ID).Scan(&n)
			s, err := e.Store.Job(t.Context(), "", j.ID)
			return n > 0 || err == nil && store.JobFinished(s.Status)
		}) {
			t.Fatal("no file written")
		}
		var got jobs.Job
		if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.Key, "", &got); code != http.StatusOK {
			t.Fatalf("delete: %d", code)
		}
		if got.Status != store.JobCancelled {
			continue // it had finished
		}
		var bytes, parts int64
		if !wait.For(10*time.Second, func() bool {
			bytes, _ = e.Store.JobBytes(t.Context(), "local")
			e.Store.QueueDB().QueryRowContext(t.Context(), "SELECT count(*) FROM job_file_parts WHERE job = ?", j.ID).Scan(&parts)
			return bytes == 0 && parts == 0
		}) {
			t.Errorf("the cancelled job holds %d bytes and %d parts of files", bytes, parts)
		}
		return
	}
}

// A text at the character limit is taken in JSON whose encoder escapes
// every character that is not ASCII (\u00e9: six bytes, as Python's
// json.dumps writes by default): the body was refused (413) past four
// bytes a character.
func TestJobEscapedJSONAtTheLimit(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxInput: 100_000})
	body := `{"voice":"fake","response_format":"wav","input":"` + strings.Repeat(`\u00e9\u00e9\u00e9\u00e9\u00e9 `, 16_666) + `"}`
	var j jobs.Job
	if code := e.Call("POST", "/v1/audio/jobs", e.Key, body, &j); code != http.StatusAccepted || j.Progress.CharactersTotal < 99_000 {
		t.Fatalf("%d bytes of JSON: %d %+v", len(body), code, j.Progress)
	}
	if code := e.Call("DELETE", "/v1/audio/jobs/"+j.ID, e.Key, "", nil); code != http.StatusOK {
		t.Fatalf("cancel: %d", code)
	}
}
