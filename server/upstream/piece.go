package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// caller sends the requests of pieces and clones to one worker (a piece:
// speak, here; a clone: encodeOn, clone.go), within the limits of a
// piece, and reads the answers (read.go). A failure that says the worker
// is unwell takes it out of fleet's rotation.
type caller struct {
	fleet *fleet
	// maxAudio is Options.MaxAudio, maxBytes the most pcm a piece's
	// answer may hold; idle and piece bound the time it may take
	// (Options).
	maxAudio    time.Duration
	maxBytes    int64
	idle, piece time.Duration
}

// speak runs one request on w and emits its audio. Its errors are
// emit's, as they are, and *attemptError.
func (c *caller) speak(ctx context.Context, w *worker, body []byte, text string, emit engine.ChunkFunc) (err error) {
	w.outstanding.Add(1)
	defer w.outstanding.Add(-1)
	w.requests.Add(1)
	defer func() {
		var failed *attemptError
		if errors.As(err, &failed) && ctx.Err() == nil {
			w.errors.Add(1)
			if failed.unwell {
				c.fleet.setHealthy(w, false, err) // until its next check passes
			}
		}
	}()
	// The piece's deadlines: its whole answer within c.piece, and no
	// wait for a byte longer than c.idle.
	// (ctx stays the caller's: the deferred check above asks whether the
	// caller gave up.)
	timed, cancel := context.WithTimeoutCause(ctx, c.piece, errPieceTimeout)
	defer cancel()
	pctx, stall := context.WithCancelCause(timed)
	defer stall(nil)
	idle := time.AfterFunc(c.idle, func() { stall(errIdle) })
	defer idle.Stop()
	// Whether the worker took the request: a worker's first byte is its
	// "100 Continue", which a Go server sends as its handler starts
	// reading the body (the body itself goes out at once, without
	// waiting for it). A connection that breaks before that byte (a
	// kept-alive one the worker closed as the request went out, say) did
	// not bring the request to the worker.
	var taken atomic.Bool
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { taken.Store(true) }}
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(pctx, trace), http.MethodPost, w.url+"/v1/audio/speech", bytes.NewReader(body))
	if err != nil {
		return &attemptError{err: err, taken: true}
	}
	hreq.Header.Set("Authorization", "Bearer "+c.fleet.key)
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Expect", "100-continue")
	res, err := c.fleet.client.Do(hreq)
	if err != nil {
		err = c.late(ctx, pctx, err)
		if !taken.Load() {
			return &attemptError{err: err, unwell: true}
		}
		return c.takenFailure(err)
	}
	defer func() {
		// Read to the end, so that the connection is reused.
		io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
		res.Body.Close()
	}()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		switch {
		case res.StatusCode == http.StatusServiceUnavailable || res.StatusCode == http.StatusTooManyRequests:
			return &attemptError{err: fmt.Errorf("%w: %s: %s", errBusy, res.Status, b)}
		case res.StatusCode >= 500:
			if we := workerError(res.StatusCode, b); we != nil {
				return c.takenFailure(fmt.Errorf("upstream: worker answered %s: %w", res.Status, we))
			}
			return c.takenFailure(fmt.Errorf("upstream: worker answered %s: %s", res.Status, b))
		case res.StatusCode == http.StatusNotFound:
			return &attemptError{err: fmt.Errorf("%w %q: %w", engine.ErrUnknownVoice, w.url, &refusal{status: res.StatusCode, body: string(b)}), taken: true}
		}
		return &attemptError{err: newRefusal(res.StatusCode, b), taken: true}
	}
	r := &idleReader{r: res.Body, timer: idle, idle: c.idle}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		err = c.readPCM(r, emit)
	} else {
		err = c.readEvents(r, text, emit)
	}
	var emitted *emitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &emitted):
		return emitted.err
	}
	return c.takenFailure(c.late(ctx, pctx, err))
}

// takenFailure is the attemptError of err, a failure after the worker
// took the request. More audio than a piece may hold is the request's
// (the gateway's audio limit, tts.AudioLimitError: 400 audio_too_long,
// as on a server alone); an error the worker sent (a *fault.Error) is
// passed on to the gateway's caller as it is; anything else (a
// connection that broke, an answer that stalled or is not one) is the
// worker's failure, answered 502 (fault.WorkerFailed).
func (c *caller) takenFailure(err error) error {
	var answered *fault.Error
	switch {
	case errors.Is(err, errTooMuch):
		return &attemptError{err: fmt.Errorf("%w: %w", err, &tts.AudioLimitError{Limit: c.maxAudio}), taken: true}
	case errors.As(err, &answered):
		return &attemptError{err: err, taken: true}
	}
	return &attemptError{err: fmt.Errorf("%w: %w", err, fault.WorkerFailed()), taken: true, unwell: true}
}

// Causes of a piece that took too long.
var (
	errIdle         = errors.New("upstream: the worker sent nothing for too long")
	errPieceTimeout = errors.New("upstream: the worker's answer took too long")
)

// late names the deadline of piece, the context of a piece's request,
// that failed it, when one did; a piece failed by its caller's context
// (ctx) keeps its error.
func (c *caller) late(ctx, piece context.Context, err error) error {
	if err == nil || ctx.Err() != nil || piece.Err() == nil {
		return err
	}
	switch cause := context.Cause(piece); cause {
	case errIdle:
		return fmt.Errorf("%w (%v): %w", errIdle, c.idle, err)
	case errPieceTimeout:
		return fmt.Errorf("%w (%v): %w", errPieceTimeout, c.piece, err)
	}
	return err
}

// idleReader restarts a piece's idle timer at every read that brings
// bytes.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

func (r *idleReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}
