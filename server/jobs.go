package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// JobOptions configure long-form jobs: POST /v1/audio/jobs and the
// routes under it (docs/jobs.md), run on a job queue (River) in the
// Store's database. Zero values of the fields take the Default
// constants.
type JobOptions struct {
	// Enabled serves the jobs API. It needs a Store that keeps jobs and
	// a queue (server/store/sqlite and server/store/postgres do): with
	// another, New fails.
	Enabled bool
	// MaxInput is the most characters of a job's text; 0 means
	// DefaultMaxJobInput.
	MaxInput int
	// MaxActive is the most jobs one account may have queued or running;
	// 0 means DefaultMaxJobs, negative no limit. One more is a 429
	// job_limit_reached.
	MaxActive int
	// Storage is the most bytes of audio one account's jobs may hold
	// (their segments' and results'); a job submitted past it is a 429
	// job_limit_reached, and a job whose segments take the account past
	// it while it renders, or whose results do once encoded, fails
	// (storage_exceeded), its audio removed.
	// 0 means DefaultJobStorage, negative no limit.
	Storage int64
	// Retention is how long a finished job and its results are kept;
	// 0 means DefaultJobRetention, negative forever.
	Retention time.Duration
	// Workers is how many segments this server renders at once; 0 means
	// one fewer than the CPUs Go uses (at least one), so that a core is
	// left for interactive speech, or on a gateway (Options.Gateway)
	// DefaultGatewayJobWorkers: its segments render on its workers, not
	// its own cores.
	Workers int
	// MaxSegment is the most characters of a segment; 0 means about five
	// minutes of speech (runner.DefaultMaxSegment), within the
	// Synthesizer's MaxInput and less where its MaxAudio is below
	// tts.DefaultMaxAudio, in proportion. Slow speech cuts shorter ones.
	MaxSegment int
	// RescueAfter is River's RescueStuckJobsAfter; 0 means
	// runner.DefaultRescueAfter (15 minutes). River's rescuer leaves
	// segments alone (they have no timeout): a killed server's segments
	// are freed by the runners' heartbeats (docs/jobs.md).
	RescueAfter time.Duration
	// Poll is how often the queue and a job's status are read; 0 means
	// half a second.
	Poll time.Duration
}

// Defaults of JobOptions.
const (
	DefaultMaxJobInput  = 2_000_000
	DefaultMaxJobs      = 4
	DefaultJobStorage   = 2 << 30 // 2 GiB
	DefaultJobRetention = 7 * 24 * time.Hour
	// DefaultGatewayJobWorkers is JobOptions.Workers of a gateway when
	// it is 0: half of one worker's render slots at the gateway
	// (upstream.DefaultSlotsPerWorker, 8). A segment holds one render
	// slot at a time (SpeakBackground renders no sentence ahead), a
	// piece sent to the least busy worker, so segments spread over the
	// fleet, and even a fleet of one worker keeps half its slots for
	// interactive speech; past the slots a segment waits for one, as the
	// gateway's slots follow its workers. A larger fleet sets
	// -job-workers to use more of it.
	DefaultGatewayJobWorkers = 4
)

// mountJobs mounts the jobs door when opts asks for it.
func (s *Server) mountJobs(opts Options) error {
	o := opts.Jobs
	if !o.Enabled {
		return nil
	}
	if opts.Store == nil {
		return errors.New("server: Options.Jobs needs a Store")
	}
	c := s.core
	limits := store.JobLimits{Active: max(0, cmp.Or(o.MaxActive, DefaultMaxJobs)), Bytes: max(0, cmp.Or(o.Storage, DefaultJobStorage))}
	retention := max(0, cmp.Or(o.Retention, DefaultJobRetention))
	maxSegment := o.MaxSegment
	if maxSegment <= 0 {
		maxSegment = min(runner.DefaultMaxSegment, c.Synth.MaxInput()*9/10,
			int(float64(runner.DefaultMaxSegment)*c.Synth.MaxAudio().Seconds()/tts.DefaultMaxAudio.Seconds()))
	}
	workers := o.Workers
	switch {
	case workers > 0:
	case opts.Gateway:
		workers = DefaultGatewayJobWorkers
	default:
		workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	run, err := jobs.Mount(context.Background(), s.mux, jobs.Rooms{Speech: c, Auth: c.Auth, Voices: c.Catalog, Store: c.Store,
		Formats: c.Synth.Formats(), DefaultFormat: c.DefaultFormat, Log: c.Log, Body: c.Body, WriteTimeout: c.WriteTimeout},
		jobs.Options{MaxInput: cmp.Or(o.MaxInput, DefaultMaxJobInput), Limits: limits, Retention: retention, Workers: workers,
			MaxSegment: maxSegment, RescueAfter: o.RescueAfter, Poll: o.Poll})
	if err != nil {
		return err
	}
	s.jobs = run
	if opts.Metrics != nil {
		for _, m := range run.Collectors() {
			if err := opts.Metrics.Register(m); err != nil {
				run.Stop(context.Background())
				return fmt.Errorf("server: registering the jobs' metrics: %w", err)
			}
		}
	}
	return nil
}
