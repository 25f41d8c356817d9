package core

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// DefaultBufferDelay is how long text of an input stream that does not
// end a sentence waits for more before it is spoken, when the client
// names no delay (voxkit's max_buffer_delay_ms, Cartesia's).
const DefaultBufferDelay = 3 * time.Second

// DefaultStreamIdle is how long an input stream of voxkit's socket may
// go without input before it is closed with an idle_timeout error; a
// shorter socket idle time shortens it.
const DefaultStreamIdle = time.Minute

// Op is one message of an input stream, as its door read it.
type Op struct {
	Text  string // text to add; "" adds none
	Flush bool   // speak what waits now
	// Trigger speaks what waits if it is at least the chunk schedule's
	// first length (ElevenLabs' try_trigger_generation).
	Trigger bool
	End     bool // the input is complete: speak the rest and end
	// Ref is the door's own, handed back to StreamJob.Flushed (a flush
	// id to echo).
	Ref any
}

// StreamJob is an input stream: a Job whose text arrives in Ops.
type StreamJob struct {
	Job
	// Delay is how long text without a sentence end waits for more
	// before it is spoken; 0 speaks it with each Op, negative never
	// (it waits for a sentence end, the schedule, a flush or the end).
	Delay time.Duration
	// Schedule speaks waiting text once it has Schedule[n] characters,
	// the n-th time (the last length for the rest): ElevenLabs'
	// chunk_length_schedule. nil: none.
	Schedule []int
	// Idle ends a stream that has had no Op for that long with an
	// idle_timeout error (after speaking its text so far); 0: never.
	Idle time.Duration
	// Recheck checks the caller's credentials again before a flush and
	// the end; its refusal ends the stream with that error. nil: none.
	Recheck func(context.Context) *fault.Error
	// Text, if set, sees each Op's text as the stream takes it (for the
	// door's alignment of the input).
	Text func(string)
	// Flushed, if set, is called once the audio of the text before a
	// flush Op has been written (voxkit's flush.done, Cartesia's
	// flush_done).
	Flushed func(Op) error
	// Codec, if set, is handed the codec of the job's format before any
	// audio is written, for a door that names its content type first.
	Codec func(encode.Codec)
}

// Input is an input stream under way: Open admits and starts it, Run
// feeds it until it ends.
type Input struct {
	c   *Core
	job StreamJob
	ts  *tts.TextStream
	end func()
	ctx context.Context

	idle *time.Timer // Run's, reset by each Op
	part int         // the schedule's entry in force
}

// Open admits job (AdmitSpeech) and starts it — the lexicons it names
// are read once it is admitted — its audio going to w as
// tts.Synthesizer.StreamText writes it; ctx ends it (a cancel, the
// socket gone). Its error is a *fault.Error.
func (c *Core) Open(ctx context.Context, job StreamJob, w io.Writer) (*Input, error) {
	if job.Start.IsZero() {
		job.Start = time.Now()
	}
	// The speed the client sent, then the format, as the doors checked
	// them before the core owned them: their errors come before the
	// lexicons' and admission's.
	if werr := job.speed(); werr != nil {
		return nil, werr
	}
	codec, err := c.Synth.Codec(job.Request.Format)
	if err != nil {
		return nil, job.toError(err)
	}
	if job.Codec != nil {
		job.Codec(codec)
	}
	named, werr := c.Lexicons.Named(ctx, job.Request.Account, job.Lexicons, job.Request)
	if werr != nil {
		return nil, werr
	}
	end, werr := c.AdmitSpeech(ctx, job.Request.Account)
	if werr != nil {
		return nil, werr
	}
	if werr := job.load(ctx, c, named); werr != nil {
		end()
		return nil, werr
	}
	job.Request.LoadGate = c.loadGate(ctx, job.Request.Account)
	ts, err := c.Synth.StreamText(ctx, w, job.Request)
	if err != nil {
		end()
		return nil, c.failed(ctx, &job.Job, err)
	}
	return &Input{c: c, job: job, ts: ts, end: sync.OnceFunc(end), ctx: ctx}, nil
}

// Written is the number of characters the stream has taken.
func (in *Input) Written() int { return in.ts.Written() }

// Run takes the Ops of q until an End, and returns the stream's result
// once its audio is written, the speech counted. At shutdown it speaks
// the text it has, then ends as at an End. Its error is ErrGone when the stream's
// context ended (nothing more is said), or a *fault.Error to tell the
// client: a failed synthesis (logged and counted), refused credentials
// (Recheck's error), idle_timeout.
func (in *Input) Run(q *Queue) (tts.Result, error) {
	var idle <-chan time.Time
	if in.job.Idle > 0 {
		t := time.NewTimer(in.job.Idle)
		defer t.Stop()
		idle = t.C
		in.idle = t
	}
	var wait *time.Timer // armed while text waits for its sentence's end
	var buffered <-chan time.Time
	defer func() {
		if wait != nil {
			wait.Stop()
		}
	}()
	for {
		select {
		case <-q.wake:
			if done, err := in.takeAll(q); done || err != nil {
				return in.Finish(err)
			}
		case <-buffered:
			wait, buffered = nil, nil
			if err := in.ts.Flush(); err != nil {
				return in.Finish(err)
			}
		case <-idle:
			res, err := in.Finish(nil)
			if err != nil {
				return res, err
			}
			return res, fault.IdleTimeout(in.job.Idle)
		case <-in.c.closing.Done():
			_, err := in.takeAll(q) // sent before shutdown: spoken too
			return in.Finish(err)
		case <-in.ctx.Done():
			return in.Finish(ErrGone)
		}
		switch waiting := in.ts.Buffered() > 0; {
		case in.job.Delay < 0:
		case waiting && wait == nil:
			wait = time.NewTimer(in.job.Delay)
			buffered = wait.C
		case !waiting && wait != nil:
			wait.Stop()
			wait, buffered = nil, nil
		}
	}
}

// takeAll takes the Ops waiting in q, up to an End (done); it stops
// with ErrGone once the stream's context has ended, its client gone.
func (in *Input) takeAll(q *Queue) (done bool, err error) {
	for _, op := range q.take() {
		if in.ctx.Err() != nil {
			return false, ErrGone
		}
		if done, err := in.Take(op); done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// Take adds op to the stream; done says it was the End (then Finish).
// A door that reads its client's messages itself, one at a time, calls
// Take and Finish instead of Run.
func (in *Input) Take(op Op) (done bool, err error) {
	if in.idle != nil { // the idle time counts from the end of op's work
		defer in.idle.Reset(in.job.Idle)
	}
	flush := op.Flush || in.job.Delay == 0
	if op.Text != "" {
		if in.job.Text != nil {
			in.job.Text(op.Text)
		}
		if _, err := in.ts.WriteString(op.Text); err != nil {
			return false, err
		}
		if s := in.job.Schedule; len(s) > 0 {
			if n := in.ts.Buffered(); n >= s[min(in.part, len(s)-1)] || op.Trigger && n >= s[0] {
				flush = true
				in.part++
			}
		}
	}
	if (op.End || op.Flush) && in.job.Recheck != nil {
		if werr := in.job.Recheck(in.ctx); werr != nil {
			return false, werr
		}
	}
	if op.End {
		return true, nil
	}
	if flush {
		if err := in.ts.Flush(); err != nil {
			return false, err
		}
	}
	if op.Flush && in.job.Flushed != nil {
		return false, in.job.Flushed(op)
	}
	return false, nil
}

// Finish ends the stream: with err nil, its rest spoken and the speech
// counted; otherwise dropped, and err told as Run tells it.
func (in *Input) Finish(err error) (tts.Result, error) {
	defer in.end()
	if err != nil {
		in.ts.Close()
		var werr *fault.Error
		switch {
		case errors.Is(err, ErrGone) || in.ctx.Err() != nil:
			return tts.Result{}, ErrGone
		case errors.As(err, &werr):
			return tts.Result{}, werr // refused: the stream's own doing, not a failure
		}
		return tts.Result{}, in.c.failed(in.ctx, &in.job.Job, err)
	}
	res, err := in.ts.Close()
	if err != nil {
		return res, in.c.failed(in.ctx, &in.job.Job, err)
	}
	in.c.counted(in.job.Job, res)
	return res, nil
}
