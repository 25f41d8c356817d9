package onnx

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/voxkit/voxkit/engine"
)

// A voice's model is loaded (its ORT session created) on first use, and
// stays loaded while requests hold it (acquire … release). Once loaded
// models count more than Options.MemoryBudget (or, with Options.Memory,
// once what every engine sharing it loaded passes its limit), the least
// recently used things that no request holds are unloaded
// (Memory.MakeRoom); a held one never is, so the budget may be passed
// while more voices speak at once than it holds.
// The first request for a cold voice loads it; others that come for it
// meanwhile wait for that load rather than start their own.

var _ engine.VoiceHolder = (*Engine)(nil)

// Residency describes the loaded voices of an Engine (see
// Options.MemoryBudget).
type Residency struct {
	// Models is the number of models loaded (with an ORT session); a
	// multi-speaker Piper model or a Kokoro model is one for all its
	// voices.
	Models int
	// Bytes is what the loaded models count against the budget: the size
	// of their model files.
	Bytes int64
	// Budget is Options.MemoryBudget, or Options.Memory's limit (0:
	// none).
	Budget int64
	// Loads counts the models loaded since Load, LoadTime the time they
	// took, and LoadErrors the loads that failed.
	Loads, LoadErrors int64
	LoadTime          time.Duration
	// Evictions counts the models unloaded to stay within the budget.
	Evictions int64
}

// Residency reports the loaded voices and what loading them took.
func (e *Engine) Residency() Residency {
	e.res.Lock()
	defer e.res.Unlock()
	r := e.stats
	r.Budget = e.opts.Memory.Limit()
	return r
}

// HoldVoice implements engine.VoiceHolder: it loads the model of voice
// unless it is loaded, and keeps it loaded until release is called (a
// rescan that drops the voice meanwhile lets it finish speaking). load is
// the time this call spent loading, or waiting for another's load of the
// same model; 0 when the model was loaded.
func (e *Engine) HoldVoice(ctx context.Context, voice string) (release func(), load time.Duration, err error) {
	m, err := e.modelOf(voice)
	if err != nil {
		return nil, 0, err
	}
	_, load, err = e.acquire(ctx, m)
	if err != nil {
		return nil, load, err
	}
	e.holding(voice, m, +1)
	return func() { e.holding(voice, m, -1); e.release(m) }, load, nil
}

// modelOf returns the model that speaks voice: a Piper voice, or a Kokoro
// pack or blend.
func (e *Engine) modelOf(voice string) (*model, error) {
	m, _, err := e.lookup(voice)
	if errors.Is(err, engine.ErrUnknownVoice) {
		v, kerr := e.kokoroVoice(voice)
		if kerr != nil {
			return nil, kerr
		}
		return v.m, nil
	}
	return m, err
}

// holding counts a HoldVoice of voice on m, so that lookup finds m while
// it is held under that name even after a rescan dropped it.
func (e *Engine) holding(voice string, m *model, delta int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held == nil {
		e.held = map[string]*heldModel{}
	}
	h := e.held[voice]
	if h == nil || h.m != m {
		if delta < 0 {
			return // a newer hold of the name took its place
		}
		h = &heldModel{m: m}
		e.held[voice] = h
	}
	if h.n += delta; h.n <= 0 {
		delete(e.held, voice)
	}
}

// heldModel is a model held under a voice name by HoldVoice calls.
type heldModel struct {
	m *model
	n int
}

// acquire returns m's session, loading it first unless it is loaded, and
// holds it until release(m). load is the time spent loading or waiting
// for a load; a load, once started, finishes even if ctx ends.
func (e *Engine) acquire(ctx context.Context, m *model) (*ort.DynamicAdvancedSession, time.Duration, error) {
	start := time.Now()
	waited := false
	e.res.Lock()
	for m.loading != nil {
		waited = true
		wait := m.loading
		m.waiters++
		e.res.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
		}
		e.res.Lock()
		m.waiters--
		if err := ctx.Err(); err != nil {
			e.res.Unlock()
			return nil, time.Since(start), err
		}
	}
	switch {
	case m.session != nil:
		m.holds++
		s := m.session
		e.res.Unlock()
		if waited {
			return s, time.Since(start), nil
		}
		return s, 0, nil
	case m.failed != nil:
		e.res.Unlock()
		return nil, time.Since(start), m.failed
	case m.removed:
		e.res.Unlock()
		return nil, 0, errModelClosed
	}
	// A load for this caller: its gate may refuse it (engine.LoadGate).
	if err := engine.AllowLoad(ctx, m.name); err != nil {
		e.res.Unlock()
		return nil, 0, err
	}
	m.loading = make(chan struct{})
	e.res.Unlock()
	if e.beforeLoad != nil {
		e.beforeLoad(m)
	}

	s, err := m.load(e.sessionOptions())
	trimHeap() // the copies made while loading
	took := time.Since(start)

	e.res.Lock()
	close(m.loading)
	m.loading = nil
	if err != nil {
		if st, serr := m.currentStamp(); serr != nil || st != m.stamp {
			// Not the voice the catalog read: it is being removed or
			// replaced, and a rescan will read it again.
			err = fmt.Errorf("onnx: %w %q: its files changed or went since the last rescan: %w", engine.ErrUnknownVoice, m.name, err)
		}
		m.failed = err
		e.stats.LoadErrors++
		e.res.Unlock()
		e.log.Warn("onnx: voice failed to load", "voice", m.name, "err", err)
		return nil, took, err
	}
	m.session, m.holds = s, 1
	e.stats.Models++
	e.stats.Bytes += m.size
	e.opts.Memory.Add(m.size)
	e.stats.Loads++
	e.stats.LoadTime += took
	e.resident[m] = struct{}{}
	loaded := e.stats.Bytes
	e.res.Unlock()
	e.opts.Memory.MakeRoom()
	e.log.Info("onnx: voice loaded", "voice", m.name, "seconds", took.Seconds(), "loaded_bytes", loaded)
	if e.opts.OnLoad != nil {
		e.opts.OnLoad(m.name, took)
	}
	return s, took, nil
}

// release ends a hold of acquire's on m.
func (e *Engine) release(m *model) {
	e.res.Lock()
	m.holds--
	m.used = e.opts.Memory.Tick()
	var drop []*ort.DynamicAdvancedSession
	if m.holds == 0 && m.removed && m.session != nil {
		drop = append(drop, e.unresident(m))
	}
	e.res.Unlock()
	unload(drop)
	e.opts.Memory.MakeRoom()
}

// residentModels are an Engine's loaded models as its Memory sees them:
// MakeRoom unloads the least recently used that no request holds.
type residentModels struct{ e *Engine }

var _ Resident = residentModels{}

// lru returns the least recently used loaded model that no request
// holds, or nil. e.res is held.
func (e *Engine) lru() *model {
	var lru *model
	for m := range e.resident {
		if m.holds == 0 && (lru == nil || m.used < lru.used) {
			lru = m
		}
	}
	return lru
}

// Oldest implements Resident.
func (r residentModels) Oldest() (uint64, bool) {
	r.e.res.Lock()
	defer r.e.res.Unlock()
	if m := r.e.lru(); m != nil {
		return m.used, true
	}
	return 0, false
}

// Unload implements Resident.
func (r residentModels) Unload(stamp uint64) bool {
	e := r.e
	e.res.Lock()
	m := e.lru()
	if m == nil || m.used != stamp {
		e.res.Unlock()
		return false
	}
	s := e.unresident(m)
	e.stats.Evictions++
	e.res.Unlock()
	e.log.Info("onnx: voice unloaded to stay within the memory budget", "voice", m.name)
	unload([]*ort.DynamicAdvancedSession{s})
	return true
}

// unresident takes m's session away from it and returns it. e.res is held
// and m.holds is 0.
func (e *Engine) unresident(m *model) *ort.DynamicAdvancedSession {
	s := m.session
	m.session = nil
	delete(e.resident, m)
	e.stats.Models--
	e.stats.Bytes -= m.size
	e.opts.Memory.Add(-m.size)
	return s
}

// unload destroys sessions that no request holds.
func unload(sessions []*ort.DynamicAdvancedSession) {
	for _, s := range sessions {
		s.Destroy()
	}
	if len(sessions) > 0 {
		trimHeap()
	}
}

// retire marks models that a rescan or Close dropped: each is unloaded now
// if no request holds it, else when the last one ends.
func (e *Engine) retire(models []*model) {
	e.res.Lock()
	var drop []*ort.DynamicAdvancedSession
	for _, m := range models {
		m.removed = true
		if m.holds == 0 && m.session != nil {
			drop = append(drop, e.unresident(m))
		}
	}
	e.res.Unlock()
	unload(drop)
}

// validate loads m and unloads it again, for Options.Strict.
func (e *Engine) validate(m *model) error {
	s, err := m.load(e.sessionOptions())
	if err != nil {
		return err
	}
	unload([]*ort.DynamicAdvancedSession{s})
	return nil
}

func (e *Engine) sessionOptions() sessionOptions {
	return sessionOptions{threads: e.opts.IntraOpThreads, arena: e.opts.Arena, spin: e.opts.Spin}
}

// ParseSize parses a memory size such as "512MB", "2GB", "1.5GiB" or
// "300000000" (bytes): B, KB, MB, GB and TB are powers of 1000, KiB, MiB,
// GiB and TiB of 1024, in any case. For Options.MemoryBudget.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num, unit := t, ""
	if i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }); i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || f*mult > 1<<62 {
		return 0, fmt.Errorf("onnx: size %q: want a number of bytes with an optional unit such as MB or GiB", s)
	}
	return int64(f * mult), nil
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}
