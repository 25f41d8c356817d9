// Package jobs is the server's door for long-form speech, voxkit's own
// API beside OpenAI's: POST /v1/audio/jobs takes a whole text (or its
// chapters) and answers 202 with a job, which package runner renders in
// segments on the job queue; GET lists, reads and follows jobs (server-
// sent events), DELETE cancels a running job or deletes a finished one,
// and the results are served with Range: the whole audio, each chapter's,
// captions (SRT, WebVTT) and word timings. Everything is the account's:
// another account's job is 404, as one that does not exist.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/voices"
)

// Rooms are what the door uses of the core and the rooms.
type Rooms struct {
	Speech runner.Speech
	Auth   Auth
	Voices Voices
	// Store holds the jobs (store.Jobs) and the queue (see runner.Config).
	Store   store.Store
	Formats *encode.Registry
	// DefaultFormat is the response_format of a request naming none.
	DefaultFormat string
	Log           *slog.Logger
	Body          route.Body
	WriteTimeout  time.Duration
}

// Auth is what the door asks of the credentials room.
type Auth interface {
	Authed(need store.Scope, h route.Handler) route.Handler
}

// Voices is what the door asks of the catalog room.
type Voices interface {
	Voice(account, name string) (voices.Voice, *fault.Error)
	Resolve(account, name string) string
}

// Options are the door's limits.
type Options struct {
	// MaxInput is the most characters of a job's text.
	MaxInput int
	// Limits bound each account's jobs (queued or running) and the audio
	// they hold.
	Limits store.JobLimits
	// Retention is how long a finished job is kept; 0 forever.
	Retention time.Duration
	// Workers is how many segments render at once on this server.
	Workers int
	// MaxSegment is the most characters of a segment.
	MaxSegment int
	// RescueAfter and Poll are runner.Config's.
	RescueAfter, Poll time.Duration
}

type door struct {
	Rooms
	Options
	run *runner.Runner
}

// Mount makes the runner, registers the door's routes on mux and
// starts the runner; stop it with the Runner's Stop.
func Mount(ctx context.Context, mux *http.ServeMux, rooms Rooms, opts Options) (*runner.Runner, error) {
	d := &door{Rooms: rooms, Options: opts}
	var err error
	d.run, err = runner.New(ctx, runner.Config{Store: rooms.Store, Speech: rooms.Speech, Request: d.request, Read: d.read, Storage: opts.Limits.Bytes, Formats: rooms.Formats,
		Workers: opts.Workers, MaxSegment: opts.MaxSegment, Retention: opts.Retention, RescueAfter: opts.RescueAfter, Poll: opts.Poll, Log: rooms.Log})
	if err != nil {
		return nil, err
	}
	authed := func(h route.Handler) route.Handler { return rooms.Auth.Authed(store.ScopeSpeech, h) }
	handle := func(path string, m route.Methods) { route.Route(mux, rooms.Log, path, m) }
	handle("/v1/audio/jobs", route.Methods{http.MethodPost: authed(d.submit), http.MethodGet: authed(d.list)})
	handle("/v1/audio/jobs/{id}", route.Methods{http.MethodGet: authed(d.get), http.MethodDelete: authed(d.remove)})
	handle("/v1/audio/jobs/{id}/events", route.Methods{http.MethodGet: authed(d.events)})
	handle("/v1/audio/jobs/{id}/audio", route.Methods{http.MethodGet: authed(d.file(runner.FileAudio))})
	handle("/v1/audio/jobs/{id}/chapters/{n}/audio", route.Methods{http.MethodGet: authed(d.file(""))})
	handle("/v1/audio/jobs/{id}/captions.srt", route.Methods{http.MethodGet: authed(d.file(runner.FileSRT))})
	handle("/v1/audio/jobs/{id}/captions.vtt", route.Methods{http.MethodGet: authed(d.file(runner.FileVTT))})
	handle("/v1/audio/jobs/{id}/timestamps.json", route.Methods{http.MethodGet: authed(d.file(runner.FileTimestamps))})
	if err := d.run.Start(ctx); err != nil {
		return nil, fmt.Errorf("jobs: starting the queue: %w", err)
	}
	return d.run, nil
}

// jobs is the store's jobs.
func (d *door) jobs() store.Jobs { return d.Store.(store.Jobs) }

// submit answers POST /v1/audio/jobs: 202 and the job.
func (d *door) submit(w http.ResponseWriter, r *http.Request) error {
	max := int64(d.MaxInput)*6 + 1<<16 // each character a JSON escape (\u00e9)
	var body []byte
	var werr *fault.Error
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		body, werr = d.uploaded(w, r, max)
	} else {
		body, werr = d.Body.ReadBodyOf(w, r, max, "application/json")
	}
	if werr != nil {
		return werr
	}
	account := route.Info(r.Context()).Account
	sub, werr := d.parseJob(body, account)
	if werr != nil {
		return werr
	}
	j, err := d.run.Submit(r.Context(), account, sub.spec, sub.chapters, d.Limits)
	if errors.Is(err, store.ErrLimit) {
		return &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeRateLimit, Code: CodeJobLimit,
			Message: fmt.Sprintf("Job limit reached: an account may have %d jobs queued or running (-max-jobs) and %d bytes of job audio stored (-job-storage); wait for a job to end, or delete finished ones.",
				d.Limits.Active, d.Limits.Bytes)}
	}
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusAccepted, objectOf(j))
	return nil
}

// CodeJobLimit is the error code of a job over the account's limits.
const CodeJobLimit = "job_limit_reached"

// list answers GET /v1/audio/jobs?limit=N&after=ID: the account's jobs,
// newest first.
func (d *door) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return fault.BadRequest(fault.CodeInvalidValue, "limit", "limit must be a whole number from 1 to 100.")
		}
		limit = n
	}
	js, err := d.jobs().ListJobs(r.Context(), route.Info(r.Context()).Account, q.Get("after"), limit+1)
	if err != nil {
		return err
	}
	l := List{Object: "list", Data: []Job{}}
	for i, j := range js {
		if i == limit {
			l.HasMore = true
			break
		}
		l.Data = append(l.Data, objectOf(j))
	}
	if n := len(l.Data); n > 0 {
		l.FirstID, l.LastID = l.Data[0].ID, l.Data[n-1].ID
	}
	respond.WriteJSON(w, http.StatusOK, l)
	return nil
}

// job is the caller's job of the request's path, or a 404.
func (d *door) job(r *http.Request) (store.Job, error) {
	id := r.PathValue("id")
	j, err := d.jobs().Job(r.Context(), route.Info(r.Context()).Account, id)
	if errors.Is(err, store.ErrNotFound) {
		return j, notFound(id)
	}
	return j, err
}

func notFound(id string) *fault.Error {
	return &fault.Error{Status: http.StatusNotFound, Type: fault.TypeInvalidRequest, Code: fault.CodeNotFound, Param: "id",
		Message: fmt.Sprintf("No job %s.", fault.Echo(id))}
}

func (d *door) get(w http.ResponseWriter, r *http.Request) error {
	j, err := d.job(r)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusOK, objectOf(j))
	return nil
}

// remove answers DELETE: a queued or running job is cancelled (its work
// stops at once) and answered as it is then; a finished one is deleted
// with its audio.
func (d *door) remove(w http.ResponseWriter, r *http.Request) error {
	j, err := d.job(r)
	if err != nil {
		return err
	}
	if !store.JobFinished(j.Status) {
		if _, err := d.run.Cancel(r.Context(), j.ID); err != nil {
			return err
		}
		if j, err = d.job(r); err != nil {
			return err
		}
		if !store.JobFinished(j.Status) {
			return fmt.Errorf("jobs: job %s still %s after its cancel", j.ID, j.Status)
		}
		respond.WriteJSON(w, http.StatusOK, objectOf(j))
		return nil
	}
	if err := d.jobs().DeleteJob(r.Context(), j.Account, j.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound(j.ID)
		}
		return err
	}
	respond.WriteJSON(w, http.StatusOK, Deleted{ID: j.ID, Object: "audio.job.deleted", Deleted: true})
	return nil
}
