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
	"slices"
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
	// On PostgreSQL (startReplicaChild): its runner's ID (River's
	// client ID, in attempted_by) and the application_name of its
	// connections.
	runner, app string
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
// Under -short the job is half as long (8 segments, not 15: still room for
// three kills after the two segments done), so is the uninterrupted run
// it is measured against.
func TestJobKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var to atomic.Pointer[child]
	to.Store(startChild(t, dir, ""))
	e := proxyEnv(t, &to, to.Load().key)
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := map[string]any{"voice": "slow", "response_format": "wav", "input": strings.Repeat("The slow voice says this. ", shortBook(60, 30))}
	j := submit(t, e, e.Key, body)
	// The server is killed once it renders a segment; should it have
	// finished that segment before the kill landed (between two
	// segments), another is started on the file and killed in its turn
	// (the file then holds no segment begun and not done: the next seen
	// is the new server's).
	var before []store.JobSegment
	var done []int
	cut := 0
	for kills := 1; ; kills++ {
		waitFor(t, func() bool { // two segments done, one rendering
			if before, err = st.JobSegments(t.Context(), j.ID, false); err != nil {
				t.Fatal(err)
			}
			done = doneSegments(before)
			return len(done) == len(before) || len(done) >= 2 && rendering(before) > 0
		})
		if len(done) < len(before) {
			to.Load().kill()
			if before, err = st.JobSegments(t.Context(), j.ID, false); err != nil {
				t.Fatal(err)
			}
			done = doneSegments(before)
		}
		if len(done) == len(before) {
			t.Fatalf("all %d segments done before the kill (%d kills): make the job longer", len(before), kills)
		}
		if cut = rendering(before); cut > 0 {
			t.Logf("kill %d: the server killed was rendering %d segment(s)", kills, cut)
			break
		}
		if kills == maxKills {
			t.Fatalf("%d servers killed, none while rendering a segment", kills)
		}
		t.Logf("kill %d: the server killed was between two segments; killing another", kills)
		to.Store(startChild(t, dir, ""))
	}
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
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	dir := t.TempDir()
	a := startReplicaChild(t, dir, dsn, conn)
	b := startReplicaChild(t, dir, dsn, conn)
	var to atomic.Pointer[child]
	to.Store(a)
	e := proxyEnv(t, &to, key)
	body := map[string]any{"voice": "slow", "response_format": "wav", "input": strings.Repeat("The slow voice says this. ", 80)}
	j := submit(t, e, key, body)

	// A replica is killed once it renders a segment; should it have
	// finished that segment before the kill landed (the gap between two
	// segments is a real share of the time), another is started and
	// killed in its turn.
	var before []store.JobSegment
	var cut []int
	for victim, kills := a, 1; ; kills++ {
		waitFor(t, func() bool {
			if before, err = st.JobSegments(ctx, j.ID, false); err != nil {
				t.Fatal(err)
			}
			return len(doneSegments(before)) == len(before) ||
				len(doneSegments(before)) >= 2 && len(victim.rendering(t, conn, false)) > 0
		})
		if len(doneSegments(before)) == len(before) {
			t.Fatalf("all %d segments done before a replica could be killed rendering one (%d kills): make the job longer", len(before), kills-1)
		}
		victim.kill()
		to.Store(b)
		victim.gone(t, conn)
		if before, err = st.JobSegments(ctx, j.ID, false); err != nil {
			t.Fatal(err)
		}
		if cut = victim.rendering(t, conn, true); len(cut) > 0 {
			t.Logf("kill %d: the replica killed was rendering segments %v", kills, cut)
			break
		}
		if kills == maxKills {
			t.Fatalf("%d replicas killed, none while rendering a segment", kills)
		}
		t.Logf("kill %d: the replica killed was between two segments; killing another", kills)
		victim = startReplicaChild(t, dir, dsn, conn)
	}
	done := doneSegments(before)
	if len(done) == len(before) {
		t.Fatalf("all %d segments done before the kill: make the job longer", len(before))
	}
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
	for _, seq := range cut {
		if after[seq].Renders != 2 {
			t.Errorf("segment %d, cut by the kill, rendered %d times: want twice (by the killed replica, then the other)", seq, after[seq].Renders)
		}
	}
	checkResumed(t, e, j.ID, body, done, after)
}

// maxKills is how many replicas a kill test kills, at most, before one
// is caught rendering a segment.
const maxKills = 3

// startReplicaChild starts a child replica on the PostgreSQL database
// dsn (read through conn) and learns its runner's ID: the heartbeat it
// adds to voxkit_job_runners as it starts.
func startReplicaChild(t *testing.T, dir, dsn string, conn *pgx.Conn) *child {
	t.Helper()
	known := runnerIDs(t, conn)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("voxkit-kill-%d", len(known))
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	c := startChild(t, dir, u.String())
	c.app = app
	waitFor(t, func() bool {
		for _, id := range runnerIDs(t, conn) {
			if !slices.Contains(known, id) {
				c.runner = id
			}
		}
		return c.runner != ""
	})
	return c
}

// runnerIDs is the IDs of the runners that ever beat on conn's database
// (a runner killed keeps its row); none before the first runner made
// the table.
func runnerIDs(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	var made bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regclass('voxkit_job_runners') IS NOT NULL`).Scan(&made); err != nil {
		t.Fatal(err)
	}
	if !made {
		return nil
	}
	rows, _ := conn.Query(t.Context(), `SELECT id FROM voxkit_job_runners`)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// rendering is the seqs of the segments the replica c began and did not
// finish: running in River under its runner, begun and not done in the
// store. With freed, also those the sweep freed from it since (c is
// killed), unless done since.
func (c *child) rendering(t *testing.T, conn *pgx.Conn, freed bool) []int {
	t.Helper()
	rows, _ := conn.Query(t.Context(), `SELECT s.seq FROM river_job r
		JOIN job_segments s ON s.job = r.args->>'job' AND s.seq = (r.args->>'seq')::int
		WHERE r.kind = 'voxkit_job_segment' AND s.renders > 0 AND NOT s.done AND (
			r.state = 'running' AND r.attempted_by[array_length(r.attempted_by, 1)] = $1
			OR $2 AND EXISTS (SELECT FROM unnest(r.errors) e
				WHERE e->>'error' LIKE '%stopped beating%' AND r.attempted_by[(e->>'attempt')::int] = $1))
		ORDER BY s.seq`, c.runner, freed)
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

// gone waits until the killed replica c has no connection left to the
// database: what it had sent is done or rolled back, its rows are what
// they will stay until the sweep.
func (c *child) gone(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	waitFor(t, func() bool {
		var n int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, c.app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}
