package catalog

import (
	"errors"
	"sync"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/voices"
)

// Samples a gateway sends (vocab.SamplePrefix): a worker speaks a voice
// cloned from a recording that lives in a gateway's store by the voice's
// sample, which the gateway sends with the speech request. The worker
// loads it into its cloning engine, which checks it against the model (a
// malformed sample is a 400, fault.BadSample), and keeps it, as a voice of
// the gateway's account named by the sample's hash, so that the
// gateway's next pieces in that voice need not carry it again. It holds
// at most maxSamples that no request is speaking, dropping the least
// recently used; the gateway sends a sample again when a worker no longer
// holds it (fault.SampleNeeded).

// errNoCloner is why a server with no cloning engine speaks no sample.
var errNoCloner = errors.New("no model here clones voices")

// maxSamples is the most samples a worker keeps loaded beyond those in
// use: a PocketTTS voice of 10 s is 0.5 MB.
const maxSamples = 64

// samples are the samples held, by account and voice.
type samples struct {
	mu    sync.Mutex
	held  map[sampleKey]*heldSample
	clock uint64 // counts uses, for the least recently used
}

type sampleKey struct{ account, voice string }

type heldSample struct {
	users int
	used  uint64
}

// sampleEngineVoice is the cloning engine's name for a sample: never a
// voice id a request can name.
func sampleEngineVoice(k sampleKey) string { return "sample/" + k.account + "/" + k.voice }

// HoldSample makes the sample voice of a speech request (a voice of
// vocab.SamplePrefix's form, with the sample itself or, nil, without it)
// speakable for account until release is called, which the caller must
// do once. Only a caller of the gateway scope may send a sample or name
// one: to others such a voice is unknown (404), as a voice that does not
// exist. Its errors: fault.SampleNeeded when the sample is not held and
// not sent, fault.BadSample when the engine cannot speak it.
func (c *Catalog) HoldSample(account string, scope store.Scope, voice string, sample []byte) (release func(), werr *fault.Error) {
	switch {
	case !vocab.IsSampleVoice(voice):
		return func() {}, nil
	case scope != store.ScopeGateway && sample != nil:
		return nil, fault.InsufficientScope(scope, store.ScopeGateway)
	case scope != store.ScopeGateway:
		return nil, fault.UnknownVoice(voice)
	}
	cloner, engineName := c.Synth.Cloner()
	if cloner == nil {
		return nil, fault.BadSample(errNoCloner)
	}
	k := sampleKey{account, voice}
	s := &c.samples
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[k]
	if h != nil && !c.Voices.Has(account, voice) {
		// Something took it out of the catalog (resyncs leave samples
		// alone): load it again.
		s.drop(c, k)
		h = nil
	}
	if h == nil {
		if sample == nil {
			return nil, fault.SampleNeeded(voice)
		}
		// The engine checks the sample (its format, its model, the
		// model's shapes) as it loads it.
		if err := cloner.LoadClone(sampleEngineVoice(k), sample); err != nil {
			return nil, fault.BadSample(err)
		}
		err := c.Voices.Add(voices.Voice{ID: voice, Owner: account, Engine: engineName, EngineVoice: sampleEngineVoice(k),
			Description: "a voice a gateway sent"})
		if err != nil {
			cloner.UnloadClone(sampleEngineVoice(k))
			return nil, fault.BadSample(err)
		}
		if s.held == nil {
			s.held = make(map[sampleKey]*heldSample)
		}
		h = &heldSample{}
		s.held[k] = h
	}
	s.clock++
	h.users++
	h.used = s.clock
	s.evict(c) // after marking h used: never h itself
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			h.users--
			s.evict(c)
		})
	}, nil
}

// evict drops the least recently used samples that no request speaks
// while more than maxSamples are held. s.mu is held.
func (s *samples) evict(c *Catalog) {
	for len(s.held) > maxSamples {
		var oldest *sampleKey
		var at uint64
		for k, h := range s.held {
			if h.users == 0 && (oldest == nil || h.used < at) {
				oldest, at = &k, h.used
			}
		}
		if oldest == nil {
			return // all in use: they go as their requests end
		}
		s.drop(c, *oldest)
	}
}

// drop forgets the sample k. s.mu is held.
func (s *samples) drop(c *Catalog, k sampleKey) {
	delete(s.held, k)
	c.Voices.Remove(k.account, k.voice)
	if cloner, _ := c.Synth.Cloner(); cloner != nil {
		cloner.UnloadClone(sampleEngineVoice(k))
	}
}
