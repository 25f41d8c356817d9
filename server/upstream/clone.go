package upstream

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
)

// Voices cloned from recordings (engine.Cloner). A gateway has no engine
// of its own: it knows what a cloning engine made of each recording (the
// voice's sample, store.Voice.Sample, read from its store when needed:
// see samples.go) and sends it to the worker that speaks a piece in that
// voice, which loads it into its own engine (see wire.SamplePrefix). The
// first piece a worker gets in the voice carries the sample; later ones
// name it by its hash only while the worker has spoken it within
// warmFor, and a worker that no longer holds it answers 409
// voice_sample_needed, on which the piece is sent to it again with the
// sample. Cloning a recording
// (CloneVoice) is a POST /v1/voice-samples to a worker with a model that
// clones. Both need a gateway key: a key of the gateway scope.

var _ engine.Cloner = (*Pool)(nil)

// maxSample bounds a worker's answer to POST /v1/voice-samples: a
// PocketTTS voice of 10 s is about 0.5 MB.
const maxSample = 16 << 20

// CloneModels implements engine.Cloner: the models that clone on any
// healthy worker (their GET /v1/models), sorted.
func (p *Pool) CloneModels() []string {
	var out []string
	for _, w := range p.fleet.list() {
		if !w.healthy.Load() {
			continue
		}
		w.mu.Lock()
		out = append(out, w.cloneModels...)
		w.mu.Unlock()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CloneVoice implements engine.Cloner: req's recording is cloned by a
// healthy worker that has req.Model, which answers the sample. A worker's
// refusal of the recording (a 400) is the gateway's answer as the worker
// wrote it.
func (p *Pool) CloneVoice(ctx context.Context, req engine.CloneRequest) ([]byte, error) {
	body, contentType := cloneForm(req)
	var tried []*worker
	var last error
	for {
		w := p.fleet.pickWith("", func(w *worker) bool { return slices.Contains(w.cloneModels, req.Model) }, tried)
		if w == nil {
			answer := fault.NoWorker(req.Model, p.fleet.every)
			if last != nil {
				return nil, fmt.Errorf("%w %q: %v: %w", ErrNoWorker, req.Model, last, answer)
			}
			return nil, fmt.Errorf("%w %q: %w", ErrNoWorker, req.Model, answer)
		}
		tried = append(tried, w)
		sample, err := p.caller.encodeOn(ctx, w, body, contentType)
		if !errors.Is(err, errBusy) {
			return sample, err
		}
		last = err
	}
}

// encodeOn asks w to clone the recording of body, within
// Options.PieceTimeout. As for a piece (see speak), only a request the
// worker did not take may go to another: a connection that failed before
// the worker's first byte, and a 503 or 429, are errBusy; a connection
// that broke after it is the worker's failure (502), and takes it out of
// rotation until its next check passes.
func (c *caller) encodeOn(ctx context.Context, w *worker, body []byte, contentType string) ([]byte, error) {
	w.outstanding.Add(1)
	defer w.outstanding.Add(-1)
	w.requests.Add(1)
	timed, cancel := context.WithTimeout(ctx, c.piece)
	defer cancel()
	var taken atomic.Bool
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { taken.Store(true) }}
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(timed, trace), http.MethodPost, w.url+"/v1/voice-samples", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Authorization", "Bearer "+c.fleet.key)
	hreq.Header.Set("Content-Type", contentType)
	hreq.Header.Set("Expect", "100-continue")
	res, err := c.fleet.client.Do(hreq)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err() // the caller gave up
	case err != nil:
		w.errors.Add(1)
		c.fleet.setHealthy(w, false, err)
		if !taken.Load() {
			return nil, fmt.Errorf("%w: %w", errBusy, err)
		}
		return nil, fmt.Errorf("upstream: cloning on %s: %w: %w", w.url, err, fault.WorkerFailed())
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		w.errors.Add(1)
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return nil, c.refused(res.StatusCode, b)
	}
	sample, err := io.ReadAll(io.LimitReader(res.Body, maxSample+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("upstream: reading a worker's sample: %w: %w", err, fault.WorkerFailed())
	case len(sample) > maxSample || len(sample) == 0:
		return nil, fmt.Errorf("upstream: a worker's sample of %d bytes: %w", len(sample), fault.WorkerFailed())
	}
	return sample, nil
}

// refused is the error of a worker's answer of status (not 200) with
// body to a request about a clone: errBusy for a 503 or 429; the
// worker's own error for a client error (a recording it cannot clone);
// fault.GatewayScopeNeeded when it refused the gateway's key; else the
// worker's failure.
func (c *caller) refused(status int, body []byte) error {
	we := workerError(status, body)
	switch {
	case status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: %d: %s", errBusy, status, body)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("upstream: worker answered %d: %s: %w", status, body, fault.GatewayScopeNeeded())
	case we != nil && status < 500:
		return fmt.Errorf("upstream: worker answered %d: %w", status, we)
	}
	return fmt.Errorf("upstream: worker answered %d: %s: %w", status, body, fault.WorkerFailed())
}

// cloneForm is the multipart body of POST /v1/voice-samples for req: its
// recording as a 32-bit float WAV file (what the gateway decoded, as it
// is) and its settings.
func cloneForm(req engine.CloneRequest) ([]byte, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("name", "gateway")
	mw.WriteField("model", req.Model)
	if req.Temperature != nil {
		mw.WriteField("temperature", strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if req.Steps > 0 {
		mw.WriteField("steps", strconv.Itoa(req.Steps))
	}
	if req.Seed != 0 {
		mw.WriteField("seed", strconv.FormatInt(req.Seed, 10))
	}
	fw, _ := mw.CreateFormFile("audio", "recording.wav")
	fw.Write(encode.WAVHeader(encode.WAVFloat, req.SampleRate, 32, uint32(4*len(req.Samples))))
	binary.Write(fw, binary.LittleEndian, req.Samples)
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}
