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
// emitted only once the worker has sent all of it, so a failed piece
// leaves no part of itself in the gateway's answer.
//
// A piece is tried on another worker only when the first did not take
// it: its connection could not be made or broke before the request was
// sent whole, or it answered 503 or 429 (not ready, busy). Once a worker
// has the request, whatever goes wrong (the connection breaks, a 5xx, a
// stall, more audio than the gateway's limit) fails the piece, and the
// gateway's response with it, as any failed synthesis does (a stream
// already begun is cut): the request may be what failed the worker (a
// text that crashes its engine), and must not take every worker down in
// turn. A worker's own error is passed on as it wrote it (a 500
// engine_crashed, a 400); a connection that broke, or an answer that
// stalled, is a 502 (wire.WorkerFailed). A worker whose connection
// failed, broke or stalled is out of rotation until its health check
// passes again. When no worker can take the piece, the answer is a 503
// with Retry-After (wire.NoWorker). Health checks (GET /readyz, and the
// voice list from GET /v1/models) run every Options.CheckEvery.
//
// A worker is a URL, or all the addresses of a DNS name
// ("dns+http://voxkit-workers:8080", a Kubernetes headless Service),
// looked up again every Options.ResolveEvery: workers whose addresses
// appear are checked and join, those whose addresses go leave. Follow
// keeps a gateway's tts.Synthesizer in line with the workers: its voices
// are theirs, its render slots a number per healthy worker.
//
// A Pool is also the gateway's engine.Cloner, for voices cloned from
// recordings. Such a voice is its sample (what a worker's cloning engine
// made of the recording, kept in the gateway's store and read from it
// only when a worker needs it: AddClone), which the gateway sends with
// the first piece a worker gets in the voice ("voice": "sample:<sha256>",
// "voice_sample": base64; see wire.SamplePrefix); the worker checks it
// against its model, holds it,
// and later pieces name it by its hash only, until the worker answers 409
// voice_sample_needed. CloneVoice has a worker run the encoder (POST
// /v1/voice-samples). Both need Options.Key to be of the gateway scope
// (store.ScopeGateway): with another, such voices fail with a 502 that
// says so (wire.GatewayScopeNeeded).
package upstream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// SampleRate is the rate of the pcm the workers send.
const SampleRate = 24000

// DefaultCheckEvery is the time between health checks when
// Options.CheckEvery is 0.
const DefaultCheckEvery = time.Second

// DefaultResolveEvery is the time between lookups of the workers' DNS
// names when Options.ResolveEvery is 0: a pod that comes or goes is
// known within it.
const DefaultResolveEvery = 2 * time.Second

// DefaultSlotsPerWorker is Options.SlotsPerWorker when it is 0.
const DefaultSlotsPerWorker = 8

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

// ErrNoWorker is returned (wrapped) when no healthy worker has the
// voice. The error also holds the gateway's answer to its caller, a 503
// *wire.Error with RetryAfter.
var ErrNoWorker = errors.New("upstream: no healthy worker has the voice")

// Options configure a Pool.
type Options struct {
	// URLs are the workers' base addresses ("http://10.0.0.5:8080"), or
	// DNS names whose every address is a worker
	// ("dns+http://voxkit-workers:8080", port 80 when none is given).
	URLs []string
	// LookupHost returns the addresses of a dns+http name; nil means
	// net.DefaultResolver.LookupHost. A name that is not found has no
	// workers; any other failure keeps the workers it had.
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// ResolveEvery is the time between lookups of the dns+http names; 0
	// means DefaultResolveEvery.
	ResolveEvery time.Duration
	// SlotsPerWorker is how many pieces Follow lets the synthesizer send
	// at once for each healthy worker (tts.Options.MaxParallel): a few,
	// as each worker renders a couple at a time and queues the rest;
	// beyond them pieces wait in the gateway's own bounded queue. 0 means
	// DefaultSlotsPerWorker.
	SlotsPerWorker int
	// Key is an API key every worker accepts: of the gateway scope for
	// voices cloned from recordings (a speech key suffices for the others).
	Key string
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
	// CheckEvery is the time between health checks; 0 means
	// DefaultCheckEvery.
	CheckEvery time.Duration
	// Logger receives health changes; nil means slog.Default().
	Logger *slog.Logger
	// MaxAudio is the most audio one piece's answer may hold (the
	// gateway's own limit of a request: no piece can need more), and a
	// second. A piece whose worker sends more fails with the gateway's
	// limit (a tts.AudioLimitError, 400 audio_too_long as on a server
	// alone); it is not tried on another worker, and the worker stays in
	// rotation. 0 means DefaultMaxAudio.
	MaxAudio time.Duration
	// IdleTimeout fails a piece whose worker sends nothing for that long,
	// and PieceTimeout one whose whole answer takes longer (a worker that
	// trickles bytes): the worker is out of rotation until its next check
	// passes, and the piece is not tried on another (the worker had it).
	// 0 means DefaultIdleTimeout and DefaultPieceTimeout.
	IdleTimeout, PieceTimeout time.Duration
}

// Pool is a set of workers, and the engine that speaks through them. It
// is safe for concurrent use.
type Pool struct {
	key    string
	client *http.Client
	every  time.Duration
	// maxAudio is Options.MaxAudio, maxBytes the most pcm a piece's
	// answer may hold; idle and piece bound the time it may take
	// (Options).
	maxAudio    time.Duration
	maxBytes    int64
	idle, piece time.Duration
	log         *slog.Logger
	// urls are Options.URLs' plain URLs, names its DNS names; lookup and
	// resolveEvery are Options'.
	urls         []string
	names        []dnsName
	lookup       func(ctx context.Context, host string) ([]string, error)
	resolveEvery time.Duration
	perWorker    int
	// workers is the current set, replaced whole when it changes.
	workers atomic.Pointer[[]*worker]
	turn    atomic.Uint64 // rotates the start of pick's scan
	// changed receives (at most one pending) when the workers, their
	// health or their voices change, for Follow.
	changed chan struct{}
	// clones are the voices cloned from recordings, by name (AddClone,
	// LoadClone), and samples the samples read lately (see samples.go);
	// clonesMu guards both.
	clonesMu sync.Mutex
	clones   map[string]*clone
	samples  sampleCache
	// scopeChecked is set once a worker that clones has said what scope
	// the key has (checkScope).
	scopeChecked atomic.Bool
	bg           context.Context // ends at Close
	stop         context.CancelFunc
	loops        sync.WaitGroup
}

// dnsName is a dns+http URL of Options.URLs.
type dnsName struct {
	url, scheme, host, port string
}

var (
	_ engine.Engine      = (*Pool)(nil)
	_ engine.VoiceLister = (*Pool)(nil)
	_ engine.Renderer    = (*Pool)(nil)
)

// worker is one upstream server.
type worker struct {
	url         string
	name        string // the dns+http URL it was found under, "" for none
	healthy     atomic.Bool
	outstanding atomic.Int64
	requests    atomic.Uint64
	errors      atomic.Uint64

	mu     sync.Mutex
	voices map[string]engine.Voice
	// cloneModels are the models that clone there.
	cloneModels []string
	// spoke holds when the worker last answered for each voice: a worker
	// that loads voices on first use has it loaded, most likely (pick).
	spoke map[string]time.Time
}

// warmFor is how long after a worker spoke with a voice pick counts the
// voice as loaded there, and coldCost what pick counts a load as: about
// the wait of two requests ahead in its queue (a Piper medium voice loads
// in 0.3 to 1 s, a sentence renders in a fraction of that).
const (
	warmFor  = 10 * time.Minute
	coldCost = 2
)

// New returns a Pool of opts.URLs. It looks up their names and checks
// every worker once before it returns (so that the voice list is known),
// then keeps doing both in the background until Close. It fails only
// when no worker answers.
// ErrNoneReady is New's error when no worker passed its first check; a
// gateway may try again (its workers may be starting too).
var ErrNoneReady = errors.New("upstream: no worker ready")

func New(ctx context.Context, opts Options) (*Pool, error) {
	if len(opts.URLs) == 0 {
		return nil, errors.New("upstream: no worker URLs")
	}
	p := &Pool{key: opts.Key, client: opts.Client, every: opts.CheckEvery, log: opts.Logger, changed: make(chan struct{}, 1)}
	for _, u := range opts.URLs {
		name, err := parseName(u)
		switch {
		case err != nil:
			return nil, err
		case name != nil:
			p.names = append(p.names, *name)
		default:
			p.urls = append(p.urls, strings.TrimRight(u, "/"))
		}
	}
	p.lookup = opts.LookupHost
	if p.lookup == nil {
		p.lookup = net.DefaultResolver.LookupHost
	}
	p.resolveEvery = cmp.Or(opts.ResolveEvery, DefaultResolveEvery)
	p.perWorker = cmp.Or(opts.SlotsPerWorker, DefaultSlotsPerWorker)
	if p.client == nil {
		p.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}}
	}
	if p.every <= 0 {
		p.every = DefaultCheckEvery
	}
	p.maxAudio = cmp.Or(opts.MaxAudio, DefaultMaxAudio)
	p.maxBytes = int64(p.maxAudio.Seconds()*SampleRate)*2 + 2*SampleRate // and a second's slack
	p.idle = cmp.Or(opts.IdleTimeout, DefaultIdleTimeout)
	p.piece = cmp.Or(opts.PieceTimeout, DefaultPieceTimeout)
	if p.log == nil {
		p.log = slog.Default()
	}
	p.workers.Store(new([]*worker))
	p.resolve(ctx)
	ws := p.list()
	p.checkAll(ctx, ws)
	if !slices.ContainsFunc(ws, func(w *worker) bool { return w.healthy.Load() }) {
		return nil, fmt.Errorf("%w: none of the %d workers is ready", ErrNoneReady, len(ws))
	}
	p.bg, p.stop = context.WithCancel(context.Background())
	p.loops.Go(func() { tick(p.bg, p.every, func() { p.checkAll(p.bg, p.list()) }) })
	if len(p.names) > 0 {
		// Workers found are checked at once, so that they take requests
		// and their voices are listed without waiting for the next round.
		p.loops.Go(func() { tick(p.bg, p.resolveEvery, func() { p.checkAll(p.bg, p.resolve(p.bg)) }) })
	}
	return p, nil
}

// parseName returns the name of a dns+http URL, nil for an http:// or
// https:// one.
func parseName(s string) (*dnsName, error) {
	scheme, _, _ := strings.Cut(s, "://")
	switch scheme {
	case "http", "https":
		return nil, nil
	case "dns+http":
	default:
		return nil, fmt.Errorf("upstream: %q is not an http://, https:// or dns+http:// URL", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	if u.Hostname() == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("upstream: %q: want dns+http://NAME:PORT", s)
	}
	return &dnsName{url: s, scheme: "http", host: u.Hostname(), port: cmp.Or(u.Port(), "80")}, nil
}

// Close stops the health checks and lookups.
func (p *Pool) Close() error {
	p.stop()
	p.loops.Wait()
	return nil
}

// list returns the current workers; the slice is not modified after.
func (p *Pool) list() []*worker { return *p.workers.Load() }

// notify tells Follow that something changed.
func (p *Pool) notify() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *Pool) checkAll(ctx context.Context, ws []*worker) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { p.check(ctx, w) })
	}
	wg.Wait()
}

// tick runs f every d until ctx ends.
func tick(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// resolve looks up the DNS names and makes the workers those of the
// URLs and of the addresses found; it returns the workers added.
func (p *Pool) resolve(ctx context.Context) (added []*worker) {
	old := p.list()
	byURL := make(map[string]*worker, len(old))
	for _, w := range old {
		byURL[w.url] = w
	}
	var next []*worker
	seen := map[string]bool{}
	keep := func(url, name string) {
		if seen[url] {
			return
		}
		seen[url] = true
		w := byURL[url]
		if w == nil {
			w = &worker{url: url, name: name}
			added = append(added, w)
		}
		next = append(next, w)
	}
	for _, u := range p.urls {
		keep(u, "")
	}
	for _, n := range p.names {
		lctx, cancel := context.WithTimeout(ctx, checkTimeout)
		addrs, err := p.lookup(lctx, n.host)
		cancel()
		var dnsErr *net.DNSError
		if err != nil && !(errors.As(err, &dnsErr) && dnsErr.IsNotFound) {
			p.log.Warn("upstream: looking up workers failed; they stay as they were", "name", n.url, "err", err)
			for _, w := range old {
				if w.name == n.url {
					keep(w.url, w.name)
				}
			}
			continue
		}
		slices.Sort(addrs)
		for _, a := range addrs {
			keep(n.scheme+"://"+net.JoinHostPort(a, n.port), n.url)
		}
	}
	for _, w := range old {
		if !seen[w.url] {
			p.log.Info("upstream: worker gone", "worker", w.url, "name", w.name)
		}
	}
	for _, w := range added {
		if w.name != "" {
			p.log.Info("upstream: worker found", "worker", w.url, "name", w.name)
		}
	}
	if len(added) > 0 || len(next) != len(old) {
		p.workers.Store(&next)
		p.notify()
	}
	return added
}

// Follow keeps synth, whose engine name is p, in line with the workers
// until ctx ends or p is closed: its catalog's voices of that engine are
// the workers' (Voices), and its render slots (tts.Options.MaxParallel)
// Options.SlotsPerWorker for each healthy worker, as many when none is.
// A gateway runs it beside its server: go pool.Follow(ctx, synth, name).
func (p *Pool) Follow(ctx context.Context, synth *tts.Synthesizer, name string) {
	for {
		healthy := 0
		for _, w := range p.list() {
			if w.healthy.Load() {
				healthy++
			}
		}
		synth.SetMaxParallel(p.perWorker * max(healthy, 1))
		if err := synth.Voices().AddEngine(ctx, name, p, time.Now()); err != nil {
			p.log.Warn("upstream: workers' voices left out", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-p.bg.Done():
			return
		case <-p.changed:
		}
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
			vs[m.ID] = engine.Voice{Name: m.ID, Language: m.Language, Description: m.Description, SampleRate: m.SampleRate, Speaker: m.Speaker}
		}
		w.mu.Lock()
		same := maps.Equal(w.voices, vs)
		w.voices, w.cloneModels = vs, models.CloneModels
		w.mu.Unlock()
		if !same {
			p.notify()
		}
		if len(models.CloneModels) > 0 && p.scopeChecked.CompareAndSwap(false, true) {
			p.checkScope(ctx, w)
		}
	}
	p.setHealthy(w, err == nil, err)
}

// checkScope asks w, a worker that clones, what scope the gateway's key
// has (GET /v1/account), and warns when it is not the gateway scope: the
// workers will then refuse every voice cloned from a recording. A worker
// that does not say (one of an older version, or a host application's
// accounts) is not warned about; one that cannot be asked is asked again
// at the next check.
func (p *Pool) checkScope(ctx context.Context, w *worker) {
	var a wire.Account
	if err := p.get(ctx, w.url+"/v1/account", &a); err != nil {
		p.scopeChecked.Store(false)
		return
	}
	if a.Scope != "" && a.Scope != string(store.ScopeGateway) {
		p.log.Warn("upstream: the gateway's key is not of the gateway scope: the workers will refuse voices cloned from recordings "+
			"(502); make one with: server keys create --account "+a.Name+" --scope gateway", "scope", a.Scope, "worker", w.url)
	}
}

func (p *Pool) setHealthy(w *worker, ok bool, why error) {
	if w.healthy.Swap(ok) == ok {
		return
	}
	p.notify()
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
	req.Header.Set(wire.HeaderProbe, "upstream")
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
	if slices.ContainsFunc(p.list(), func(w *worker) bool { return w.healthy.Load() }) {
		return nil
	}
	return errors.New("no healthy upstream worker")
}

// Voices implements engine.VoiceLister: every voice any worker has had.
func (p *Pool) Voices(context.Context) ([]engine.Voice, error) {
	seen := map[string]engine.Voice{}
	for _, w := range p.list() {
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

// Renders implements engine.Renderer: the workers take a speed and
// phonemes (a piece said as IPA goes to the worker as a phoneme tag, which
// its own engine speaks, or reads as text where it takes no phonemes); the
// gateway's synthesizer applies every other control itself.
func (p *Pool) Renders(f engine.Feature) bool {
	return f == engine.FeatureRate || f == engine.FeaturePhonemes
}

// pick returns the healthy worker with voice that has the fewest requests
// outstanding, a worker that has not spoken with the voice lately counting
// coldCost more (it may have to load it), leaving out those in tried; when
// no healthy one is left, an unhealthy one (its last failure may have
// passed); nil if there is none.
func (p *Pool) pick(voice string, tried []*worker) *worker {
	return p.pickWith(voice, func(w *worker) bool { return w.has(voice) }, tried)
}

// pickWith is pick among the workers for which has holds (called with
// their mu held).
func (p *Pool) pickWith(voice string, has func(*worker) bool, tried []*worker) *worker {
	if w := p.pickAmong(voice, has, tried, true); w != nil {
		return w
	}
	return p.pickAmong(voice, has, tried, false)
}

// has reports whether w speaks voice: one it lists, or a sample
// (wire.IsSampleVoice) when a model clones there. w.mu is held.
func (w *worker) has(voice string) bool {
	if wire.IsSampleVoice(voice) {
		return len(w.cloneModels) > 0
	}
	_, ok := w.voices[voice]
	return ok
}

func (p *Pool) pickAmong(voice string, has func(*worker) bool, tried []*worker, healthy bool) *worker {
	ws := p.list()
	if len(ws) == 0 {
		return nil
	}
	var best *worker
	var bestCost int64
	// Start the scan at a rotating worker, so that ties go round.
	first := int(p.turn.Add(1) % uint64(len(ws)))
	for i := range ws {
		w := ws[(first+i)%len(ws)]
		if w.healthy.Load() != healthy || slices.Contains(tried, w) {
			continue
		}
		w.mu.Lock()
		speaks := has(w)
		cost := w.outstanding.Load()
		if !w.warm(voice) {
			cost += coldCost
		}
		w.mu.Unlock()
		if speaks && (best == nil || cost < bestCost) {
			best, bestCost = w, cost
		}
	}
	return best
}

// warm reports whether w answered for voice within warmFor. w.mu is held.
func (w *worker) warm(voice string) bool { return time.Since(w.spoke[voice]) <= warmFor }

// spokeWith notes that w answered for voice.
func (w *worker) spokeWith(voice string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spoke == nil {
		w.spoke = map[string]time.Time{}
	}
	w.spoke[voice] = time.Now()
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
	for _, w := range c.p.list() {
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
