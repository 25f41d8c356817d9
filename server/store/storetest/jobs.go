package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// testJobs holds a store.Jobs to what the jobs' runner relies on: a job
// and its segments made together within the account's limits, a segment
// kept once however often it is finished, progress, statuses, files in
// parts, listing in pages, deletion and expiry; jobs are each account's.
func testJobs(t *testing.T, s Suite) {
	st := s.Open(t)
	js, ok := st.(store.Jobs)
	if !ok {
		t.Skip("the store keeps no jobs")
	}
	ctx := context.Background()
	for _, a := range []string{"acme", "other"} {
		if _, err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Now().Truncate(time.Second)
	newJob := func(id, account string, at time.Time, segs ...string) error {
		var ss []store.JobSegment
		chars := 0
		for i, text := range segs {
			ss = append(ss, store.JobSegment{Seq: i, Chapter: i / 2, Text: text, Sentences: 2})
			chars += len(text)
		}
		return js.CreateJob(ctx, store.Job{ID: id, Account: account, Spec: []byte(`{}`), Chars: chars, Created: at}, ss, store.JobLimits{Active: 2})
	}
	for i, id := range []string{"j1", "j2"} {
		if err := newJob(id, "acme", base.Add(time.Duration(i)*time.Second), "one", "two", "three"); err != nil {
			t.Fatal(err)
		}
	}
	if err := newJob("j3", "acme", base, "x"); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a third active job: %v, want ErrLimit", err)
	}
	if err := newJob("j3", "nobody", base, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a job of no account: %v, want ErrNotFound", err)
	}
	if _, err := js.Job(ctx, "other", "j1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's job: %v, want ErrNotFound", err)
	}
	if n, err := js.PendingSegments(ctx); err != nil || n != 6 {
		t.Fatalf("pending: %d, %v", n, err)
	}

	sg, err := js.StartSegment(ctx, "j1", 1)
	if err != nil || sg.Done || sg.Text != "two" || sg.Renders != 1 {
		t.Fatalf("start: %+v, %v", sg, err)
	}
	// A segment rendering counts its sentences and characters as they
	// go: the counts only rise, and stop at the segment's own.
	for _, p := range []struct{ sentences, chars, wantS, wantC int }{{1, 2, 1, 2}, {0, 1, 1, 2}, {5, 9, 2, 3}} {
		if err := js.SegmentProgress(ctx, "j1", 1, p.sentences, p.chars); err != nil {
			t.Fatal(err)
		}
		if j, err := js.Job(ctx, "acme", "j1"); err != nil || j.Sentences != 6 || j.SentencesDone != p.wantS || j.CharsDone != p.wantC || j.SegmentsDone != 0 {
			t.Fatalf("progress %d, %d: %+v, %v", p.sentences, p.chars, j, err)
		}
	}
	if err := js.SegmentProgress(ctx, "j1", 1, 1, 1); err != nil { // a second rendering, from the start
		t.Fatal(err)
	}
	sg.PCM, sg.Words, sg.Rate, sg.Samples = []byte{1, 2, 3, 4}, []byte(`[]`), 24000, 2
	for range 2 { // a segment finished twice is kept once
		if left, err := js.FinishSegment(ctx, sg, time.Second); err != nil || left != 2 {
			t.Fatalf("finish: %d left, %v", left, err)
		}
	}
	if again, err := js.StartSegment(ctx, "j1", 1); err != nil || !again.Done || again.Renders != 1 {
		t.Fatalf("a done segment started again: %+v, %v", again, err)
	}
	j, err := js.Job(ctx, "acme", "j1")
	if err != nil || j.Status != store.JobRunning || j.SegmentsDone != 1 || j.CharsDone != 3 || j.SentencesDone != 2 || j.Audio != time.Second || j.Bytes != 6 || j.Started.IsZero() {
		t.Fatalf("job after a segment: %+v, %v", j, err)
	}
	if err := js.SegmentProgress(ctx, "j1", 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if j, _ := js.Job(ctx, "acme", "j1"); j.SentencesDone != 2 || j.CharsDone != 3 {
		t.Fatalf("progress of a done segment counted: %+v", j)
	}
	full, err := js.JobSegment(ctx, "j1", 1)
	if err != nil || !bytes.Equal(full.PCM, sg.PCM) || full.Rate != 24000 || full.Samples != 2 {
		t.Fatalf("segment: %+v, %v", full, err)
	}

	for i, part := range [][]byte{bytes.Repeat([]byte{7}, 10), {8, 9}} {
		if err := js.PutJobFilePart(ctx, "j1", "audio", i, part); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.PutJobFile(ctx, store.JobFile{Job: "j1", Name: "audio", ContentType: "audio/wav", Size: 12, Parts: 2}); err != nil {
		t.Fatal(err)
	}
	if f, err := js.JobFile(ctx, "j1", "audio"); err != nil || f.Size != 12 || f.Parts != 2 || f.ContentType != "audio/wav" {
		t.Fatalf("file: %+v, %v", f, err)
	}
	if p, err := js.JobFilePart(ctx, "j1", "audio", 1); err != nil || !bytes.Equal(p, []byte{8, 9}) {
		t.Fatalf("part 1: %v, %v", p, err)
	}
	if err := js.DropSegmentAudio(ctx, "j1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := js.SetJobStatus(ctx, "j1", []string{store.JobRunning}, store.JobSucceeded, ""); !ok || err != nil {
		t.Fatalf("succeeded: %v, %v", ok, err)
	}
	if ok, _ := js.SetJobStatus(ctx, "j1", []string{store.JobQueued, store.JobRunning}, store.JobCancelled, ""); ok {
		t.Fatal("a finished job cancelled")
	}
	if j, _ := js.Job(ctx, "", "j1"); j.Bytes != 12 || j.Finished.IsZero() || j.Status != store.JobSucceeded {
		t.Fatalf("finished job: %+v", j)
	}
	if err := newJob("j3", "acme", base.Add(2*time.Second), "x"); err != nil {
		t.Fatalf("a job once one finished: %v", err)
	}

	page, err := js.ListJobs(ctx, "acme", "", 2)
	if err != nil || len(page) != 2 || page[0].ID != "j3" || page[1].ID != "j2" {
		t.Fatalf("first page: %v, %v", ids(page), err)
	}
	if page, err = js.ListJobs(ctx, "acme", "j2", 2); err != nil || len(page) != 1 || page[0].ID != "j1" {
		t.Fatalf("second page: %v, %v", ids(page), err)
	}
	if other, _ := js.ListJobs(ctx, "other", "", 10); len(other) != 0 {
		t.Fatalf("another account lists %v", ids(other))
	}

	// A job failed with a code loses all its audio.
	sg2, _ := js.StartSegment(ctx, "j2", 0)
	sg2.PCM, sg2.Rate = []byte{1, 2, 3, 4, 5, 6, 7, 8}, 24000
	if _, err := js.FinishSegment(ctx, sg2, time.Second); err != nil {
		t.Fatal(err)
	}
	if n, err := js.JobBytes(ctx, "acme"); err != nil || n != 12+8 {
		t.Fatalf("acme's job bytes: %d, %v", n, err)
	}
	if ok, err := js.FailJob(ctx, "j2", "storage_exceeded", "Too much."); !ok || err != nil {
		t.Fatalf("fail: %v, %v", ok, err)
	}
	if ok, _ := js.FailJob(ctx, "j2", "x", "again"); ok {
		t.Fatal("a failed job failed again")
	}
	if j, _ := js.Job(ctx, "acme", "j2"); j.Status != store.JobFailed || j.ErrorCode != "storage_exceeded" || j.Error != "Too much." || j.Bytes != 0 || j.Finished.IsZero() {
		t.Fatalf("failed job: %+v", j)
	}
	if full, _ := js.JobSegment(ctx, "j2", 0); full.PCM != nil || !full.Done {
		t.Fatalf("a failed job's segment keeps %d bytes", len(full.PCM))
	}
	late := store.JobSegment{Job: "j2", Seq: 1, PCM: []byte{1, 2}, Rate: 24000} // rendered on as it failed
	if _, err := js.FinishSegment(ctx, late, time.Second); err != nil {
		t.Fatal(err)
	}
	if n, _ := js.JobBytes(ctx, "acme"); n != 12 {
		t.Fatalf("acme's job bytes after the failure: %d", n)
	}
	if err := js.DeleteJob(ctx, "other", "j2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's delete: %v", err)
	}
	if err := js.DeleteJob(ctx, "acme", "j2"); err != nil {
		t.Fatal(err)
	}
	if _, err := js.JobSegment(ctx, "j2", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a deleted job's segment: %v", err)
	}
	if n, err := js.DeleteJobsBefore(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("expiry of none: %d, %v", n, err)
	}
	if n, err := js.DeleteJobsBefore(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("expiry of the finished job: %d, %v", n, err)
	}
	if _, err := js.JobFilePart(ctx, "j1", "audio", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired job's file: %v", err)
	}
}

func ids(js []store.Job) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}
