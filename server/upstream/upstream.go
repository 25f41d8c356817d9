// Package upstream makes a voxkit server a gateway: an engine.Engine whose
// voices are those of other voxkit servers (workers), reached over the
// same /v1 interface any client uses. A gateway authenticates callers,
// applies limits, keeps the callers' clones and encodes every format
// itself; the workers only synthesize.
//
// Each piece of text the gateway's synthesizer renders (a sentence, or a
// part of one between tags) is one POST /v1/audio/speech to a worker, as
// pcm; when the gateway's caller wants word timestamps, in SSE events with
// the words' times. The worker is the one with the fewest requests
// outstanding among the healthy workers that have the voice. A piece is
// emitted only once the worker has sent all of it, so a failed
// connection, a 5xx answer or a stream that breaks is retried on another
// worker without repeating or losing audio; the failed worker is out of
// rotation until its health check passes again. Only when no worker can
// speak the piece does it fail, and the gateway's response with it, as
// any failed synthesis does (a stream already begun is cut). Health
// checks (GET /readyz, and the voice list from GET /v1/models) run every
// Options.CheckEvery.
package upstream

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
)

// SampleRate is the rate of the pcm the workers send.
const SampleRate = 24000

// DefaultCheckEvery is the time between health checks when
// Options.CheckEvery is 0.
const DefaultCheckEvery = time.Second

// DefaultMaxAudio is the most audio a piece may bring when
// Options.MaxAudio is 0: the synthesizer's default limit of a whole
// request (tts.DefaultMaxAudio).
const DefaultMaxAudio = 10 * time.Minute

// DefaultIdleTimeout is how long a piece's answer may go without a byte
// when Options.IdleTimeout is 0; DefaultPieceTimeout bounds a piece's
// whole answer when Options.PieceTimeout is 0.
const (
	DefaultIdleTimeout  = 30 * time.Second
	DefaultPieceTimeout = 2 * time.Minute
)

// maxModelsBody bounds a worker's /v1/models answer (some 60,000 voices).
const maxModelsBody = 16 << 20

// ErrNoWorker is returned (wrapped) when no healthy worker has the voice.
var ErrNoWorker = errors.New("upstream: no healthy worker has the voice")

// Options configure a Pool.
type Options struct {
	// URLs are the workers' base addresses ("http://10.0.0.5:8080").
	URLs []string
	// Key is an API key every worker accepts (a speech key suffices).
	Key string
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
	// CheckEvery is the time between health checks; 0 means
	// DefaultCheckEvery.
	CheckEvery time.Duration
	// Logger receives health changes; nil means slog.Default().
	Logger *slog.Logger
	// MaxAudio is the most audio one piece's answer may hold (the
	// gateway's own limit of a request: no piece can need more); a worker
	// that sends more fails the piece, which is tried on another worker.
	// 0 means DefaultMaxAudio.
	MaxAudio time.Duration
	// IdleTimeout fails a piece whose worker sends nothing for that long,
	// and PieceTimeout one whose whole answer takes longer (a worker that
	// trickles bytes): the piece is tried on another worker. 0 means
	// DefaultIdleTimeout and DefaultPieceTimeout.
	IdleTimeout, PieceTimeout time.Duration
}

// Pool is a set of workers, and the engine that speaks through them. It
// is safe for concurrent use.
type Pool struct {
	key    string
	client *http.Client
	every  time.Duration
	// maxBytes is the most pcm a piece's answer may hold; idle and
	// piece bound the time it may take (Options).
	maxBytes    int64
	idle, piece time.Duration
	log         *slog.Logger
	workers     []*worker
	turn        atomic.Uint64 // rotates the start of pick's scan
	stop        context.CancelFunc
	done        chan struct{}
}

var (
	_ engine.Engine      = (*Pool)(nil)
	_ engine.VoiceLister = (*Pool)(nil)
	_ engine.Renderer    = (*Pool)(nil)
)

// worker is one upstream server.
type worker struct {
	url         string
	healthy     atomic.Bool
	outstanding atomic.Int64
	requests    atomic.Uint64
	errors      atomic.Uint64

	mu     sync.Mutex
	voices map[string]engine.Voice
}

// New returns a Pool of opts.URLs. It checks every worker once before it
// returns (so that the voice list is known), then keeps checking in the
// background until Close. It fails only when no worker answers.
func New(ctx context.Context, opts Options) (*Pool, error) {
	if len(opts.URLs) == 0 {
		return nil, errors.New("upstream: no worker URLs")
	}
	p := &Pool{key: opts.Key, client: opts.Client, every: opts.CheckEvery, log: opts.Logger, done: make(chan struct{})}
	if p.client == nil {
		p.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}}
	}
	if p.every <= 0 {
		p.every = DefaultCheckEvery
	}
	maxAudio := cmp.Or(opts.MaxAudio, DefaultMaxAudio)
	p.maxBytes = int64(maxAudio.Seconds()*SampleRate)*2 + 2*SampleRate // and a second's slack
	p.idle = cmp.Or(opts.IdleTimeout, DefaultIdleTimeout)
	p.piece = cmp.Or(opts.PieceTimeout, DefaultPieceTimeout)
	if p.log == nil {
		p.log = slog.Default()
	}
	for _, u := range opts.URLs {
		p.workers = append(p.workers, &worker{url: strings.TrimRight(u, "/")})
	}
	var wg sync.WaitGroup
	for _, w := range p.workers {
		wg.Go(func() { p.check(ctx, w) })
	}
	wg.Wait()
	if !slices.ContainsFunc(p.workers, func(w *worker) bool { return w.healthy.Load() }) {
		return nil, fmt.Errorf("upstream: none of the %d workers is ready", len(p.workers))
	}
	bg, stop := context.WithCancel(context.Background())
	p.stop = stop
	go p.checkLoop(bg)
	return p, nil
}

// Close stops the health checks.
func (p *Pool) Close() error {
	p.stop()
	<-p.done
	return nil
}

func (p *Pool) checkLoop(ctx context.Context) {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, w := range p.workers {
			wg.Go(func() { p.check(ctx, w) })
		}
		wg.Wait()
	}
}

// checkTimeout bounds a health check: long enough that a worker slowed
// by load is not taken for dead.
const checkTimeout = 5 * time.Second

// check asks w whether it is ready and which voices it has.
func (p *Pool) check(ctx context.Context, w *worker) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	err := p.get(ctx, w.url+"/readyz", nil)
	var models wire.ModelList
	if err == nil {
		err = p.get(ctx, w.url+"/v1/models", &models)
	}
	if err == nil {
		vs := make(map[string]engine.Voice, len(models.Data))
		for _, m := range models.Data {
			if m.OwnedBy == "user" {
				continue // the upstream key's own clones are not the gateway's voices
			}
			vs[m.ID] = engine.Voice{Name: m.ID, Language: m.Language, Description: m.Description, SampleRate: m.SampleRate}
		}
		w.mu.Lock()
		w.voices = vs
		w.mu.Unlock()
	}
	p.setHealthy(w, err == nil, err)
}

func (p *Pool) setHealthy(w *worker, ok bool, why error) {
	if w.healthy.Swap(ok) == ok {
		return
	}
	if ok {
		p.log.Info("upstream: worker healthy", "worker", w.url)
	} else {
		p.log.Warn("upstream: worker out of rotation", "worker", w.url, "err", why)
	}
}

func (p *Pool) get(ctx context.Context, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	res, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(res.Body, 4096))
		return fmt.Errorf("%s: %s", url, res.Status)
	}
	body := &io.LimitedReader{R: res.Body, N: maxModelsBody + 1}
	if into == nil {
		_, err = io.Copy(io.Discard, body)
	} else {
		err = json.NewDecoder(body).Decode(into)
	}
	if body.N <= 0 {
		return fmt.Errorf("%s: the answer is larger than %d MiB", url, maxModelsBody>>20)
	}
	return err
}

// Ready reports whether at least one worker is healthy.
func (p *Pool) Ready(context.Context) error {
	if slices.ContainsFunc(p.workers, func(w *worker) bool { return w.healthy.Load() }) {
		return nil
	}
	return errors.New("no healthy upstream worker")
}

// Voices implements engine.VoiceLister: every voice any worker has had.
func (p *Pool) Voices(context.Context) ([]engine.Voice, error) {
	seen := map[string]engine.Voice{}
	for _, w := range p.workers {
		w.mu.Lock()
		for id, v := range w.voices {
			seen[id] = v
		}
		w.mu.Unlock()
	}
	out := make([]engine.Voice, 0, len(seen))
	for _, v := range seen {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b engine.Voice) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Renders implements engine.Renderer: the workers take a speed; the
// gateway's synthesizer applies every other control itself.
func (p *Pool) Renders(f engine.Feature) bool { return f == engine.FeatureRate }

// pick returns the healthy worker with voice that has the fewest requests
// outstanding, leaving out those in tried; when no healthy one is left, an
// unhealthy one (its last failure may have passed); nil if there is none.
func (p *Pool) pick(voice string, tried []*worker) *worker {
	if w := p.pickAmong(voice, tried, true); w != nil {
		return w
	}
	return p.pickAmong(voice, tried, false)
}

func (p *Pool) pickAmong(voice string, tried []*worker, healthy bool) *worker {
	var best *worker
	// Start the scan at a rotating worker, so that ties go round.
	first := int(p.turn.Add(1) % uint64(len(p.workers)))
	for i := range p.workers {
		w := p.workers[(first+i)%len(p.workers)]
		if w.healthy.Load() != healthy || slices.Contains(tried, w) {
			continue
		}
		w.mu.Lock()
		_, has := w.voices[voice]
		w.mu.Unlock()
		if has && (best == nil || w.outstanding.Load() < best.outstanding.Load()) {
			best = w
		}
	}
	return best
}

// Synthesize implements engine.Engine: req.Text spoken by a worker.
func (p *Pool) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	// The gateway's own synthesizer has normalized the text already.
	sp := wire.Speech{Model: "tts-1", Voice: req.Voice, Input: req.Text, Format: "pcm", Normalize: false, InputFormat: wire.InputText,
		Speed: max(tags.MinRate, min(tags.MaxRate, req.Prosody.RateOrDefault()))}
	if req.Words {
		// Words come as SSE events beside the audio; without them the
		// audio comes bare, which costs less on both sides.
		sp.StreamFormat, sp.Timestamps = wire.StreamSSE, wire.TimestampsWord
	}
	body, _ := json.Marshal(sp)
	var tried []*worker
	var last error
	for {
		w := p.pick(req.Voice, tried)
		if w == nil {
			if len(tried) > 0 {
				return fmt.Errorf("%w %q: %d tried, the last: %v", ErrNoWorker, req.Voice, len(tried), last)
			}
			return fmt.Errorf("%w %q", ErrNoWorker, req.Voice)
		}
		tried = append(tried, w)
		started, err := p.speak(ctx, w, body, req.Text, emit)
		switch {
		case err == nil:
			return ctx.Err()
		case ctx.Err() != nil:
			return ctx.Err()
		case started:
			var emitted *emitError
			if errors.As(err, &emitted) {
				return emitted.err // the caller's own failure, as it is
			}
			return err
		}
		var refused *refusal
		if errors.As(err, &refused) {
			return err // the worker judged the request: another would too
		}
		last = err
		p.log.Warn("upstream: retrying on another worker", "worker", w.url, "voice", req.Voice, "err", err)
	}
}

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
	// 400, 413 or 422: its audio limit, say), which the gateway answers
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
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		var we wire.Error
		if json.Unmarshal(body, &we) == nil && we.Message != "" {
			we.Status = status
			r.client = &we
		}
	}
	return r
}

// speak runs one request on w and emits its audio. started reports
// whether any audio was emitted, after which it cannot be retried.
func (p *Pool) speak(ctx context.Context, w *worker, body []byte, text string, emit engine.ChunkFunc) (started bool, err error) {
	w.outstanding.Add(1)
	defer w.outstanding.Add(-1)
	w.requests.Add(1)
	defer func() {
		var emitted *emitError
		if err != nil && !errors.As(err, &emitted) && ctx.Err() == nil {
			w.errors.Add(1)
			var refused *refusal
			if !errors.As(err, &refused) && !errors.Is(err, errBusy) {
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
	hreq, err := http.NewRequestWithContext(pctx, http.MethodPost, w.url+"/v1/audio/speech", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	hreq.Header.Set("Authorization", "Bearer "+p.key)
	hreq.Header.Set("Content-Type", "application/json")
	res, err := p.client.Do(hreq)
	if err != nil {
		return false, p.late(ctx, pctx, err)
	}
	defer func() {
		// Read to the end, so that the connection is reused.
		io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
		res.Body.Close()
	}()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		if res.StatusCode == http.StatusServiceUnavailable || res.StatusCode == http.StatusTooManyRequests {
			return false, fmt.Errorf("%w: %s: %s", errBusy, res.Status, b)
		}
		if res.StatusCode >= 500 {
			return false, fmt.Errorf("upstream: worker answered %s: %s", res.Status, b)
		}
		if res.StatusCode == http.StatusNotFound {
			return false, fmt.Errorf("%w %q: %w", engine.ErrUnknownVoice, w.url, &refusal{status: res.StatusCode, body: string(b)})
		}
		return false, newRefusal(res.StatusCode, b)
	}
	r := &idleReader{r: res.Body, timer: idle, idle: p.idle}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		started, err = p.readPCM(r, emit)
	} else {
		started, err = p.readEvents(r, text, emit)
	}
	return started, p.late(ctx, pctx, err)
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
// sentence at most) means a worker that fails mid-stream can be retried
// on another without repeating or losing audio; the worker sends a
// sentence's audio only when the sentence is done anyway.
func (p *Pool) readEvents(r io.Reader, text string, emit engine.ChunkFunc) (started bool, err error) {
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
			return false, fmt.Errorf("upstream: a worker's event: %w", err)
		}
		switch {
		case ev.Error != nil:
			return false, fmt.Errorf("upstream: the worker failed mid-stream: %s", ev.Error)
		case ev.Type == wire.EventAudioDelta:
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				return false, fmt.Errorf("upstream: a worker's audio: %w", err)
			}
			if int64(2*len(samples)+len(pcm)) > p.maxBytes {
				return false, fmt.Errorf("%w (%d bytes)", errTooMuch, p.maxBytes)
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
		return false, fmt.Errorf("%w: an event line over %d bytes", errTooMuch, p.maxBytes*4/3+64<<10)
	} else if err != nil {
		return false, fmt.Errorf("upstream: reading a worker's stream: %w", err)
	}
	if !done {
		return false, errors.New("upstream: the worker's stream ended early")
	}
	if len(samples) == 0 && len(words) == 0 {
		return false, nil
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate, Words: words}); err != nil {
		return true, &emitError{err}
	}
	return true, nil
}

// readPCM reads a worker's bare pcm answer whole (a stream the worker cut
// ends in an error here), then emits it as one chunk.
func (p *Pool) readPCM(r io.Reader, emit engine.ChunkFunc) (started bool, err error) {
	pcm, err := io.ReadAll(io.LimitReader(r, p.maxBytes+1))
	if err != nil {
		return false, fmt.Errorf("upstream: reading a worker's audio: %w", err)
	}
	if int64(len(pcm)) > p.maxBytes {
		return false, fmt.Errorf("%w (%d bytes)", errTooMuch, p.maxBytes)
	}
	if len(pcm) < 2 {
		return false, nil
	}
	samples := make([]float32, len(pcm)/2)
	for i := range samples {
		samples[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate}); err != nil {
		return true, &emitError{err}
	}
	return true, nil
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

// Close of the engine interface is Pool.Close.

// Collector returns the Prometheus collector of the workers: requests,
// errors, health and outstanding requests, by worker.
func (p *Pool) Collector() prometheus.Collector { return collector{p} }

type collector struct{ p *Pool }

var (
	descRequests    = prometheus.NewDesc("voxkit_upstream_requests_total", "Requests sent to an upstream worker.", []string{"worker"}, nil)
	descErrors      = prometheus.NewDesc("voxkit_upstream_errors_total", "Requests to an upstream worker that failed (connection, 5xx, broken stream).", []string{"worker"}, nil)
	descHealthy     = prometheus.NewDesc("voxkit_upstream_healthy", "Whether an upstream worker is in rotation (1) or not (0).", []string{"worker"}, nil)
	descOutstanding = prometheus.NewDesc("voxkit_upstream_outstanding", "Requests in progress on an upstream worker.", []string{"worker"}, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descRequests
	ch <- descErrors
	ch <- descHealthy
	ch <- descOutstanding
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, w := range c.p.workers {
		healthy := 0.0
		if w.healthy.Load() {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(w.requests.Load()), w.url)
		ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(w.errors.Load()), w.url)
		ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, healthy, w.url)
		ch <- prometheus.MustNewConstMetric(descOutstanding, prometheus.GaugeValue, float64(w.outstanding.Load()), w.url)
	}
}
