// Package runner runs long-form speech jobs on River
// (github.com/riverqueue/river), a job queue kept in the server's own
// database: SQLite through River's SQLite driver for the embedded store,
// PostgreSQL through its pgx driver for a fleet. A job is cut into
// segments (Cut); each segment is one River job, rendered through the
// core's SpeakBackground and kept in the store as it finishes, so that a
// server stopped or killed mid-job resumes from the segments not done
// yet, on any replica sharing the store. The segment that finishes last
// queues the job's finishing (one River job per speech job, unique by
// its arguments), which encodes the whole audio once, and each chapter,
// into files kept in parts. The jobs door (package jobs) serves it.
package runner

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// Queue is the River queue the jobs' work runs on.
const Queue = "voxkit_jobs"

// Speech is what the runner asks of the core.
type Speech interface {
	SpeakBackground(ctx context.Context, job core.Job, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) (tts.Result, error)
}

// Spec is what a job asks for, kept with it in the store.
type Spec struct {
	// Speech is the door's speech request without its text, which the
	// door's Config.Request reads back for each segment.
	Speech json.RawMessage `json:"speech"`
	// Format is the results' format (a codec name), Rate their rate.
	Format string `json:"format"`
	Rate   int    `json:"rate"`
	// Chapters are the chapters' titles.
	Chapters []string `json:"chapters"`
}

// Chapter is a chapter of a job's text.
type Chapter struct {
	Title, Text string
	// MaxSegment is the most characters of its segments; 0 means
	// Config.MaxSegment. The door shortens them for slow speech, so
	// that a segment makes about as much audio at any speed.
	MaxSegment int
}

// Reading is what Config.Read finds in a segment's text.
type Reading struct {
	// Sentences is how many sentences the speech will say of it.
	Sentences int
	// Carry is the tags that the next segment of its chapter opens in
	// front of its text, so that the styles open at this one's end go
	// on there, as in one input (tags.Script.Open).
	Carry string
}

// Config configures a Runner.
type Config struct {
	// Store holds the jobs; it must also be one River runs on: a
	// *sqlite.Store (QueueDB) or a *postgres.Store (Pool).
	Store  store.Store
	Speech Speech
	// Request turns a segment's text into the core's job, as the door
	// reads Spec.Speech; its request's format is raw pcm at Spec.Rate.
	Request func(spec Spec, account, text string) (core.Job, error)
	// Read reads a segment's text as the speech will (the door reads
	// Spec.Speech for the voice's language and instructions): the
	// sentences it says and the styles it leaves open (Reading); nil
	// counts none and carries none.
	Read func(spec Spec, account, text string) Reading
	// Storage is the most audio an account's jobs may hold, checked as
	// each segment is kept (store.JobLimits.Bytes); 0 none.
	Storage int64
	// Formats encode the results.
	Formats *encode.Registry
	// Workers is how many segments render at once on this server.
	Workers int
	// MaxSegment is the most characters of a segment.
	MaxSegment int
	// Retention is how long a finished job is kept; 0 forever.
	Retention time.Duration
	// RescueAfter is River's RescueStuckJobsAfter; 0 means
	// DefaultRescueAfter. River's own rescuer hands on no segment (they
	// run with no timeout): a killed server's segments are freed by the
	// runners' heartbeats (Beat, liveness.go).
	RescueAfter time.Duration
	// Beat is how often a runner on PostgreSQL writes its heartbeat and
	// frees the work of runners silent for StaleBeats beats; 0 means
	// DefaultBeat.
	Beat time.Duration
	// Poll is how often the queue and a running job's status are read;
	// 0 means DefaultPoll.
	Poll time.Duration
	Log  *slog.Logger
}

// DefaultRescueAfter is Config.RescueAfter's default: longer than any
// segment takes to render (Config.MaxSegment characters).
const DefaultRescueAfter = 15 * time.Minute

// DefaultPoll is Config.Poll's default.
const DefaultPoll = 500 * time.Millisecond

// Runner runs the jobs of a store.
type Runner struct {
	cfg    Config
	jobs   store.Jobs
	client client
	log    *slog.Logger

	id      string               // River's client ID
	exec    riverdriver.Executor // River's driver, for the sweep
	beats   *beats               // heartbeats; nil on SQLite
	stopped chan struct{}        // closed when keepBeating returns
	quit    context.CancelFunc   // ends keepBeating
	leaving chan struct{}        // closed when Stop begins
	leave   sync.Once

	mu      sync.Mutex
	running map[string]map[*int]context.CancelFunc // segments rendering here, by job
	renders int                                    // segments rendered here
}

// client is what the runner asks of River's client, whichever its
// driver.
type client interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// ErrNoQueue is New's error for a store River cannot run on.
var ErrNoQueue = errors.New("jobs: the store keeps no job queue (SQLite and PostgreSQL stores do)")

// New migrates River's tables in the store's database and returns the
// runner; Start starts its workers.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	jobs, ok := cfg.Store.(store.Jobs)
	if !ok {
		return nil, ErrNoQueue
	}
	r := &Runner{cfg: cfg, jobs: jobs, log: cmp.Or(cfg.Log, slog.Default()), running: map[string]map[*int]context.CancelFunc{}, id: runnerID(),
		leaving: make(chan struct{})}
	r.cfg.Poll = cmp.Or(cfg.Poll, DefaultPoll)
	r.cfg.Beat = cmp.Or(cfg.Beat, DefaultBeat)
	workers := river.NewWorkers()
	river.AddWorker(workers, &segmentWorker{r: r})
	river.AddWorker(workers, &finishWorker{r: r})
	river.AddWorker(workers, &expireWorker{r: r})
	rc := &river.Config{
		ID:                   r.id,
		Queues:               map[string]river.QueueConfig{Queue: {MaxWorkers: max(1, cfg.Workers)}},
		Workers:              workers,
		Logger:               r.log.With("room", "jobs"),
		JobTimeout:           -1, // a segment ends when it is rendered, or cancelled
		RescueStuckJobsAfter: cmp.Or(cfg.RescueAfter, DefaultRescueAfter),
		FetchPollInterval:    r.cfg.Poll,
		FetchCooldown:        min(r.cfg.Poll, 100*time.Millisecond),
		MaxAttempts:          5,
	}
	if cfg.Retention > 0 {
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(min(time.Hour, cfg.Retention)),
			func() (river.JobArgs, *river.InsertOpts) {
				return expireArgs{}, &river.InsertOpts{Queue: Queue}
			}, &river.PeriodicJobOpts{RunOnStart: true})}
	}
	var err error
	switch s := cfg.Store.(type) {
	case interface{ Pool() *pgxpool.Pool }:
		d := riverpgxv5.New(s.Pool())
		err = lockedMigrate(ctx, s.Pool(), func() error {
			if _, err := s.Pool().Exec(ctx, heartbeatsTable); err != nil {
				return err
			}
			return migrate(d, func(m *rivermigrate.Migrator[pgx.Tx]) (*rivermigrate.MigrateResult, error) {
				return m.Migrate(ctx, rivermigrate.DirectionUp, nil)
			})
		})
		if err == nil {
			r.client, err = river.NewClient(d, rc)
			r.exec, r.beats = d.GetExecutor(), &beats{s.Pool()}
		}
	case interface{ QueueDB() *sql.DB }:
		d := riversqlite.New(s.QueueDB())
		err = migrate(d, func(m *rivermigrate.Migrator[*sql.Tx]) (*rivermigrate.MigrateResult, error) {
			return m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		})
		if err == nil {
			r.client, err = river.NewClient(d, rc)
			r.exec = d.GetExecutor()
		}
	default:
		return nil, ErrNoQueue
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return r, nil
}

// migrationLock is the advisory lock PostgreSQL replicas hold while they
// migrate River's tables ("voxkit river" in ASCII, cut to 63 bits).
const migrationLock = 0x766f786b69747276

// lockedMigrate runs migrate holding a session advisory lock on one of
// pool's connections, so that replicas that start together migrate one
// after the other (River's migrations each take their own transaction:
// one cannot hold them all).
func lockedMigrate(ctx context.Context, pool *pgxpool.Pool, migrate func() error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLock))
	return migrate()
}

// migrate brings River's tables on driver d up to date with run.
func migrate[TTx any](d riverdriver.Driver[TTx], run func(*rivermigrate.Migrator[TTx]) (*rivermigrate.MigrateResult, error)) error {
	m, err := rivermigrate.New(d, nil)
	if err != nil {
		return err
	}
	if _, err := run(m); err != nil {
		return fmt.Errorf("migrating the queue: %w", err)
	}
	return nil
}

// Start frees the work of servers that stopped without handing it back
// (killed: on SQLite all the work running, on PostgreSQL that of runners
// whose heartbeat is stale) and starts the workers, which run until
// Stop; on PostgreSQL it beats and sweeps every Config.Beat meanwhile.
func (r *Runner) Start(ctx context.Context) error {
	if r.beats == nil {
		if n, err := r.sweep(ctx, func(string) bool { return true }); err != nil {
			return fmt.Errorf("jobs: freeing the work of a stopped server: %w", err)
		} else if n > 0 {
			r.log.Info("jobs: resuming the work of a stopped server", "freed", n)
		}
		return r.client.Start(ctx)
	}
	if err := r.beatAndSweep(ctx); err != nil {
		return fmt.Errorf("jobs: heartbeat: %w", err)
	}
	if err := r.client.Start(ctx); err != nil {
		return err
	}
	bctx, quit := context.WithCancel(context.WithoutCancel(ctx))
	r.quit, r.stopped = quit, make(chan struct{})
	go func() {
		defer close(r.stopped)
		r.keepBeating(bctx)
	}()
	return nil
}

// Stop stops the workers: the segments rendering are cancelled and
// queued again, to be rendered by the next server to start (or another
// replica); what finished stays done.
func (r *Runner) Stop(ctx context.Context) error {
	r.leave.Do(func() { close(r.leaving) })
	err := r.client.StopAndCancel(ctx)
	if r.quit != nil {
		r.quit()
		<-r.stopped
		r.quit = nil
		if ferr := r.beats.forget(context.WithoutCancel(ctx), r.id); err == nil {
			err = ferr
		}
	}
	return err
}

// Stopping is closed when Stop begins: what follows jobs for a client
// (their event streams) ends then, so that a server stopping does not
// wait for jobs it no longer renders.
func (r *Runner) Stopping() <-chan struct{} { return r.leaving }

// Renders is how many segment renderings this runner began.
func (r *Runner) Renders() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renders
}

// Submit cuts the chapters into segments, keeps the job and queues its
// segments. ErrLimit (wrapped) when the account is over lim. A segment
// after the first of its chapter opens, in front of its text, the
// styles the one before left open (Reading.Carry): a tag opened before a
// cut styles the text after it, and its closing tag closes it there.
func (r *Runner) Submit(ctx context.Context, account string, spec Spec, chapters []Chapter, lim store.JobLimits) (store.Job, error) {
	var segs []store.JobSegment
	chars := 0
	for i, ch := range chapters {
		spec.Chapters = append(spec.Chapters, ch.Title)
		carry := ""
		for _, text := range Cut(ch.Text, cmp.Or(ch.MaxSegment, r.cfg.MaxSegment)) {
			text = carry + text
			seg := store.JobSegment{Seq: len(segs), Chapter: i, Text: text}
			if r.cfg.Read != nil {
				rd := r.cfg.Read(spec, account, text)
				seg.Sentences, carry = rd.Sentences, rd.Carry
			}
			segs = append(segs, seg)
			chars += len([]rune(text))
		}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return store.Job{}, err
	}
	j := store.Job{ID: newID(), Account: account, Status: store.JobQueued, Spec: raw, Segments: len(segs), Chars: chars,
		Created: time.Now().Truncate(time.Millisecond)}
	if err := r.jobs.CreateJob(ctx, j, segs, lim); err != nil {
		return store.Job{}, err
	}
	params := make([]river.InsertManyParams, len(segs))
	for i := range segs {
		params[i] = river.InsertManyParams{Args: segmentArgs{Job: j.ID, Seq: i}, InsertOpts: &river.InsertOpts{Queue: Queue}}
	}
	if _, err := r.client.InsertMany(ctx, params); err != nil {
		r.fail(context.WithoutCancel(ctx), j.ID, "the job could not be queued")
		return store.Job{}, fmt.Errorf("jobs: queueing %s: %w", j.ID, err)
	}
	return r.jobs.Job(ctx, account, j.ID)
}

// Cancel cancels account's job id if it is queued or running: its
// segments rendering here stop at once, those on other replicas within
// Config.Poll, and the audio of those done is dropped. It reports
// whether it did.
func (r *Runner) Cancel(ctx context.Context, id string) (bool, error) {
	ok, err := r.jobs.SetJobStatus(ctx, id, []string{store.JobQueued, store.JobRunning}, store.JobCancelled, "")
	if ok {
		r.stop(id)
		err = r.jobs.DropSegmentAudio(ctx, id)
	}
	return ok, err
}

// stop cancels the segments of job rendering here.
func (r *Runner) stop(job string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cancel := range r.running[job] {
		cancel()
	}
}

// fail ends the job as failed with msg, unless it ended already, and
// drops the audio of its segments done: a job that ended holds none, no
// more than one cancelled (a segment finishing later keeps none).
func (r *Runner) fail(ctx context.Context, job, msg string) {
	ok, err := r.jobs.SetJobStatus(ctx, job, []string{store.JobQueued, store.JobRunning}, store.JobFailed, msg)
	if ok {
		err = r.jobs.DropSegmentAudio(context.WithoutCancel(ctx), job)
	}
	if err != nil {
		r.log.Error("jobs: marking a job failed", "job", job, "err", err)
	}
	r.stop(job)
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "job_" + hex.EncodeToString(b[:])
}
