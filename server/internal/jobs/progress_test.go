package jobs_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// checkRising fails unless every count of the events' progress rises or
// stays, and the last event is done with everything counted: 100 %, all
// characters, sentences and segments.
func checkRising(t *testing.T, evs []event) jobs.Progress {
	t.Helper()
	var last jobs.Progress
	for i, ev := range evs {
		p := ev.job.Progress
		if p.Percent < last.Percent || p.CharactersDone < last.CharactersDone || p.SentencesDone < last.SentencesDone ||
			p.SegmentsDone < last.SegmentsDone || p.AudioSeconds < last.AudioSeconds {
			t.Errorf("event %d: progress went back: %+v after %+v", i, p, last)
		}
		if p.SentencesDone > p.SentencesTotal || p.CharactersDone > p.CharactersTotal || p.Percent > 100 {
			t.Errorf("event %d: past the totals: %+v", i, p)
		}
		last = p
	}
	end := evs[len(evs)-1]
	if end.name != "done" || end.job.Status != store.JobSucceeded || last.Percent != 100 || last.SentencesTotal == 0 ||
		last.SentencesDone != last.SentencesTotal || last.CharactersDone != last.CharactersTotal || last.SegmentsDone != last.SegmentsTotal {
		t.Fatalf("last event %s: %s %+v", end.name, end.job.Status, last)
	}
	return last
}

// A job's progress counts sentences: their total, known at submission,
// is what the speech says of each segment's text (split as the
// synthesizer splits it, in the voice's language), and the events rise
// to it, with the characters, segments and audio, to 100 %. Under -short
// the chapters are a quarter as long (a segment each).
func TestJobProgressSentences(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{})
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "wav", "chapters": book(3, shortBook(700, 175))})
	want := 0
	for _, s := range segments(t, e, j.ID) {
		res, err := e.Synth.WriteClip(t.Context(), io.Discard, tts.Request{Voice: "en-us", Input: s.Text, Format: encode.Format{Name: "pcm"}})
		if err != nil {
			t.Fatal(err)
		}
		want += res.Sentences
	}
	if j.Progress.SentencesTotal != want || j.Progress.SentencesDone != 0 {
		t.Fatalf("submitted: %d of %d sentences; the speech says %d", j.Progress.SentencesDone, j.Progress.SentencesTotal, want)
	}
	checkRising(t, follow(t, e, j.ID))
}

// Progress moves within a segment, sentence by sentence, not only as
// segments finish: a one-segment job of a slow voice shows sentences
// (and characters) done before its segment is. Under -short the segment
// is 15 sentences, not 40 (still a dozen polls of its progress).
func TestJobProgressWithinSegment(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{MaxSegment: 4000})
	n := shortBook(40, 15)
	text := strings.Repeat("The slow voice says this. ", n)
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "response_format": "wav", "input": text})
	if j.Progress.SegmentsTotal != 1 || j.Progress.SentencesTotal != n {
		t.Fatalf("submitted: %+v", j.Progress)
	}
	evs := follow(t, e, j.ID)
	checkRising(t, evs)
	within := 0
	for _, ev := range evs {
		if p := ev.job.Progress; p.SegmentsDone == 0 && p.SentencesDone > 0 && p.CharactersDone > 0 && p.Percent > 0 && p.Percent < 100 {
			within++
		}
	}
	if within < 2 {
		t.Errorf("%d events show sentences done within the segment: want several", within)
	}
}

// An account whose jobs pass -job-storage while they render has the job
// failed, in the OpenAI error shape (code storage_exceeded), and its
// audio removed; the account may submit again.
func TestJobStorageWhileRendering(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{Storage: 100_000})
	j := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "wav", "chapters": book(2, 700)})
	evs := follow(t, e, j.ID)
	end := evs[len(evs)-1]
	if end.name != "error" || end.job.Status != store.JobFailed || end.job.Error == nil {
		t.Fatalf("last event %s: %s %+v", end.name, end.job.Status, end.job.Error)
	}
	got := getJob(t, e, e.Key, j.ID)
	werr := got.Error
	if got.Status != store.JobFailed || werr == nil || werr.Code == nil || *werr.Code != runner.CodeStorageExceeded || werr.Type != "rate_limit_error" ||
		werr.Param != nil || !strings.Contains(werr.Message, "-job-storage") || got.Progress.SegmentsDone >= got.Progress.SegmentsTotal {
		t.Fatalf("failed job: %s %+v %+v", got.Status, werr, got.Progress)
	}
	stored, err := e.Store.Job(t.Context(), "", j.ID)
	if err != nil || stored.Bytes != 0 {
		t.Errorf("the failed job holds %d bytes (%v)", stored.Bytes, err)
	}
	segs, err := e.Store.JobSegments(t.Context(), j.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		if len(s.PCM) > 0 || len(s.Words) > 0 {
			t.Errorf("segment %d keeps %d bytes of audio", s.Seq, len(s.PCM))
		}
	}
	res := e.Do("GET", "/v1/audio/jobs/"+j.ID+"/audio", e.Key, "", nil)
	testserver.APIError(t, res, http.StatusConflict, jobs.CodeNotReady)
	small := submit(t, e, e.Key, map[string]any{"voice": "en-us", "response_format": "mp3", "input": "A short one."})
	waitStatus(t, e, small.ID, store.JobSucceeded)
}

// TestJobStorageAtFinish: a job whose segments fit the account's storage
// but whose results do not (a wav book and its chapters hold the audio
// twice) fails with storage_exceeded at its finish and keeps nothing,
// rather than succeed past the limit.
func TestJobStorageAtFinish(t *testing.T) {
	t.Parallel()
	body := map[string]any{"voice": "en-us", "response_format": "wav", "chapters": book(2, 200)}
	free := jobEnv(t, "", server.JobOptions{})
	j := submit(t, free, free.Key, body)
	waitStatus(t, free, j.ID, store.JobSucceeded)
	waitFor(t, func() bool { // the segments' audio dropped after the success
		segs, err := free.Store.JobSegments(t.Context(), j.ID, true)
		return err == nil && len(segs) > 0 && len(segs[0].PCM) == 0
	})
	whole, err := free.Store.Job(t.Context(), "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	limit := whole.Bytes * 3 / 4 // above the segments' audio (about half), below the results
	e := jobEnv(t, "", server.JobOptions{Storage: limit})
	j = submit(t, e, e.Key, body)
	end := waitStatus(t, e, j.ID, store.JobSucceeded, store.JobFailed)
	if end.Status != store.JobFailed || end.Error == nil || end.Error.Code == nil || *end.Error.Code != runner.CodeStorageExceeded ||
		end.Progress.SegmentsDone != end.Progress.SegmentsTotal {
		t.Fatalf("with %d bytes of storage for %d of results: %s %+v %+v", limit, whole.Bytes, end.Status, end.Error, end.Progress)
	}
	if stored, err := e.Store.Job(t.Context(), "", j.ID); err != nil || stored.Bytes != 0 {
		t.Errorf("the failed job holds %d bytes (%v)", stored.Bytes, err)
	}
	if n, err := e.Store.JobBytes(t.Context(), "local"); err != nil || n != 0 {
		t.Errorf("the account's jobs hold %d bytes (%v)", n, err)
	}
}
