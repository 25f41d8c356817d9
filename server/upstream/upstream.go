// Package upstream makes a voxkit server a gateway: an engine.Engine whose
// voices are those of other voxkit servers (workers), reached over the
// same /v1 interface any client uses. A gateway authenticates callers,
// applies limits, keeps the callers' clones and encodes every format
// itself; the workers only synthesize.
//
// Each piece of text the gateway's synthesizer renders (a sentence, or a
// part of one between tags) is one POST /v1/audio/speech to a worker, as
// pcm; when the gateway's caller wants word timestamps, in SSE events with
// the words' times. The worker is the one with the
// fewest requests outstanding among the healthy workers that have the
// voice. A piece is emitted only once the worker has sent all of it, so a
// failed connection, a 5xx answer or a stream that breaks is retried on
// another worker without repeating or losing audio; the failed worker is
// out of rotation until its health check passes again. Only when no
// worker can speak the piece does it fail, and the gateway's response
// with it, as any failed synthesis does (a stream already begun is cut). Health checks (GET /readyz, and the voice list from
// GET /v1/models) run every Options.CheckEvery.
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
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/engine"
)

// SampleRate is the rate of the pcm the workers send.
const SampleRate = 24000

// DefaultCheckEvery is the time between health checks when
// Options.CheckEvery is 0.
const DefaultCheckEvery = time.Second

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
}

// Pool is a set of workers, and the engine that speaks through them. It
// is safe for concurrent use.
type Pool struct {
	key     string
	client  *http.Client
	every   time.Duration
	log     *slog.Logger
	workers []*worker
	turn    atomic.Uint64 // rotates the start of pick's scan
	stop    context.CancelFunc
	done    chan struct{}
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
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			OwnedBy     string `json:"owned_by"`
			Language    string `json:"language"`
			Description string `json:"description"`
		} `json:"data"`
	}
	if err == nil {
		err = p.get(ctx, w.url+"/v1/models", &models)
	}
	if err == nil {
		vs := make(map[string]engine.Voice, len(models.Data))
		for _, m := range models.Data {
			if m.OwnedBy == "user" {
				continue // the upstream key's own clones are not the gateway's voices
			}
			vs[m.ID] = engine.Voice{Name: m.ID, Language: m.Language, Description: m.Description}
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
	if into == nil {
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
	return json.NewDecoder(res.Body).Decode(into)
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
	fields := map[string]any{
		"model": "tts-1", "voice": req.Voice, "input": req.Text, "response_format": "pcm",
		"stream_format": "sse", "speed": math.Max(0.25, math.Min(4, req.Prosody.RateOrDefault())),
	}
	if req.Words {
		// Words come as SSE events beside the audio; without them the
		// audio comes bare, which costs less on both sides.
		fields["stream_format"], fields["timestamps"] = "sse", "word"
	} else {
		delete(fields, "stream_format")
	}
	body, _ := json.Marshal(fields)
	var tried []*worker
	for {
		w := p.pick(req.Voice, tried)
		if w == nil {
			if len(tried) > 0 {
				return fmt.Errorf("%w %q: %d tried", ErrNoWorker, req.Voice, len(tried))
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
		case errors.Is(err, errEmit): // the caller's own failure
			return errors.Unwrap(err)
		case started:
			return err
		}
		var refused *refusal
		if errors.As(err, &refused) {
			return err // the worker judged the request: another would too
		}
		p.log.Warn("upstream: retrying on another worker", "worker", w.url, "voice", req.Voice, "err", err)
	}
}

// errBusy is a worker's 503 or 429: try another, but it is not broken.
var errBusy = errors.New("upstream: worker busy")

// errEmit wraps an error of the emit function.
var errEmit = errors.New("upstream: emit")

// refusal is a worker's 4xx answer.
type refusal struct {
	status int
	body   string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("upstream: worker answered %d: %s", r.status, r.body)
}

// speak runs one request on w and emits its audio. started reports
// whether any audio was emitted, after which it cannot be retried.
func (p *Pool) speak(ctx context.Context, w *worker, body []byte, text string, emit engine.ChunkFunc) (started bool, err error) {
	w.outstanding.Add(1)
	defer w.outstanding.Add(-1)
	w.requests.Add(1)
	defer func() {
		if err != nil && !errors.Is(err, errEmit) && ctx.Err() == nil {
			w.errors.Add(1)
			var refused *refusal
			if !errors.As(err, &refused) && !errors.Is(err, errBusy) {
				p.setHealthy(w, false, err) // until its next check passes
			}
		}
	}()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url+"/v1/audio/speech", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	hreq.Header.Set("Authorization", "Bearer "+p.key)
	hreq.Header.Set("Content-Type", "application/json")
	res, err := p.client.Do(hreq)
	if err != nil {
		return false, err
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
			return false, fmt.Errorf("%w %q: %w", engine.ErrUnknownVoice, w.url, &refusal{res.StatusCode, string(b)})
		}
		return false, &refusal{res.StatusCode, string(b)}
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return p.readPCM(res.Body, emit)
	}
	return p.readEvents(res.Body, text, emit)
}

// event is one SSE event of a worker's answer.
type event struct {
	Type  string          `json:"type"`
	Audio string          `json:"audio"`
	Words []wordTime      `json:"words"`
	Error json.RawMessage `json:"error"`
}

type wordTime struct {
	StartMS   float64 `json:"start_ms"`
	EndMS     float64 `json:"end_ms"`
	CharStart int     `json:"char_start"`
	CharEnd   int     `json:"char_end"`
	Estimated bool    `json:"estimated"`
}

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
	sc.Buffer(make([]byte, 64<<10), 16<<20)
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
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return false, fmt.Errorf("upstream: a worker's event: %w", err)
		}
		switch {
		case ev.Error != nil:
			return false, fmt.Errorf("upstream: the worker failed mid-stream: %s", ev.Error)
		case ev.Type == "speech.audio.delta":
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				return false, fmt.Errorf("upstream: a worker's audio: %w", err)
			}
			for i := 0; i+1 < len(pcm); i += 2 {
				samples = append(samples, float32(int16(binary.LittleEndian.Uint16(pcm[i:])))/32768)
			}
		case ev.Type == "speech.timestamps":
			for _, wt := range ev.Words {
				if wt.CharStart < 0 || wt.CharEnd > len(byteOf)-1 || wt.CharStart >= wt.CharEnd {
					continue
				}
				words = append(words, engine.Word{Start: byteOf[wt.CharStart], End: byteOf[wt.CharEnd],
					From: int(wt.StartMS * SampleRate / 1000), To: int(wt.EndMS * SampleRate / 1000), Estimated: wt.Estimated})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("upstream: reading a worker's stream: %w", err)
	}
	if !done {
		return false, errors.New("upstream: the worker's stream ended early")
	}
	if len(samples) == 0 && len(words) == 0 {
		return false, nil
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate, Words: words}); err != nil {
		return true, fmt.Errorf("%w: %w", errEmit, err)
	}
	return true, nil
}

// readPCM reads a worker's bare pcm answer whole (a stream the worker cut
// ends in an error here), then emits it as one chunk.
func (p *Pool) readPCM(r io.Reader, emit engine.ChunkFunc) (started bool, err error) {
	pcm, err := io.ReadAll(r)
	if err != nil {
		return false, fmt.Errorf("upstream: reading a worker's audio: %w", err)
	}
	if len(pcm) < 2 {
		return false, nil
	}
	samples := make([]float32, len(pcm)/2)
	for i := range samples {
		samples[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate}); err != nil {
		return true, fmt.Errorf("%w: %w", errEmit, err)
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
