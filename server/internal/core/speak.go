package core

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/tts"
)

// Timing headers of audio responses.
const (
	HeaderUpstream = "x-upstream-ms"
	HeaderEngine   = "x-engine-ms"
	HeaderGateway  = "x-gateway-ms"
	// HeaderVoiceLoad is the part of x-engine-ms spent loading a cold
	// voice (tts.Result.VoiceLoad); absent when no voice was loaded.
	HeaderVoiceLoad = "x-voice-load-ms"
	HeaderIgnored   = "x-ignored-tags"
	HeaderClamped   = "x-clamped-tags"
	// StreamTrailers are declared by streamed responses and sent at the
	// end.
	StreamTrailers = HeaderUpstream + ", " + HeaderEngine + ", " + HeaderGateway + ", " + HeaderVoiceLoad + ", " + HeaderIgnored + ", " + HeaderClamped
)

// ErrGone is what Speak and Input.Run return when the caller's context
// ended first (the client went away, the socket or its context ended):
// there is nobody to answer.
var ErrGone = errors.New("server: the client is gone")

// Out is where a job's audio goes, as the core sees it: respond.Lazy
// and the OpenAI door's SSE writer are Outs.
type Out interface {
	// Started reports whether any of the answer has gone out, so that
	// an error can no longer be the answer.
	Started() bool
	// Sending is the time writes to the client took so far; it is not
	// counted as the server's.
	Sending() time.Duration
}

// Speaker is what a door that speaks without HTTP (Wyoming's) asks of
// the core: a whole input (Speak), an input stream (Open), and when the
// server shuts down (Closing).
type Speaker interface {
	Closing() context.Context
	Speak(ctx context.Context, job Job, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) (tts.Result, error)
	Open(ctx context.Context, job StreamJob, w io.Writer) (*Input, error)
}

var _ Speaker = (*Core)(nil)

// Job is one speech request with its whole input.
type Job struct {
	// Request is what to synthesize, its voice's alias resolved
	// (catalog.Catalog.Resolve), or its voice looked up already
	// (tts.Request.Resolved: Speak looks it up no more).
	Request tts.Request
	// Speed is the speed the client sent, in its door's field; nil when
	// it sent none. The core checks it (tts.CheckSpeed: a speed sent as
	// 0 is out of range, not the default) for every door, which only
	// words the error (fault.Error.Err is the *tts.SpeedError), and makes
	// it Request.Speed.
	Speed *float64
	// Voice is the voice as the client named it, for its errors.
	Voice string
	// Field is the client's name of the text field, which errors about
	// the text name ("text", "transcript"); "" is "input".
	Field string
	// Start is when the request arrived; the gateway time counts from
	// it. Zero: when Speak is called.
	Start time.Time
	// Out, if set, says whether the answer has begun and how long
	// sending took.
	Out Out
	Log *slog.Logger // nil: the core's
	// Prepared, if set, is called once the request is prepared (see
	// Speak), or when it passed its checks and admission refused it.
	Prepared func()
	// Lexicons are the account's lexicons the client named; nil: the
	// account's default lexicons (lexicons.Library.Lexicons).
	Lexicons []lexicons.LexiconRef
	// Admitted marks work the server admitted earlier (a long-form job's
	// segment): see SpeakBackground.
	Admitted bool
}

// check runs the checks of a request that cost little, before it is
// admitted: the speed the client sent (speed), the lexicons it names
// (which it reads none of yet) and tts.Synthesizer.Checked, which resolves
// the voice for the rest of the job. It returns the lexicons for load.
func (j *Job) check(ctx context.Context, c *Core) ([]lexicons.Named, *fault.Error) {
	if werr := j.speed(); werr != nil {
		return nil, werr
	}
	named, werr := c.Lexicons.Named(ctx, j.Request.Account, j.Lexicons, j.Request)
	if werr != nil {
		return nil, werr
	}
	req, err := c.Synth.Checked(j.Request)
	if err != nil {
		return nil, j.toError(err)
	}
	j.Request = req
	return named, nil
}

// speed checks the speed the client sent (Job.Speed) and makes it the
// request's: the one place every door's speed is checked.
func (j *Job) speed() *fault.Error {
	if j.Speed == nil {
		return nil
	}
	if err := tts.CheckSpeed(*j.Speed); err != nil {
		return j.toError(err)
	}
	j.Request.Speed = *j.Speed
	return nil
}

// load reads and parses the lexicons check found (once the job is
// admitted), and sets them as the request's.
func (j *Job) load(ctx context.Context, c *Core, named []lexicons.Named) *fault.Error {
	ls, werr := c.Lexicons.Load(ctx, j.Request.Account, named)
	if werr != nil {
		return werr
	}
	j.Request.Lexicons = ls
	return nil
}

// toError is err as the error the job's client is told.
func (j *Job) toError(err error) *fault.Error {
	return fault.ToErrorOf(err, j.Voice, cmp.Or(j.Field, "input"))
}

func (j *Job) log(c *Core) *slog.Logger {
	if j.Log != nil {
		return j.Log
	}
	return c.Log
}

// Speak checks job (what costs little: see Job.check), admits it
// (AdmitSpeech), prepares it (its lexicons read, its SSML, lexicons and
// tags applied: the work a refused request is spared) and runs speak,
// which streams the prepared request to the door's writer; then it
// counts the speech in the metrics. It returns speak's result, or: a
// *fault.Error for the door to answer in its shape (a failed synthesis
// logged and counted once), or ErrGone when ctx ended first.
func (c *Core) Speak(ctx context.Context, job Job, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) (tts.Result, error) {
	if job.Start.IsZero() {
		job.Start = time.Now()
	}
	named, werr := job.check(ctx, c)
	if werr != nil {
		return tts.Result{}, werr
	}
	end, werr := c.admitJob(ctx, job)
	if werr != nil {
		if job.Prepared != nil {
			job.Prepared()
		}
		return tts.Result{}, werr
	}
	defer end()
	if werr := job.load(ctx, c, named); werr != nil {
		if ctx.Err() != nil {
			return tts.Result{}, ErrGone
		}
		return tts.Result{}, werr
	}
	job.Request.LoadGate = c.loadGate(ctx, job.Request.Account)
	job.Request.AccountSlots = c.accountSlots(job) // rendering ahead stays within them
	p, err := c.Synth.Prepare(job.Request)
	if err != nil {
		return tts.Result{}, job.toError(err)
	}
	codec, err := c.Synth.Codec(job.Request.Format)
	if err != nil {
		return tts.Result{}, job.toError(err)
	}
	if job.Prepared != nil {
		job.Prepared()
	}
	res, err := speak(p, codec)
	if err != nil {
		return res, c.failed(ctx, &job, err)
	}
	c.counted(job, res)
	return res, nil
}

// counted counts a finished job in the metrics.
func (c *Core) counted(job Job, res tts.Result) {
	gateway := time.Since(job.Start)
	if job.Out != nil {
		gateway -= job.Out.Sending()
	}
	res.SynthesisTime = c.UpstreamTime(res)
	c.metrics.speech(job.Request.Format.Name, res, gateway)
}

// failed is the one account of a synthesis that failed: ErrGone when
// ctx ended, else the cause logged (at error level unless it is an API
// error, the request's own doing) and counted, and the error to answer.
func (c *Core) failed(ctx context.Context, job *Job, err error) error {
	log := job.log(c).With("voice", job.Voice)
	if ctx.Err() != nil {
		log.Info("server: client went away during synthesis", "err", err)
		return ErrGone
	}
	var werr *fault.Error
	switch {
	case errors.As(err, &werr) && werr.Code == fault.CodeEngineCrashed: // a worker's
		c.engineCrashed(ctx, log, job.Request.Account, err)
	case errors.As(err, &werr):
		log.Info("server: speech refused", "err", err)
	case errors.Is(err, engine.ErrCrashed):
		c.engineCrashed(ctx, log, job.Request.Account, err)
		werr = job.toError(err)
	default:
		log.Error("server: synthesis failed", "err", err)
		werr = job.toError(err)
	}
	c.metrics.failed(werr)
	return werr
}

// SpeakHTTP is Speak for an HTTP door: the job arrived with r, its
// format is r's in the access log and metrics, and a synthesis that
// fails once the answer has begun cuts it short — or, when late is set,
// is reported by late in the answer (an SSE error event). The error it
// returns is for the door to answer, nil when there is nothing to answer.
func (c *Core) SpeakHTTP(r *http.Request, job Job, late func(*fault.Error), speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *fault.Error {
	ri := route.Info(r.Context())
	job.Prepared = func() { ri.Format = job.Request.Format.Name }
	job.Start = ri.Start
	job.Log = job.log(c).With("request_id", ri.ID)
	_, err := c.Speak(r.Context(), job, speak)
	var werr *fault.Error
	switch {
	case err == nil || errors.Is(err, ErrGone):
		return nil
	case !errors.As(err, &werr):
		panic("server: Speak returned " + err.Error())
	case job.Out != nil && job.Out.Started() && late != nil:
		late(werr)
		return nil
	case job.Out != nil && job.Out.Started():
		panic(http.ErrAbortHandler) // cut the response: it stops short
	}
	return werr
}

// Lazy is a writer of w's answer that starts it (start sets the headers
// and status) at the first byte, and gives each write the server's
// write timeout, so a client that stops reading is cut off.
func (c *Core) Lazy(w http.ResponseWriter, start func()) *respond.Lazy {
	return respond.NewLazy(w, c.WriteTimeout, start)
}

// SetTiming sets the timing and tag headers (or trailers) of an answer
// from res, for a request that arrived at start; sending is the time
// writes to the client took so far, left out of x-gateway-ms.
func (c *Core) SetTiming(h http.Header, res tts.Result, start time.Time, sending time.Duration) {
	h.Set(HeaderUpstream, route.MS(c.UpstreamTime(res)))
	h.Set(HeaderEngine, route.MS(res.EngineTime))
	if res.VoiceLoad > 0 {
		h.Set(HeaderVoiceLoad, route.MS(res.VoiceLoad))
	}
	if len(res.IgnoredTags) > 0 {
		h.Set(HeaderIgnored, strings.Join(res.IgnoredTags, ","))
	}
	if len(res.ClampedTags) > 0 {
		h.Set(HeaderClamped, strings.Join(res.ClampedTags, ","))
	}
	h.Set(HeaderGateway, route.MS(time.Since(start)-sending))
}

// UpstreamTime is the x-upstream-ms of res: its synthesis time, or for a
// gateway the workers' time (Config.Gateway).
func (c *Core) UpstreamTime(res tts.Result) time.Duration {
	if c.Gateway {
		return res.EngineTime
	}
	return res.SynthesisTime
}
