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

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// fleet is the pool's workers: who they are (the URLs, and the addresses
// of the DNS names, looked up again every resolveEvery), whether each is
// healthy and which voices it has (checked every every), and which one
// takes a piece (pick.go).
type fleet struct {
	key    string
	client *http.Client
	every  time.Duration
	log    *slog.Logger
	// urls are Options.URLs' plain URLs, names its DNS names; lookup and
	// resolveEvery are Options'.
	urls         []string
	names        []dnsName
	lookup       func(ctx context.Context, host string) ([]string, error)
	resolveEvery time.Duration
	// workers is the current set, replaced whole when it changes.
	workers atomic.Pointer[[]*worker]
	turn    atomic.Uint64 // rotates the start of pick's scan
	// changed receives (at most one pending) when the workers, their
	// health or their voices change, for Follow.
	changed chan struct{}
	// scopeChecked is set once a worker that clones has said what scope
	// the key has (checkScope).
	scopeChecked atomic.Bool
	bg           context.Context // ends at close
	stop         context.CancelFunc
	loops        sync.WaitGroup
}

// dnsName is a dns+http URL of Options.URLs.
type dnsName struct {
	url, scheme, host, port string
}

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

// start looks up the names and checks every worker once, then keeps
// doing both in the background until close. It fails when no worker
// passed its check.
func (f *fleet) start(ctx context.Context) error {
	f.workers.Store(new([]*worker))
	f.resolve(ctx)
	ws := f.list()
	f.checkAll(ctx, ws)
	if !slices.ContainsFunc(ws, func(w *worker) bool { return w.healthy.Load() }) {
		return fmt.Errorf("%w: none of the %d workers is ready", ErrNoneReady, len(ws))
	}
	f.bg, f.stop = context.WithCancel(context.Background())
	f.loops.Go(func() { tick(f.bg, f.every, func() { f.checkAll(f.bg, f.list()) }) })
	if len(f.names) > 0 {
		// Workers found are checked at once, so that they take requests
		// and their voices are listed without waiting for the next round.
		f.loops.Go(func() { tick(f.bg, f.resolveEvery, func() { f.checkAll(f.bg, f.resolve(f.bg)) }) })
	}
	return nil
}

// close stops the health checks and lookups.
func (f *fleet) close() {
	f.stop()
	f.loops.Wait()
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

// list returns the current workers; the slice is not modified after.
func (f *fleet) list() []*worker { return *f.workers.Load() }

// healthy is the number of healthy workers.
func (f *fleet) healthy() int {
	n := 0
	for _, w := range f.list() {
		if w.healthy.Load() {
			n++
		}
	}
	return n
}

// notify tells Follow that something changed.
func (f *fleet) notify() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fleet) checkAll(ctx context.Context, ws []*worker) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { f.check(ctx, w) })
	}
	wg.Wait()
}

// tick runs fn every d until ctx ends.
func tick(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// resolve looks up the DNS names and makes the workers those of the
// URLs and of the addresses found; it returns the workers added.
func (f *fleet) resolve(ctx context.Context) (added []*worker) {
	old := f.list()
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
	for _, u := range f.urls {
		keep(u, "")
	}
	for _, n := range f.names {
		lctx, cancel := context.WithTimeout(ctx, checkTimeout)
		addrs, err := f.lookup(lctx, n.host)
		cancel()
		var dnsErr *net.DNSError
		if err != nil && !(errors.As(err, &dnsErr) && dnsErr.IsNotFound) {
			f.log.Warn("upstream: looking up workers failed; they stay as they were", "name", n.url, "err", err)
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
			f.log.Info("upstream: worker gone", "worker", w.url, "name", w.name)
		}
	}
	for _, w := range added {
		if w.name != "" {
			f.log.Info("upstream: worker found", "worker", w.url, "name", w.name)
		}
	}
	if len(added) > 0 || len(next) != len(old) {
		f.workers.Store(&next)
		f.notify()
	}
	return added
}

// checkTimeout bounds a health check: long enough that a worker slowed
// by load is not taken for dead.
const checkTimeout = 5 * time.Second

// check asks w whether it is ready and which voices it has.
func (f *fleet) check(ctx context.Context, w *worker) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	err := f.get(ctx, w.url+"/readyz", nil)
	var models wire.ModelList
	if err == nil {
		err = f.get(ctx, w.url+"/v1/models", &models)
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
			f.notify()
		}
		if len(models.CloneModels) > 0 && f.scopeChecked.CompareAndSwap(false, true) {
			f.checkScope(ctx, w)
		}
	}
	f.setHealthy(w, err == nil, err)
}

// checkScope asks w, a worker that clones, what scope the gateway's key
// has (GET /v1/account), and warns when it is not the gateway scope: the
// workers will then refuse every voice cloned from a recording. A worker
// that does not say (one of an older version, or a host application's
// accounts) is not warned about; one that cannot be asked is asked again
// at the next check.
func (f *fleet) checkScope(ctx context.Context, w *worker) {
	var a wire.Account
	if err := f.get(ctx, w.url+"/v1/account", &a); err != nil {
		f.scopeChecked.Store(false)
		return
	}
	if a.Scope != "" && a.Scope != string(store.ScopeGateway) {
		f.log.Warn("upstream: the gateway's key is not of the gateway scope: the workers will refuse voices cloned from recordings "+
			"(502); make one with: server keys create --account "+a.Name+" --scope gateway", "scope", a.Scope, "worker", w.url)
	}
}

// setHealthy puts w in rotation (ok) or out of it, for why.
func (f *fleet) setHealthy(w *worker, ok bool, why error) {
	if w.healthy.Swap(ok) == ok {
		return
	}
	f.notify()
	if ok {
		f.log.Info("upstream: worker healthy", "worker", w.url)
	} else {
		f.log.Warn("upstream: worker out of rotation", "worker", w.url, "err", why)
	}
}

func (f *fleet) get(ctx context.Context, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set(wire.HeaderProbe, "upstream")
	res, err := f.client.Do(req)
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
