package runner

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/store"
)

// The sweep frees the work running under a runner that is gone: a
// segment with attempts left is available again, one that had them all
// is discarded and fails its job; work of a live runner stays; a second
// sweep finds nothing.
func TestSweep(t *testing.T) {
	r := finishEnv(t, encode.NewBuiltinRegistry())
	ctx := t.Context()
	raw, _ := json.Marshal(Spec{Format: "wav", Rate: 8000, Chapters: []string{""}})
	j := store.Job{ID: newID(), Account: "acme", Status: store.JobRunning, Spec: raw, Segments: 3, Chars: 30, Created: time.Now()}
	segs := []store.JobSegment{{Seq: 0, Text: "One."}, {Seq: 1, Text: "Two."}, {Seq: 2, Text: "Three."}}
	if err := r.jobs.CreateJob(ctx, j, segs, store.JobLimits{}); err != nil {
		t.Fatal(err)
	}
	var params []river.InsertManyParams
	for i := range segs {
		params = append(params, river.InsertManyParams{Args: segmentArgs{Job: j.ID, Seq: i}, InsertOpts: &river.InsertOpts{Queue: Queue}})
	}
	res, err := r.client.InsertMany(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	db := r.cfg.Store.(interface{ QueueDB() *sql.DB }).QueueDB()
	at := time.Now().Add(-time.Minute).UTC().Format("2006-01-02 15:04:05.000")
	for i, c := range []struct {
		owner   string
		attempt int
	}{{"voxkit-gone", 1}, {"voxkit-gone", 5}, {"voxkit-alive", 1}} {
		if _, err := db.ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = ?, attempted_at = ?, attempted_by = json_array(?) WHERE id = ?`,
			c.attempt, at, c.owner, res[i].Job.ID); err != nil {
			t.Fatal(err)
		}
	}
	dead := func(owner string) bool { return owner == "voxkit-gone" }
	if n, err := r.sweep(ctx, dead); n != 2 || err != nil {
		t.Fatalf("freed %d (%v), want 2", n, err)
	}
	for i, want := range []string{"available", "discarded", "running"} {
		var state string
		if err := db.QueryRowContext(ctx, `SELECT state FROM river_job WHERE id = ?`, res[i].Job.ID).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state != want {
			t.Errorf("segment %d: %s, want %s", i, state, want)
		}
	}
	got, err := r.jobs.Job(ctx, "", j.ID)
	if err != nil || got.Status != store.JobFailed || !strings.Contains(got.Error, "stopped while rendering it, 5 times") {
		t.Errorf("job %s %q (%v), want failed", got.Status, got.Error, err)
	}
	if n, err := r.sweep(ctx, dead); n != 0 || err != nil {
		t.Errorf("a second sweep freed %d (%v)", n, err)
	}
}
