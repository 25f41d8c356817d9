package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// replica is a server with jobs on a shared PostgreSQL database.
type replica struct {
	srv *server.Server
	ts  *httptest.Server
	st  *postgres.Store
}

func newReplica(t *testing.T, dsn string) *replica {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	slow := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"slow"}, SentenceDelay: 40 * time.Millisecond})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(ctx, "slow", slow, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"slow": slow}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Synthesizer: synth, Store: st, Aliases: map[string]string{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:   server.JobOptions{Enabled: true, Workers: 1, MaxSegment: 120, Poll: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{srv: srv, ts: httptest.NewServer(srv), st: st}
	t.Cleanup(func() {
		r.ts.Close()
		srv.Shutdown(context.Background())
		st.Close()
	})
	return r
}

func (r *replica) env(t *testing.T, key string) *testserver.Env {
	return &testserver.Env{T: t, TS: r.ts, Server: r.srv, Key: key}
}

// Two replicas on one PostgreSQL database: a job submitted on one is run
// by both and read on either; when the one that took it stops, the other
// finishes it, without rendering again what was done.
func TestJobReplicas(t *testing.T) {
	testserver.Long(t)
	dsn := pgtest.Start(t)
	a, b := newReplica(t, dsn), newReplica(t, dsn)
	ctx := context.Background()
	if _, err := a.st.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	_, key, err := a.st.CreateKey(ctx, store.NewKey{Account: "acme", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	ea, eb := a.env(t, key), b.env(t, key)
	j := submit(t, ea, key, map[string]any{"voice": "slow", "response_format": "wav", "input": strings.Repeat("The slow voice says this. ", 80)})
	waitFor(t, func() bool { return getJob(t, eb, key, j.ID).Progress.SegmentsDone >= 4 })

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var workers int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT w) FROM river_job, unnest(attempted_by) w WHERE kind = 'voxkit_job_segment'`).Scan(&workers); err != nil {
		t.Fatal(err)
	}
	if workers != 2 {
		t.Errorf("segments rendered by %d replicas, want both", workers)
	}
	if err := a.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	segs, err := b.st.JobSegments(ctx, j.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	var done []int
	for _, s := range segs {
		if s.Done {
			done = append(done, s.Seq)
		}
	}
	end := waitStatus(t, eb, j.ID, store.JobSucceeded)
	if end.Progress.SegmentsDone != len(segs) {
		t.Errorf("finished with %d of %d segments", end.Progress.SegmentsDone, len(segs))
	}
	after, _ := b.st.JobSegments(ctx, j.ID, false)
	for _, seq := range done {
		if after[seq].Renders != 1 {
			t.Errorf("segment %d, done before A stopped, rendered %d times", seq, after[seq].Renders)
		}
	}
	res, audio := fetch(t, eb, key, "/v1/audio/jobs/"+j.ID+"/audio")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("audio on B: %d", res.StatusCode)
	}
	if n, _ := wavSamples(t, audio); n == 0 {
		t.Error("no audio")
	}
	var l jobs.List
	if eb.Call("GET", "/v1/audio/jobs", key, "", &l); len(l.Data) != 1 {
		t.Errorf("B lists %d jobs", len(l.Data))
	}
}

// Replicas that start at once on a new database migrate the queue's
// tables one after the other: every one starts.
func TestJobReplicasStartTogether(t *testing.T) {
	testserver.Long(t)
	dsn := pgtest.Start(t)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			st, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})}})
			if err != nil {
				errs <- err
				return
			}
			srv, err := server.New(server.Options{Synthesizer: synth, Store: st, Logger: slog.New(slog.DiscardHandler), Jobs: server.JobOptions{Enabled: true}})
			if err == nil {
				err = srv.Shutdown(context.Background())
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
