package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// segmentArgs is the River job of one segment.
type segmentArgs struct {
	Job string `json:"job"`
	Seq int    `json:"seq"`
}

func (segmentArgs) Kind() string { return "voxkit_job_segment" }

// finishArgs is the River job that finishes a speech job once its
// segments are done; unique by its arguments.
type finishArgs struct {
	Job string `json:"job"`
}

func (finishArgs) Kind() string { return "voxkit_job_finish" }

// expireArgs is the periodic River job that removes expired jobs.
type expireArgs struct{}

func (expireArgs) Kind() string { return "voxkit_job_expire" }

// word is a word's timing as a segment keeps it, in milliseconds from
// the segment's start (short keys: a book has many), and where it is in
// the segment's text, in characters [C, D) (absent in segments kept
// before they were: their captions show the words without punctuation).
type word struct {
	W string `json:"w"`
	S int64  `json:"s"`
	E int64  `json:"e"`
	C int    `json:"c,omitempty"`
	D int    `json:"d,omitempty"`
}

type segmentWorker struct {
	river.WorkerDefaults[segmentArgs]
	r *Runner
}

// Work renders one segment unless it is done, and keeps its audio; the
// segment that leaves none to do queues the job's finishing.
func (w *segmentWorker) Work(ctx context.Context, rj *river.Job[segmentArgs]) error {
	r, a := w.r, rj.Args
	j, err := r.jobs.Job(ctx, "", a.Job)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted
	case err != nil:
		return err
	case store.JobFinished(j.Status):
		return nil // cancelled or failed: nothing more to do
	}
	var spec Spec
	if err := json.Unmarshal(j.Spec, &spec); err != nil {
		r.fail(ctx, j.ID, "the job's request could not be read")
		return nil
	}
	seg, err := r.jobs.StartSegment(ctx, j.ID, a.Seq)
	if err != nil {
		return err
	}
	if !seg.Done {
		if done, err := w.render(ctx, j, spec, seg, rj.Attempt >= rj.MaxAttempts); !done {
			return err
		}
		if r.overStorage(ctx, j, 0) {
			return nil
		}
	}
	return r.finishIfDone(ctx, j.ID)
}

// render renders seg and keeps it. It reports whether the segment is
// done; err is for River to try again.
func (w *segmentWorker) render(ctx context.Context, j store.Job, spec Spec, seg store.JobSegment, last bool) (bool, error) {
	r, parent := w.r, ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer r.track(j.ID, cancel)()
	go r.follow(ctx, j.ID, cancel)
	prog := newProgress(seg)
	go r.report(ctx, j.ID, seg.Seq, prog)

	job, err := r.cfg.Request(spec, j.Account, seg.Text)
	if err != nil {
		r.fail(ctx, j.ID, messageOf(err))
		return false, nil
	}
	var pcm bytes.Buffer
	var words []word
	res, err := r.cfg.Speech.SpeakBackground(ctx, job, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		p.SetOnSentence(func(d tts.SentenceDone) {
			for _, wd := range d.Words {
				words = append(words, word{W: wd.Word, S: wd.Start.Milliseconds(), E: wd.End.Milliseconds(), C: wd.CharStart, D: wd.CharEnd})
			}
			prog.sentence(d)
		})
		return p.Stream(ctx, &pcm)
	})
	var werr *fault.Error
	switch {
	case err == nil:
	case parent.Err() != nil:
		return false, parent.Err() // the server stops: queued again, for the next to start
	case ctx.Err() != nil:
		return false, nil // the job ended (cancelled, deleted)
	case errors.As(err, &werr) && werr.Status < 500:
		r.fail(ctx, j.ID, werr.Message)
		return false, nil
	case last:
		r.fail(ctx, j.ID, "a segment failed to render: "+messageOf(err))
		return false, nil
	default:
		return false, err
	}
	raw, _ := json.Marshal(words)
	seg.PCM, seg.Words, seg.Rate, seg.Samples = pcm.Bytes(), raw, spec.Rate, res.Samples
	if _, err := r.jobs.FinishSegment(ctx, seg, res.Audio); err != nil {
		return false, err
	}
	return true, nil
}

// track counts a rendering of job begun here and keeps cancel for stop;
// the function it returns forgets it.
func (r *Runner) track(job string, cancel context.CancelFunc) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renders++
	key := new(int)
	if r.running[job] == nil {
		r.running[job] = map[*int]context.CancelFunc{}
	}
	r.running[job][key] = cancel
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.running[job], key)
		if len(r.running[job]) == 0 {
			delete(r.running, job)
		}
	}
}

// follow cancels a rendering once its job has ended (cancelled or
// deleted on another replica), reading its status every Config.Poll.
func (r *Runner) follow(ctx context.Context, job string, cancel context.CancelFunc) {
	every(ctx, r.cfg.Poll, func() bool {
		j, err := r.jobs.Job(ctx, "", job)
		if errors.Is(err, store.ErrNotFound) || err == nil && store.JobFinished(j.Status) {
			cancel()
			return false
		}
		return true
	})
}

// every calls f every d until ctx ends or f returns false.
func every(ctx context.Context, d time.Duration, f func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

// finishIfDone queues the job's finishing when no segment is left.
func (r *Runner) finishIfDone(ctx context.Context, job string) error {
	segs, err := r.jobs.JobSegments(ctx, job, false)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if !s.Done {
			return nil
		}
	}
	_, err = r.client.Insert(ctx, finishArgs{Job: job}, &river.InsertOpts{Queue: Queue, UniqueOpts: river.UniqueOpts{ByArgs: true}})
	return err
}

type expireWorker struct {
	river.WorkerDefaults[expireArgs]
	r *Runner
}

// Work removes the jobs finished longer than Config.Retention ago.
func (w *expireWorker) Work(ctx context.Context, _ *river.Job[expireArgs]) error {
	n, err := w.r.jobs.DeleteJobsBefore(ctx, time.Now().Add(-w.r.cfg.Retention))
	if n > 0 {
		w.r.log.Info("jobs: expired jobs removed", "jobs", n)
	}
	return err
}

// messageOf is err as a job's error: a *fault.Error's message.
func messageOf(err error) string {
	var werr *fault.Error
	if errors.As(err, &werr) {
		return werr.Message
	}
	return err.Error()
}
