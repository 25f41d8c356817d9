package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/server"
)

// jobFlags are the flags of long-form jobs (POST /v1/audio/jobs).
type jobFlags struct {
	off       bool
	maxInput  int
	maxJobs   int
	storage   string
	retention time.Duration
	workers   int
}

func (j *jobFlags) register(fs *flag.FlagSet, a *app) {
	fs.BoolVar(&j.off, "no-jobs", false, "do not serve long-form jobs (POST /v1/audio/jobs: a whole book in one call, docs/jobs.md)")
	fs.IntVar(&j.maxInput, "max-job-input", a.envInt("VOXKIT_MAX_JOB_INPUT", server.DefaultMaxJobInput),
		"most characters of a long-form job's text ($VOXKIT_MAX_JOB_INPUT)")
	fs.IntVar(&j.maxJobs, "max-jobs", a.envInt("VOXKIT_MAX_JOBS", server.DefaultMaxJobs),
		"most long-form jobs one account may have queued or running; more is a 429 job_limit_reached (0: no limit; $VOXKIT_MAX_JOBS)")
	fs.StringVar(&j.storage, "job-storage", a.env("VOXKIT_JOB_STORAGE", "2GiB"),
		"most audio one account's long-form jobs may hold; a job submitted past it is a 429 job_limit_reached (0: no limit; $VOXKIT_JOB_STORAGE)")
	fs.DurationVar(&j.retention, "job-retention", server.DefaultJobRetention,
		"how long a finished long-form job and its results are kept (0: forever)")
	fs.IntVar(&j.workers, "job-workers", 0, "segments of long-form jobs this server renders at once (0: one fewer than its CPUs, at least 1; 4 on a gateway, whose workers render them)")
}

// options are the server's JobOptions of the flags.
func (j *jobFlags) options() (server.JobOptions, error) {
	o := server.JobOptions{Enabled: !j.off, MaxInput: j.maxInput, MaxActive: j.maxJobs, Retention: j.retention, Workers: j.workers}
	var err error
	if o.Storage, err = onnx.ParseSize(j.storage); err != nil {
		return o, fmt.Errorf("-job-storage: %w", err)
	}
	// The flags' 0 is no limit, the Options' the default.
	if o.MaxActive == 0 {
		o.MaxActive = -1
	}
	if o.Storage == 0 {
		o.Storage = -1
	}
	if o.Retention == 0 {
		o.Retention = -1
	}
	if o.MaxInput <= 0 {
		return o, fmt.Errorf("-max-job-input must be above 0, not %d", j.maxInput)
	}
	return o, nil
}
