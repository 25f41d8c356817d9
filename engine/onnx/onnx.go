package onnx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/sentence"
)

// SpeakerSep separates a multi-speaker voice's name from the speaker in a
// voice id, as in "en_GB-vctk-medium:p239".
const SpeakerSep = ":"

// Options configure Load. The zero value loads no voices.
type Options struct {
	// LibraryPath is the ONNX Runtime shared library. Empty means
	// FindLibrary's well-known places.
	LibraryPath string
	// Phonemizer turns text into IPA for voices whose phoneme_type is
	// espeak (all Piper voices but a few). Required when such a voice
	// is loaded; the espeak engine provides one.
	Phonemizer engine.Phonemizer
	// VoicesDir is a directory of Piper voices, NAME.onnx beside
	// NAME.onnx.json, and of Kokoro models beside their voice packs
	// (see the package doc). Load loads every voice in it; Rescan picks
	// up changes.
	VoicesDir string
	// Models are more NAME.onnx files to load, each with its
	// NAME.onnx.json or, for a Kokoro model, its packs beside it. One of
	// them that cannot be read into the catalog (a missing file, a bad
	// config, a Piper voice without a Phonemizer) fails Load, Strict or
	// not; a voice of VoicesDir that cannot is left out with a warning.
	Models []string
	// IntraOpThreads is the number of threads ORT uses inside one model
	// run. 0 means DefaultIntraOpThreads.
	IntraOpThreads int
	// Arena chooses how ONNX Runtime keeps the working memory of model
	// runs: the zero value, ArenaShared, is one arena for every session.
	Arena Arena
	// Spin lets ONNX Runtime's intra-op worker threads (IntraOpThreads
	// above 1) spin while they wait for work, instead of sleeping: faster
	// on an idle machine, costly on a busy one (docs/decisions.md). Off by
	// default.
	Spin bool
	// Strict makes Load fail when any voice cannot load (a corrupt model,
	// a model of another family, a missing or bad config, two voices of
	// one name): it loads each model once, runs it and unloads it again.
	// By default Load only reads the voices' configs and checks their
	// model files' inputs and outputs, logging a voice that fails and
	// leaving it out, and a model that passes those checks yet cannot
	// load fails its requests (with the reason, in the log too); Rescan
	// always reports the voices it leaves out in its error.
	Strict bool
	// MemoryBudget bounds the bytes of model files that may stay loaded
	// (see ParseSize): a voice's model is loaded (its ONNX Runtime session
	// created) on first use, and once loaded models pass the budget the
	// least recently used ones that no request is using are unloaded. A
	// model in use is never unloaded, so the budget may be passed while
	// more voices speak at once than it holds. 0 means no bound: a model
	// stays loaded once used. What a loaded model really costs in
	// resident memory is about its file's size for a Piper voice
	// (docs/deploy.md has the measurements).
	MemoryBudget int64
	// Memory, if set, is a budget shared with other engines (engine/pocket
	// counts its clones in it): the loaded models count in it, and it
	// replaces MemoryBudget.
	Memory *Memory
	// OnLoad, if set, is called after each model load with the voice
	// (model) name and the time the load took: for metrics.
	OnLoad func(model string, took time.Duration)
	// Logger receives load and debug logs; nil means slog.Default().
	Logger *slog.Logger
}

// Arena is a choice of ONNX Runtime CPU memory arena (Options.Arena).
type Arena int

// The arenas. An arena keeps a model run's peak working memory allocated
// for the next run, which makes runs faster; one per session costs that
// memory for every voice, one shared costs it once. A Piper run of a long
// piece (about 200 characters and more, whose VITS decoder takes hundreds
// of MB) ends by giving the arena's unused regions back to the system,
// so the arena keeps what ordinary sentences need, not what the longest
// took. docs/decisions.md has the measurements (BenchmarkArena,
// BenchmarkRSSPerVoice, BenchmarkRSSLongSentences).
const (
	// ArenaShared has every session use one arena-backed allocator
	// registered on the ONNX Runtime environment
	// (session.use_env_allocators). The default.
	ArenaShared Arena = iota
	// ArenaOff runs without an arena: the least memory, slower runs.
	ArenaOff
	// ArenaPerSession gives each session (model) an arena of its own.
	ArenaPerSession
)

// DefaultIntraOpThreads is the intra-op thread count used when
// Options.IntraOpThreads is 0. One thread per run holds up when the
// machine is loaded, where more collapse (every operator waits for its
// slowest thread); concurrent requests use the other cores.
// docs/decisions.md has the measurements.
const DefaultIntraOpThreads = 1

// Engine synthesizes speech with Piper (VITS) voices through ONNX Runtime.
// It implements engine.Engine and engine.VoiceLister and is safe for
// concurrent use.
type Engine struct {
	opts Options
	log  *slog.Logger

	scan   sync.Mutex // serializes rescans
	mu     sync.RWMutex
	models map[string]*model     // by NAME
	held   map[string]*heldModel // by the voice name HoldVoice was given
	closed bool

	res      sync.Mutex // guards the residency of every model (resident.go) and:
	resident map[*model]struct{}
	stats    Residency
	// beforeLoad, set by tests, is called before a model is loaded.
	beforeLoad func(*model)
}

var (
	_ engine.Engine        = (*Engine)(nil)
	_ engine.VoiceLister   = (*Engine)(nil)
	_ engine.Renderer      = (*Engine)(nil)
	_ engine.VoiceResolver = (*Engine)(nil)
)

// Renders reports the Prosody controls the engine renders besides the
// rate: only the gain. VITS has no pitch, range, whisper or emphasis
// control, so callers apply those to the audio. It also speaks
// Request.Phonemes (FeaturePhonemes): IPA fed to the model as it is.
func (e *Engine) Renders(f engine.Feature) bool {
	return f == engine.FeatureGain || f == engine.FeaturePhonemes
}

// Load finds and initializes ONNX Runtime (once per process; see
// FindLibrary), then reads the catalog of voices of opts.VoicesDir and
// opts.Models: their configs, and the inputs and outputs of their model
// files, which it does not load (see Options.MemoryBudget), so Load
// takes about as long for a hundred voices as for one. A voice that
// fails those checks is logged and left out, and the others serve (but a
// file of Options.Models that fails them fails Load); with
// Options.Strict each model is also loaded, checked with a short run and
// unloaded, and any voice that fails fails Load. A missing library or an
// unreadable directory fails Load.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.IntraOpThreads <= 0 {
		opts.IntraOpThreads = DefaultIntraOpThreads
	}
	if err := InitRuntime(opts.LibraryPath, opts.Logger); err != nil {
		return nil, err
	}
	if opts.Memory == nil {
		opts.Memory = NewMemory(opts.MemoryBudget)
	}
	e := &Engine{opts: opts, log: opts.Logger, models: map[string]*model{}, resident: map[*model]struct{}{}}
	opts.Memory.Join(residentModels{e})
	files, err := e.voiceFiles()
	if files == nil && err != nil {
		e.Close()
		return nil, err // the directory cannot be read
	}
	_, syncErr := e.sync(ctx, files, opts.Strict)
	if err := errors.Join(err, syncErr); err != nil {
		if opts.Strict || ctx.Err() != nil || e.missesModels() {
			e.Close()
			return nil, err
		}
		e.log.Warn("onnx: voices left out", "err", err)
	}
	return e, nil
}

// missesModels reports whether a file of Options.Models is not in the
// catalog (as the voice its name gives): the caller named it, so Load
// fails rather than warns.
func (e *Engine) missesModels() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, p := range e.opts.Models {
		if m := e.models[strings.TrimSuffix(filepath.Base(p), ".onnx")]; m == nil || m.path != p {
			return true
		}
	}
	return false
}

// voiceFiles lists the .onnx files of Options.Models and Options.VoicesDir
// by voice name.
func (e *Engine) voiceFiles() (map[string]string, error) {
	files := map[string]string{}
	var errs []error
	add := func(path string) {
		name := strings.TrimSuffix(filepath.Base(path), ".onnx")
		if old, dup := files[name]; dup {
			errs = append(errs, fmt.Errorf("onnx: voice %s is in both %s and %s", name, old, path))
			return
		}
		files[name] = path
	}
	for _, p := range e.opts.Models {
		if !strings.HasSuffix(p, ".onnx") {
			errs = append(errs, fmt.Errorf("onnx: model %s: want a NAME.onnx file", p))
			continue
		}
		add(p)
	}
	if e.opts.VoicesDir != "" {
		entries, err := os.ReadDir(e.opts.VoicesDir)
		if err != nil {
			return nil, fmt.Errorf("onnx: voices directory: %w", err)
		}
		for _, ent := range entries {
			n := ent.Name()
			switch {
			case strings.HasSuffix(n, ".onnx"):
				add(filepath.Join(e.opts.VoicesDir, n))
			case strings.HasSuffix(n, ".onnx.json"):
				if _, err := os.Stat(filepath.Join(e.opts.VoicesDir, strings.TrimSuffix(n, ".json"))); err != nil {
					errs = append(errs, fmt.Errorf("onnx: voice config %s has no model beside it: %w", n, err))
				}
			}
		}
	}
	return files, errors.Join(errs...)
}

// Rescan brings the catalog in line with Options.VoicesDir and
// Options.Models, reading configs as Load does and loading no model: new
// voices are added, voices whose files changed are read again (and load
// anew at their next use) and voices whose files are gone are removed,
// their models unloaded once the requests using them finish. A voice
// that fails the checks is reported in the error and left out (or, if it
// changed, kept as it was); the others are still updated. If the
// directory cannot be read, nothing changes. It reports whether any
// voice was added, changed or removed.
func (e *Engine) Rescan(ctx context.Context) (changed bool, err error) {
	files, err := e.voiceFiles()
	if files == nil && err != nil {
		return false, err // the directory cannot be read: keep what is loaded
	}
	changed, syncErr := e.sync(ctx, files, false)
	return changed, errors.Join(err, syncErr)
}

// sync reads the voices of files that are new or changed into the
// catalog and removes those not in files; validate loads each of them
// once to check it (Options.Strict).
func (e *Engine) sync(ctx context.Context, files map[string]string, validate bool) (bool, error) {
	e.scan.Lock()
	defer e.scan.Unlock()
	e.mu.RLock()
	current := maps.Clone(e.models)
	closed := e.closed
	e.mu.RUnlock()
	if closed {
		return false, errClosed
	}
	read := map[string]*model{}
	var errs []error
	for name, path := range files {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if old := current[name]; old != nil && old.path == path {
			if st, err := old.currentStamp(); err == nil && st == old.stamp {
				continue
			}
		}
		m, err := e.readVoice(name, path) // Piper or Kokoro
		if err == nil && m.cfg.PhonemeType == "espeak" && e.opts.Phonemizer == nil {
			err = fmt.Errorf("onnx: voice %s needs a phonemizer (Options.Phonemizer)", name)
		}
		if err == nil && validate {
			err = e.validate(m)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read[name] = m
		e.log.Debug("onnx: voice found", "voice", name, "rate", m.cfg.SampleRate, "speakers", m.cfg.NumSpeakers, "path", path)
	}
	var drop []*model
	e.mu.Lock()
	for name, m := range e.models {
		_, keep := files[name]
		if repl := read[name]; repl != nil || !keep {
			drop = append(drop, m)
			delete(e.models, name)
		}
	}
	for name, m := range read {
		e.models[name] = m
	}
	e.mu.Unlock()
	e.retire(drop)
	for _, m := range drop {
		if read[m.name] == nil {
			e.log.Info("onnx: voice removed", "voice", m.name)
		}
	}
	return len(read) > 0 || len(drop) > 0, errors.Join(errs...)
}

// Voices lists one voice per single-speaker model, one per speaker of a
// multi-speaker model (NAME:SPEAKER) and one per pack of a Kokoro model
// (see the package doc), sorted by name.
func (e *Engine) Voices(ctx context.Context) ([]engine.Voice, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := e.kokoroVoices()
	for _, m := range e.models {
		if m.kokoro != nil {
			continue
		}
		desc := fmt.Sprintf("Piper %s (%s, %d Hz)", m.cfg.Dataset, m.cfg.Quality, m.cfg.SampleRate)
		if !m.multi {
			out = append(out, engine.Voice{Name: m.name, Language: m.cfg.Language, Description: desc, SampleRate: m.cfg.SampleRate})
			continue
		}
		for _, sp := range m.cfg.speakerNames() {
			out = append(out, engine.Voice{
				Name:        m.name + SpeakerSep + sp,
				Language:    m.cfg.Language,
				Description: desc + ", speaker " + sp,
				SampleRate:  m.cfg.SampleRate,
				Speaker:     sp,
			})
		}
	}
	slices.SortFunc(out, func(a, b engine.Voice) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// lookup returns the model and speaker id of a voice name. A
// multi-speaker voice's bare NAME means its speaker 0. A voice that a
// rescan removed is still found while HoldVoice holds it.
func (e *Engine) lookup(voice string) (*model, int64, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return nil, 0, errClosed
	}
	name, _, _ := strings.Cut(voice, SpeakerSep)
	for _, m := range []*model{e.models[voice], e.models[name], e.heldModel(voice)} {
		if m == nil || m.kokoro != nil {
			continue
		}
		if sid, ok := m.speaker(voice); ok {
			return m, sid, nil
		}
	}
	return nil, 0, fmt.Errorf("onnx: %w %q", engine.ErrUnknownVoice, voice)
}

// heldModel returns the model HoldVoice holds under voice, or nil. e.mu is
// held.
func (e *Engine) heldModel(voice string) *model {
	if h := e.held[voice]; h != nil {
		return h.m
	}
	return nil
}

// speaker returns the speaker id of voice, NAME or NAME:SPEAKER, in m.
func (m *model) speaker(voice string) (int64, bool) {
	if voice == m.name {
		return 0, true
	}
	name, sp, ok := strings.Cut(voice, SpeakerSep)
	if !ok || name != m.name || !m.multi {
		return 0, false
	}
	sid, ok := m.cfg.Speakers[sp]
	return sid, ok
}

// Synthesize speaks req.Text one sentence at a time, a sentence ending
// after each clause that ends in ".", "?" or "!" as in Piper, and emits
// one chunk per sentence at the voice's own sample rate. Prosody.Rate
// divides the config's length_scale and Prosody.Gain scales the audio;
// the other controls are ignored (see Renders). Samples are clipped to
// [-1, 1] but not normalized. Each chunk carries the timings of its
// words (see the package doc). ctx is checked between sentences and also
// stops a model run under way.
func (e *Engine) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	if req.Phonemes != "" {
		return e.speakPhonemes(ctx, req, emit)
	}
	m, sid, err := e.lookup(req.Voice)
	if errors.Is(err, engine.ErrUnknownVoice) {
		return e.synthesizeKokoro(ctx, req, emit) // a Kokoro pack or blend, or unknown
	}
	if err != nil {
		return err
	}
	s, _, err := e.acquire(ctx, m)
	if err != nil {
		return e.runError(ctx, req, err)
	}
	defer e.release(m)
	lengthScale := m.cfg.LengthScale / float32(req.Prosody.RateOrDefault())
	gain := gainOf(req.Prosody)
	at, from := 0, 0 // samples emitted, bytes of req.Text passed
	for _, text := range sentence.Split(req.Text, 0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		sentences, err := e.phonemes(ctx, m, text)
		if err != nil {
			return err
		}
		runs := make([]idRun, len(sentences))
		for i, phonemes := range sentences {
			t := &wordTracker{}
			runs[i] = idRun{ids: m.cfg.ids(nil, phonemes, t), info: t.info, words: int(t.words)}
		}
		words := dealPiece(req.Text, text, &from, runs)
		for i, r := range runs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if len(r.ids) <= 3 { // ^ _ $: nothing to say
				continue
			}
			audio, durations, err := m.run(ctx, s, r.ids, lengthScale, sid)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("onnx: voice %s: %w", req.Voice, err)
			}
			scale(audio, gain)
			c := engine.Chunk{Samples: audio, SampleRate: m.cfg.SampleRate}
			c.Words = words.timings(i, durations, float64(m.cfg.HopLength), at, len(audio))
			if err := emit(c); err != nil {
				return err
			}
			at += len(audio)
		}
	}
	return ctx.Err()
}

// phonemes returns the phonemes of text as Piper feeds them to its
// models: one string per sentence, a sentence being the clauses up to one
// that ends in ".", "?" or "!" (espeak-ng's sentence clauses), joined by
// spaces, each clause keeping its closing punctuation. So "Dr. Smith
// lives here." is two sentences, as in Piper, although
// engine/sentence keeps it as one.
func (e *Engine) phonemes(ctx context.Context, m *model, text string) ([]string, error) {
	if m.cfg.PhonemeType == "text" {
		return []string{text}, nil
	}
	clauses, err := e.opts.Phonemizer.Phonemize(ctx, m.cfg.EspeakVoice, text)
	if err != nil {
		return nil, fmt.Errorf("onnx: phonemize for voice %s: %w", m.name, err)
	}
	return sentencesOf(clauses), nil
}

// sentencesOf joins phonemized clauses into sentences: the clauses up to
// one that ends in ".", "?" or "!", joined by spaces.
func sentencesOf(clauses []string) []string {
	var out []string
	start := 0
	for i, c := range clauses {
		if i == len(clauses)-1 || strings.HasSuffix(c, ".") || strings.HasSuffix(c, "?") || strings.HasSuffix(c, "!") {
			out = append(out, strings.Join(clauses[start:i+1], " "))
			start = i + 1
		}
	}
	return out
}

// gainOf returns the factor that applies p.Gain.
func gainOf(p engine.Prosody) float32 {
	if p.Gain == 0 {
		return 1
	}
	return float32(math.Pow(10, p.Gain/20))
}

// scale multiplies x by gain and clips it to [-1, 1].
func scale(x []float32, gain float32) {
	for i, v := range x {
		v *= gain
		if v > 1 {
			v = 1
		} else if v < -1 {
			v = -1
		} else if v != v { // NaN
			v = 0
		}
		x[i] = v
	}
}

// errClosed is the error of an engine used after Close.
var errClosed = fmt.Errorf("onnx: %w", engine.ErrClosed)

// Close removes every voice and unloads its model, at once or, for a
// model in use, when its requests end. It does not tear down the
// process-wide ONNX Runtime environment.
func (e *Engine) Close() error {
	e.mu.Lock()
	models := slices.Collect(maps.Values(e.models))
	e.models = nil
	e.closed = true
	e.mu.Unlock()
	e.retire(models)
	e.opts.Memory.Leave(residentModels{e})
	return nil
}
