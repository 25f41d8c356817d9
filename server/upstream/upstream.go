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
// stalled, is a 502 (fault.WorkerFailed). A worker whose connection
// failed, broke or stalled is out of rotation until its health check
// passes again. When no worker can take the piece, the answer is a 503
// with Retry-After (fault.NoWorker). Health checks (GET /readyz, and the
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
// says so (fault.GatewayScopeNeeded).
package upstream

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/voxkit/voxkit/engine"
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
// *fault.Error with RetryAfter.
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
// is safe for concurrent use. Its parts own one thing each: fleet the
// workers (who they are, their health, which one takes a piece: fleet.go,
// pick.go), clones the voices cloned from recordings and the samples read
// lately (samples.go), and caller the requests to one worker (piece.go,
// clone.go); Pool itself is the engine those make (speak.go).
type Pool struct {
	fleet  *fleet
	clones *cloneSet
	caller *caller
	// perWorker is Options.SlotsPerWorker (Follow).
	perWorker int
}

var (
	_ engine.Engine      = (*Pool)(nil)
	_ engine.VoiceLister = (*Pool)(nil)
	_ engine.Renderer    = (*Pool)(nil)
)

// ErrNoneReady is New's error when no worker passed its first check; a
// gateway may try again (its workers may be starting too).
var ErrNoneReady = errors.New("upstream: no worker ready")

// New returns a Pool of opts.URLs. It looks up their names and checks
// every worker once before it returns (so that the voice list is known),
// then keeps doing both in the background until Close. It fails only
// when no worker answers.
func New(ctx context.Context, opts Options) (*Pool, error) {
	if len(opts.URLs) == 0 {
		return nil, errors.New("upstream: no worker URLs")
	}
	f := &fleet{key: opts.Key, client: opts.Client, every: opts.CheckEvery, log: opts.Logger, changed: make(chan struct{}, 1)}
	for _, u := range opts.URLs {
		name, err := parseName(u)
		switch {
		case err != nil:
			return nil, err
		case name != nil:
			f.names = append(f.names, *name)
		default:
			f.urls = append(f.urls, strings.TrimRight(u, "/"))
		}
	}
	f.lookup = opts.LookupHost
	if f.lookup == nil {
		f.lookup = net.DefaultResolver.LookupHost
	}
	f.resolveEvery = cmp.Or(opts.ResolveEvery, DefaultResolveEvery)
	if f.client == nil {
		f.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}}
	}
	if f.every <= 0 {
		f.every = DefaultCheckEvery
	}
	if f.log == nil {
		f.log = slog.Default()
	}
	maxAudio := cmp.Or(opts.MaxAudio, DefaultMaxAudio)
	c := &caller{
		fleet:    f,
		maxAudio: maxAudio,
		maxBytes: int64(maxAudio.Seconds()*SampleRate)*2 + 2*SampleRate, // and a second's slack
		idle:     cmp.Or(opts.IdleTimeout, DefaultIdleTimeout),
		piece:    cmp.Or(opts.PieceTimeout, DefaultPieceTimeout),
	}
	p := &Pool{fleet: f, clones: &cloneSet{}, caller: c, perWorker: cmp.Or(opts.SlotsPerWorker, DefaultSlotsPerWorker)}
	if err := f.start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// Close stops the health checks and lookups.
func (p *Pool) Close() error {
	p.fleet.close()
	return nil
}

// Follow keeps synth, whose engine name is p, in line with the workers
// until ctx ends or p is closed: its catalog's voices of that engine are
// the workers' (Voices), and its render slots (tts.Options.MaxParallel)
// Options.SlotsPerWorker for each healthy worker, as many when none is.
// A gateway runs it beside its server: go pool.Follow(ctx, synth, name).
func (p *Pool) Follow(ctx context.Context, synth *tts.Synthesizer, name string) {
	for {
		synth.SetMaxParallel(p.perWorker * max(p.fleet.healthy(), 1))
		if err := synth.Voices().AddEngine(ctx, name, p, time.Now()); err != nil {
			p.fleet.log.Warn("upstream: workers' voices left out", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-p.fleet.bg.Done():
			return
		case <-p.fleet.changed:
		}
	}
}

// Ready reports whether at least one worker is healthy.
func (p *Pool) Ready(context.Context) error {
	if p.fleet.healthy() > 0 {
		return nil
	}
	return errors.New("no healthy upstream worker")
}

// Voices implements engine.VoiceLister: every voice any worker has had.
func (p *Pool) Voices(context.Context) ([]engine.Voice, error) {
	seen := map[string]engine.Voice{}
	for _, w := range p.fleet.list() {
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
