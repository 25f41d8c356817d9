package jobs_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// The environment of a child server (TestJobKilledChild): the directory
// it writes its address to, and the PostgreSQL database it runs on
// (none: SQLite in that directory).
const (
	childDirEnv = "VOXKIT_JOBS_CHILD_DIR"
	childDSNEnv = "VOXKIT_JOBS_CHILD_DSN"
)

// TestJobKilledChild is a server the kill tests run as a process of its
// own and kill: it serves until its standard input closes (or SIGKILL).
func TestJobKilledChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("a child of TestJobKilled and TestJobKilledReplica")
	}
	var addr string
	if dsn := os.Getenv(childDSNEnv); dsn != "" {
		addr = newReplica(t, dsn).ts.URL
	} else {
		e := jobEnv(t, filepath.Join(dir, sqlite.FileName), server.JobOptions{MaxSegment: 120, Workers: 1})
		addr = e.TS.URL + " " + e.Key
	}
	tmp := filepath.Join(dir, fmt.Sprintf("%d.tmp", os.Getpid()))
	if err := os.WriteFile(tmp, []byte(addr), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, fmt.Sprintf("%d.addr", os.Getpid()))); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, os.Stdin)
}

// child is a server running as a process of its own.
type child struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	url, key string
	log      *testserver.SyncBuffer
}

// startChild starts the test binary as TestJobKilledChild on dir (and
// the database dsn, if set) and waits until it serves.
func startChild(t *testing.T, dir, dsn string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestJobKilledChild$", "-test.v"), log: new(testserver.SyncBuffer)}
	c.cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childDSNEnv+"="+dsn)
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.kill()
		if t.Failed() {
			c.log.Mu.Lock()
			t.Logf("child %d:\n%s", c.cmd.Process.Pid, c.log.B.String())
			c.log.Mu.Unlock()
		}
	})
	file := filepath.Join(dir, fmt.Sprintf("%d.addr", c.cmd.Process.Pid))
	var b []byte
	if !wait.For(jobTimeout, func() bool {
		b, err = os.ReadFile(file)
		return err == nil
	}) {
		t.Fatalf("child %d did not start: %v", c.cmd.Process.Pid, err)
	}
	c.url, c.key, _ = strings.Cut(string(b), " ")
	return c
}

// kill kills the child with SIGKILL and reaps it.
func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
	}
}

// proxyEnv is an Env whose server is the child at *to, whichever it is
// at each request.
func proxyEnv(t *testing.T, to *atomic.Pointer[child], key string) *testserver.Env {
	ts := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u, _ := url.Parse(to.Load().url)
		r.SetURL(u)
	}})
	t.Cleanup(ts.Close)
	return &testserver.Env{T: t, TS: ts, Key: key}
}

// doneSegments is the seqs of the job's segments done.
func doneSegments(segs []store.JobSegment) []int {
	var done []int
	for _, s := range segs {
		if s.Done {
			done = append(done, s.Seq)
		}
	}
	return done
}

// checkResumed checks that the segments done before the kill were
// rendered once, and that the job's audio is as long as an uninterrupted
// run's of the same request (within 0.5 %), run on e.
func checkResumed(t *testing.T, e *testserver.Env, id string, body map[string]any, done []int, after []store.JobSegment) {
	t.Helper()
	renders := renderings(after)
	for _, seq := range done {
		if after[seq].Renders != 1 {
			t.Errorf("segment %d, done before the kill, rendered %d times", seq, after[seq].Renders)
		}
	}
	t.Logf("%d segments, %d done before the kill, %d renderings", len(after), len(done), renders)
	_, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+id+"/audio")
	n, _ := wavSamples(t, whole)
	again := submit(t, e, e.Key, body)
	waitFor(t, func() bool { return getJob(t, e, e.Key, again.ID).Status == store.JobSucceeded })
	_, ref := fetch(t, e, e.Key, "/v1/audio/jobs/"+again.ID+"/audio")
	m, _ := wavSamples(t, ref)
	if d := math.Abs(float64(n-m)) / float64(m); d > 0.005 {
		t.Errorf("killed and resumed: %d samples; uninterrupted: %d (%.2f %% apart)", n, m, 100*d)
	}
}

// A server killed (SIGKILL) mid-job: the next to start on its SQLite file
// resumes the job at once, without rendering again the segments done.
func TestJobKilled(t *testing.T) {
	dir := t.TempDir()
	var to atomic.Pointer[child]
	to.Store(startChild(t, dir, ""))
	e := proxyEnv(t, &to, to.Load().key)
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := map[string]any{"voice": "slow", "response_format": "wav", "input": strings.Repeat("The slow voice says this. ", 60)}
	j := submit(t, e, e.Key, body)
	var before []store.JobSegment
	waitFor(t, func() bool { // two segments done, one rendering
		if before, err = st.JobSegments(t.Context(), j.ID, false); err != nil {
			t.Fatal(err)
		}
		return len(doneSegments(before)) >= 2 && rendering(before) > 0
	})
	to.Load().kill()
	if before, err = st.JobSegments(t.Context(), j.ID, false); err != nil {
		t.Fatal(err)
	}
	done := doneSegments(before)
	if len(done) == len(before) {
		t.Fatalf("all %d segments done before the kill: make the job longer", len(before))
	}
	cut := rendering(before)
	to.Store(startChild(t, dir, ""))
	waitFor(t, func() bool { return getJob(t, e, e.Key, j.ID).Status == store.JobSucceeded })
	after, err := st.JobSegments(t.Context(), j.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := renderings(after); n != len(after)+cut {
		t.Errorf("%d renderings of %d segments, %d cut by the kill: want each rendered once more", n, len(after), cut)
	}
	checkResumed(t, e, j.ID, body, done, after)
}

// rendering is how many segments were begun and not done.
func rendering(segs []store.JobSegment) int {
	n := 0
	for _, s := range segs {
		if !s.Done && s.Renders > 0 {
			n++
		}
	}
	return n
}

// renderings is how many renderings of segs began.
func renderings(segs []store.JobSegment) int {
	n := 0
	for _, s := range segs {
		n += s.Renders
	}
	return n
}

// Two replicas on one PostgreSQL database, each a process: the one
// killed (SIGKILL) while rendering a job's segments has them taken by the
// other once its heartbeat is stale, which finishes the job without
// rendering again the segments done.
func TestJobKilledReplica(t *testing.T) {
	testserver.Long(t)
	dsn := pgtest.Start(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	_, key, err := st.CreateKey(ctx, store.NewKey{Account: "acme", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := startChild(t, dir, dsn), startChild(t, dir, dsn)
	var to atomic.Pointer[child]
	to.Store(a)
	e := proxyEnv(t, &to, key)
	body := map[string]any{"voice": "slow", "response_format": "wav", "input": strings.Repeat("The slow voice says this. ", 80)}
	j := submit(t, e, key, body)

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	running := func() int { // replicas rendering a segment
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FROM river_job
			WHERE kind = 'voxkit_job_segment' AND state = 'running'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor(t, func() bool { return getJob(t, e, key, j.ID).Progress.SegmentsDone >= 2 && running() == 2 })
	a.kill()
	before, err := st.JobSegments(ctx, j.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	done := doneSegments(before)
	if len(done) == len(before) {
		t.Fatalf("all %d segments done before the kill: make the job longer", len(before))
	}
	to.Store(b)
	waitFor(t, func() bool { return getJob(t, e, key, j.ID).Status == store.JobSucceeded })
	var freed int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM river_job, unnest(errors) e
		WHERE kind = 'voxkit_job_segment' AND e->>'error' LIKE '%stopped beating%'`).Scan(&freed); err != nil {
		t.Fatal(err)
	}
	if freed == 0 {
		t.Error("no segment of the killed replica was freed by the sweep")
	}
	after, err := st.JobSegments(ctx, j.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	checkResumed(t, e, j.ID, body, done, after)
}
