package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
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
	cl, voice, err := p.cloneVoice(ctx, req.Voice)
	if err != nil {
		return err
	}
	if cl != nil {
		sp.Voice = voice
	}
	var tried []*worker
	var last error
	for {
		w := p.pick(sp.Voice, tried)
		if w == nil {
			answer := wire.NoWorker(req.Voice, p.every)
			if len(tried) > 0 {
				return fmt.Errorf("%w %q: %d tried, the last: %v: %w", ErrNoWorker, req.Voice, len(tried), last, answer)
			}
			return fmt.Errorf("%w %q: %w", ErrNoWorker, req.Voice, answer)
		}
		tried = append(tried, w)
		err := p.speakOn(ctx, w, sp, cl, emit)
		var failed *attemptError
		var answered *wire.Error
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
				p.log.Warn("upstream: the worker failed a piece it had taken; not sent to another", "worker", w.url, "voice", req.Voice, "err", err)
			}
			return err
		}
		last = err
		p.log.Warn("upstream: retrying on another worker", "worker", w.url, "voice", req.Voice, "err", err)
	}
}

// speakOn runs the piece sp on w (see speak). The piece of a clone (cl,
// nil for other voices) goes with its sample (read if need be: sampleOf)
// when w has not spoken it lately, and without it otherwise, then again
// with it if w no longer holds it (409 voice_sample_needed).
func (p *Pool) speakOn(ctx context.Context, w *worker, sp wire.Speech, cl *clone, emit engine.ChunkFunc) error {
	send := func(withSample bool) error {
		if withSample {
			sample, voice, err := p.sampleOf(ctx, cl)
			if err != nil {
				return err
			}
			sp.Voice, sp.VoiceSample = voice, sample
		}
		body, _ := json.Marshal(sp)
		err := p.speak(ctx, w, body, sp.Input, emit)
		var refused *refusal
		if withSample && errors.As(err, &refused) && (refused.status == http.StatusUnauthorized || refused.status == http.StatusForbidden) {
			return fmt.Errorf("%w: %w", err, wire.GatewayScopeNeeded())
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
	var answered *wire.Error
	if errors.As(err, &answered) && answered.Code == wire.CodeSampleNeeded {
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
	client *wire.Error
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
func workerError(status int, body []byte) *wire.Error {
	var we wire.Error
	if json.Unmarshal(body, &we) != nil || we.Message == "" {
		return nil
	}
	we.Status = status
	return &we
}

// speak runs one request on w and emits its audio. Its errors are
// emit's, as they are, and *attemptError.
func (p *Pool) speak(ctx context.Context, w *worker, body []byte, text string, emit engine.ChunkFunc) (err error) {
	w.outstanding.Add(1)
	defer w.outstanding.Add(-1)
	w.requests.Add(1)
	defer func() {
		var failed *attemptError
		if errors.As(err, &failed) && ctx.Err() == nil {
			w.errors.Add(1)
			if failed.unwell {
				p.setHealthy(w, false, err) // until its next check passes
			}
		}
	}()
	// The piece's deadlines: its whole answer within p.piece, and no
	// wait for a byte longer than p.idle.
	// (ctx stays the caller's: the deferred check above asks whether the
	// caller gave up.)
	timed, cancel := context.WithTimeoutCause(ctx, p.piece, errPieceTimeout)
	defer cancel()
	pctx, stall := context.WithCancelCause(timed)
	defer stall(nil)
	idle := time.AfterFunc(p.idle, func() { stall(errIdle) })
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
	hreq.Header.Set("Authorization", "Bearer "+p.key)
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Expect", "100-continue")
	res, err := p.client.Do(hreq)
	if err != nil {
		err = p.late(ctx, pctx, err)
		if !taken.Load() {
			return &attemptError{err: err, unwell: true}
		}
		return p.takenFailure(err)
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
				return p.takenFailure(fmt.Errorf("upstream: worker answered %s: %w", res.Status, we))
			}
			return p.takenFailure(fmt.Errorf("upstream: worker answered %s: %s", res.Status, b))
		case res.StatusCode == http.StatusNotFound:
			return &attemptError{err: fmt.Errorf("%w %q: %w", engine.ErrUnknownVoice, w.url, &refusal{status: res.StatusCode, body: string(b)}), taken: true}
		}
		return &attemptError{err: newRefusal(res.StatusCode, b), taken: true}
	}
	r := &idleReader{r: res.Body, timer: idle, idle: p.idle}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		err = p.readPCM(r, emit)
	} else {
		err = p.readEvents(r, text, emit)
	}
	var emitted *emitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &emitted):
		return emitted.err
	}
	return p.takenFailure(p.late(ctx, pctx, err))
}

// takenFailure is the attemptError of err, a failure after the worker
// took the request. More audio than a piece may hold is the request's
// (the gateway's audio limit, tts.AudioLimitError: 400 audio_too_long,
// as on a server alone); an error the worker sent (a *wire.Error) is
// passed on to the gateway's caller as it is; anything else (a
// connection that broke, an answer that stalled or is not one) is the
// worker's failure, answered 502 (wire.WorkerFailed).
func (p *Pool) takenFailure(err error) error {
	var answered *wire.Error
	switch {
	case errors.Is(err, errTooMuch):
		return &attemptError{err: fmt.Errorf("%w: %w", err, &tts.AudioLimitError{Limit: p.maxAudio}), taken: true}
	case errors.As(err, &answered):
		return &attemptError{err: err, taken: true}
	}
	return &attemptError{err: fmt.Errorf("%w: %w", err, wire.WorkerFailed()), taken: true, unwell: true}
}

// Causes of a piece that took too long.
var (
	errIdle         = errors.New("upstream: the worker sent nothing for too long")
	errPieceTimeout = errors.New("upstream: the worker's answer took too long")
)

// late names the deadline of piece, the context of a piece's request,
// that failed it, when one did; a piece failed by its caller's context
// (ctx) keeps its error.
func (p *Pool) late(ctx, piece context.Context, err error) error {
	if err == nil || ctx.Err() != nil || piece.Err() == nil {
		return err
	}
	switch cause := context.Cause(piece); cause {
	case errIdle:
		return fmt.Errorf("%w (%v): %w", errIdle, p.idle, err)
	case errPieceTimeout:
		return fmt.Errorf("%w (%v): %w", errPieceTimeout, p.piece, err)
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

// errTooMuch fails a piece whose worker sends more audio than a piece
// may hold.
var errTooMuch = errors.New("upstream: the worker sent more audio than a piece may hold")

// readEvents reads a worker's SSE stream whole, then emits its audio as
// one chunk with all its words. Emitting only a complete piece (a
// sentence at most) means a worker that fails mid-stream leaves no part
// of a piece in the gateway's answer; the worker sends a sentence's
// audio only when the sentence is done anyway.
func (p *Pool) readEvents(r io.Reader, text string, emit engine.ChunkFunc) error {
	byteOf := runeOffsets(text)
	var samples []float32
	var words []engine.Word
	sc := bufio.NewScanner(r)
	// A line holds at most a piece's audio in base64, and its JSON.
	sc.Buffer(make([]byte, 64<<10), int(p.maxBytes*4/3)+64<<10)
	done := false
	for !done && sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var ev wire.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return fmt.Errorf("upstream: a worker's event: %w", err)
		}
		switch {
		case ev.Error != nil:
			if we := workerError(streamStatus(ev.Error), []byte(line)); we != nil {
				return fmt.Errorf("upstream: the worker failed mid-stream: %w", we)
			}
			return fmt.Errorf("upstream: the worker failed mid-stream: %s", ev.Error)
		case ev.Type == wire.EventAudioDelta:
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				return fmt.Errorf("upstream: a worker's audio: %w", err)
			}
			if int64(2*len(samples)+len(pcm)) > p.maxBytes {
				return fmt.Errorf("%w (%d bytes)", errTooMuch, p.maxBytes)
			}
			for i := 0; i+1 < len(pcm); i += 2 {
				samples = append(samples, float32(int16(binary.LittleEndian.Uint16(pcm[i:])))/32768)
			}
		case ev.Type == wire.EventTimestamps:
			for _, wt := range ev.Words {
				if wt.CharStart < 0 || wt.CharEnd > len(byteOf)-1 || wt.CharStart >= wt.CharEnd {
					continue
				}
				words = append(words, engine.Word{Start: byteOf[wt.CharStart], End: byteOf[wt.CharEnd],
					From: int(wt.StartMS * SampleRate / 1000), To: int(wt.EndMS * SampleRate / 1000), Estimated: wt.Estimated})
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%w: an event line over %d bytes", errTooMuch, p.maxBytes*4/3+64<<10)
	} else if err != nil {
		return fmt.Errorf("upstream: reading a worker's stream: %w", err)
	}
	if !done {
		return errors.New("upstream: the worker's stream ended early")
	}
	if len(samples) == 0 && len(words) == 0 {
		return nil
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate, Words: words}); err != nil {
		return &emitError{err}
	}
	return nil
}

// streamStatus is the status of an error a worker sent in its SSE
// stream, as it would have answered before the stream began: 400 for an
// invalid_request_error, 500 for a server_error, else 502.
func streamStatus(object json.RawMessage) int {
	var e struct{ Type string }
	json.Unmarshal(object, &e)
	switch e.Type {
	case wire.TypeInvalidRequest:
		return http.StatusBadRequest
	case wire.TypeServer:
		return http.StatusInternalServerError
	}
	return http.StatusBadGateway
}

// readPCM reads a worker's bare pcm answer whole (a stream the worker cut
// ends in an error here), then emits it as one chunk.
func (p *Pool) readPCM(r io.Reader, emit engine.ChunkFunc) error {
	pcm, err := io.ReadAll(io.LimitReader(r, p.maxBytes+1))
	if err != nil {
		return fmt.Errorf("upstream: reading a worker's audio: %w", err)
	}
	if int64(len(pcm)) > p.maxBytes {
		return fmt.Errorf("%w (%d bytes)", errTooMuch, p.maxBytes)
	}
	if len(pcm) < 2 {
		return nil
	}
	samples := make([]float32, len(pcm)/2)
	for i := range samples {
		samples[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate}); err != nil {
		return &emitError{err}
	}
	return nil
}

// runeOffsets returns the byte offset of each code point of s, and
// len(s) last.
func runeOffsets(s string) []int {
	out := make([]int, 0, utf8.RuneCountInString(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// phonemeTag is text said as the IPA phonemes, as a worker's input: a
// phoneme tag around the text. A "|" (IPA's foot-group mark, which no
// engine says) is left out of the IPA, where it could end the tag.
func phonemeTag(phonemes, text string) string {
	return "<|phoneme:" + strings.ReplaceAll(phonemes, "|", "") + "|>" + text + "<|/phoneme|>"
}
