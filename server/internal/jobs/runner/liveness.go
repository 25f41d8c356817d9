package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// A server killed outright (SIGKILL, a lost machine) leaves the work it
// had taken "running" in River's table, and River's own rescuer never
// hands on a job that has no timeout (a segment has none: it ends when
// rendered). So each runner has an identity, River's client ID, and on
// PostgreSQL a heartbeat row it refreshes every Config.Beat; every runner
// sweeps, at start and at each beat, the work of the queue running under
// a runner whose heartbeat is older than StaleBeats beats and makes it
// available again, through River's driver (JobRescueMany, which changes
// a row only while it is still that attempt). A SQLite file is one
// process's: there a runner starting finds every running piece of work
// orphaned and frees it at once.

// DefaultBeat is Config.Beat's default.
const DefaultBeat = 2 * time.Second

// StaleBeats is how many beats a runner may miss before its work is
// taken from it.
const StaleBeats = 3

// runnerPrefix starts the River client ID of every runner: the sweep
// frees only work taken under such an ID (not that of a server of an
// older version, which keeps no heartbeat).
const runnerPrefix = "voxkit-"

// rescueError is the attempt error River keeps for work freed by a sweep.
const rescueError = "its server stopped beating: freed by voxkit's sweep"

// runnerID is a new runner's River client ID: the host's name (which
// names the replica in River's attempted_by) and a random suffix.
func runnerID() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r < '!' || r > '~' {
			return '_'
		}
		return r
	}, host)
	var b [6]byte
	rand.Read(b[:])
	return runnerPrefix + host[:min(len(host), 60)] + "-" + hex.EncodeToString(b[:])
}

// heartbeats is the table of the runners' heartbeats on PostgreSQL.
const heartbeatsTable = `CREATE TABLE IF NOT EXISTS voxkit_job_runners (
	id text PRIMARY KEY,
	beat timestamptz NOT NULL
)`

// beats keeps runners' heartbeats on PostgreSQL, by the database's clock
// (the replicas' clocks may differ).
type beats struct{ pool *pgxpool.Pool }

// beat writes id's heartbeat, now, and forgets runners silent for a day.
func (b beats) beat(ctx context.Context, id string) error {
	if _, err := b.pool.Exec(ctx, `INSERT INTO voxkit_job_runners(id, beat) VALUES($1, now())
		ON CONFLICT (id) DO UPDATE SET beat = now()`, id); err != nil {
		return err
	}
	_, err := b.pool.Exec(ctx, `DELETE FROM voxkit_job_runners WHERE beat < now() - interval '1 day'`)
	return err
}

// alive is the runners that beat within the last stale.
func (b beats) alive(ctx context.Context, stale time.Duration) (map[string]bool, error) {
	rows, err := b.pool.Query(ctx, `SELECT id FROM voxkit_job_runners WHERE beat > now() - make_interval(secs => $1)`, stale.Seconds())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// forget removes id's heartbeat (a runner that stopped cleanly).
func (b beats) forget(ctx context.Context, id string) error {
	_, err := b.pool.Exec(ctx, `DELETE FROM voxkit_job_runners WHERE id = $1`, id)
	return err
}

// sweep frees the work of the queue running under a runner dead says is
// dead: a piece attempted fewer than its most times is made available
// again at once, keeping its place in the queue; one that has had them
// all is discarded and its speech job failed (a segment that kills its
// server would otherwise kill every replica in turn). It returns how
// many it freed.
func (r *Runner) sweep(ctx context.Context, dead func(owner string) bool) (int, error) {
	res, err := r.client.JobList(ctx, river.NewJobListParams().Queues(Queue).States(rivertype.JobStateRunning).First(10000))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, row := range res.Jobs {
		if len(row.AttemptedBy) == 0 || row.AttemptedAt == nil || !dead(row.AttemptedBy[len(row.AttemptedBy)-1]) {
			continue
		}
		now := time.Now().UTC()
		msg, _ := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(row.Attempt, 0), Error: rescueError})
		state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
		if row.Attempt >= row.MaxAttempts {
			state, finalized = rivertype.JobStateDiscarded, &now
		}
		// The horizon just past the attempt seen: should the row have
		// been freed and taken again since, it is left alone.
		if _, err := r.exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{ID: []int64{row.ID}, Error: [][]byte{msg},
			FinalizedAt: []*time.Time{finalized}, ScheduledAt: []time.Time{row.ScheduledAt}, State: []string{string(state)},
			StuckHorizon: row.AttemptedAt.Add(time.Millisecond)}); err != nil {
			return n, err
		}
		n++
		r.log.Warn("jobs: work of a stopped server freed", "kind", row.Kind, "river_job", row.ID, "runner", row.AttemptedBy[len(row.AttemptedBy)-1], "attempt", row.Attempt, "state", state)
		if state == rivertype.JobStateDiscarded {
			var a struct {
				Job string `json:"job"`
			}
			if json.Unmarshal(row.EncodedArgs, &a) == nil && a.Job != "" {
				r.fail(ctx, a.Job, fmt.Sprintf("its server stopped while rendering it, %d times", row.Attempt))
			}
		}
	}
	return n, nil
}

// keepBeating beats and sweeps every Config.Beat until ctx ends.
func (r *Runner) keepBeating(ctx context.Context) {
	every(ctx, r.cfg.Beat, func() bool {
		if err := r.beatAndSweep(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("jobs: heartbeat", "err", err)
		}
		return true
	})
}

// beatAndSweep writes this runner's heartbeat and frees the work of
// runners silent for StaleBeats beats.
func (r *Runner) beatAndSweep(ctx context.Context) error {
	if err := r.beats.beat(ctx, r.id); err != nil {
		return err
	}
	alive, err := r.beats.alive(ctx, StaleBeats*r.cfg.Beat)
	if err != nil {
		return err
	}
	_, err = r.sweep(ctx, func(owner string) bool { return strings.HasPrefix(owner, runnerPrefix) && !alive[owner] })
	return err
}
