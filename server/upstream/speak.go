package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
)

// Synthesize implements engine.Engine: req.Text spoken by a worker. A
// piece goes to another worker only when the worker asked did not take
// it (an attemptError says which).
func (p *Pool) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	// The gateway's own synthesizer has normalized the text already.
	sp := wire.Speech{Model: "tts-1", Voice: req.Voice, Input: req.Text, Format: "pcm", Normalize: false, InputFormat: wire.InputText,
		Speed: max(tags.MinRate, min(tags.MaxRate, req.Prosody.RateOrDefault())), Seed: req.Seed}
	if req.Phonemes != "" {
		sp.Input = phonemeTag(req.Phonemes, req.Text)
	}
	if req.Words {
		// Words come as SSE events beside the audio; without them the
		// audio comes bare, which costs less on both sides.
		sp.StreamFormat, sp.Timestamps = wire.StreamSSE, wire.TimestampsWord
	}
	cl, voice, err := p.clones.voice(ctx, req.Voice)
	if err != nil {
		return err
	}
	if cl != nil {
		sp.Voice = voice
	}
	var tried []*worker
	var last error
	for {
		w := p.fleet.pick(sp.Voice, tried)
		if w == nil {
			answer := fault.NoWorker(req.Voice, p.fleet.every)
			if len(tried) > 0 {
				return fmt.Errorf("%w %q: %d tried, the last: %v: %w", ErrNoWorker, req.Voice, len(tried), last, answer)
			}
			return fmt.Errorf("%w %q: %w", ErrNoWorker, req.Voice, answer)
		}
		tried = append(tried, w)
		err := p.speakOn(ctx, w, sp, cl, emit)
		var failed *attemptError
		var answered *fault.Error
		switch {
		case err == nil:
			w.spokeWith(sp.Voice)
			return ctx.Err()
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.As(err, &failed):
			return err // the caller's own failure (emit's), as it is
		case failed.taken:
			if failed.unwell || errors.As(err, &answered) && answered.Status >= 500 {
				p.fleet.log.Warn("upstream: the worker failed a piece it had taken; not sent to another", "worker", w.url, "voice", req.Voice, "err", err)
			}
			return err
		}
		last = err
		p.fleet.log.Warn("upstream: retrying on another worker", "worker", w.url, "voice", req.Voice, "err", err)
	}
}

// speakOn runs the piece sp on w (see speak). The piece of a clone (cl,
// nil for other voices) goes with its sample (read if need be: sampleOf)
// when w has not spoken it lately, and without it otherwise, then again
// with it if w no longer holds it (409 voice_sample_needed).
func (p *Pool) speakOn(ctx context.Context, w *worker, sp wire.Speech, cl *clone, emit engine.ChunkFunc) error {
	send := func(withSample bool) error {
		if withSample {
			sample, voice, err := p.clones.sampleOf(ctx, cl)
			if err != nil {
				return err
			}
			sp.Voice, sp.VoiceSample = voice, sample
		}
		body, _ := json.Marshal(sp)
		err := p.caller.speak(ctx, w, body, sp.Input, emit)
		var refused *refusal
		if withSample && errors.As(err, &refused) && (refused.status == http.StatusUnauthorized || refused.status == http.StatusForbidden) {
			return fmt.Errorf("%w: %w", err, fault.GatewayScopeNeeded())
		}
		return err
	}
	if cl == nil {
		return send(false)
	}
	w.mu.Lock()
	warm := w.warm(sp.Voice)
	w.mu.Unlock()
	if !warm {
		return send(true)
	}
	err := send(false)
	var answered *fault.Error
	if errors.As(err, &answered) && answered.Code == fault.CodeSampleNeeded {
		return send(true)
	}
	return err
}

// attemptError is a piece's failure on one worker.
type attemptError struct {
	err error
	// taken is whether the worker had the request when it failed (it
	// had begun to answer: see speak). Then no other worker is asked:
	// the request itself may be what failed (a text that crashes the
	// engine), and one such request must not take every worker down in
	// turn. A connection that could not be made, or broke before the
	// worker's first byte, and a 503 or 429 (not ready, busy) are not
	// taken.
	taken bool
	// unwell is whether the failure says the worker is unwell (its
	// connection failed, broke or stalled, or it sent what is not an
	// answer): it is out of rotation until its next check passes. A
	// worker's answer, whatever its status, and more audio than the
	// gateway's limit do not say so.
	unwell bool
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// errBusy is a worker's 503 or 429: try another, but it is not broken.
var errBusy = errors.New("upstream: worker busy")

// emitError is an error of the emit function: the caller's own (its
// audio limit, a client gone), returned as it is.
type emitError struct{ err error }

func (e *emitError) Error() string { return "upstream: emit: " + e.err.Error() }
func (e *emitError) Unwrap() error { return e.err }

// refusal is a worker's 4xx answer.
type refusal struct {
	status int
	body   string
	// client is the worker's error when it judged the request itself (a
	// 400, 409, 413 or 422: its audio limit, a sample it lacks, say), which the gateway answers
	// as its own; nil for a refusal of the gateway (401, 403), which is
	// the gateway's failure, not its caller's.
	client *fault.Error
}

func (r *refusal) Error() string {
	return fmt.Sprintf("upstream: worker answered %d: %s", r.status, r.body)
}

func (r *refusal) Unwrap() error {
	if r.client == nil {
		return nil
	}
	return r.client
}

// newRefusal reads a worker's 4xx answer.
func newRefusal(status int, body []byte) *refusal {
	r := &refusal{status: status, body: string(body)}
	switch status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		r.client = workerError(status, body)
	}
	return r
}

// workerError reads body, an error a worker sent, as the gateway's
// answer with status; nil when body is not an OpenAI-shaped error.
func workerError(status int, body []byte) *fault.Error {
	var we fault.Error
	if json.Unmarshal(body, &we) != nil || we.Message == "" {
		return nil
	}
	we.Status = status
	return &we
}

// phonemeTag is text said as the IPA phonemes, as a worker's input: a
// phoneme tag around the text. A "|" (IPA's foot-group mark, which no
// engine says) is left out of the IPA, where it could end the tag.
func phonemeTag(phonemes, text string) string {
	return "<|phoneme:" + strings.ReplaceAll(phonemes, "|", "") + "|>" + text + "<|/phoneme|>"
}
