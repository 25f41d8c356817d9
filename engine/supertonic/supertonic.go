package supertonic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/modeldir"
	"github.com/voxkit/voxkit/engine/internal/sherpatext"
	"github.com/voxkit/voxkit/engine/onnx"
)

// DefaultSteps is the number of flow steps when none is asked for, as in
// sherpa-onnx.
const DefaultSteps = 5

// Options configure Load. The zero value loads no models.
type Options struct {
	// LibraryPath is the ONNX Runtime shared library; empty means
	// onnx.FindLibrary's well-known places.
	LibraryPath string
	// VoicesDir is searched for model directories (see the package doc);
	// each directory's name is its model id. Other entries are left
	// alone (engine/onnx and engine/pocket read theirs).
	VoicesDir string
	// Models are more model directories.
	Models []string
	// Threads is the number of threads ONNX Runtime uses inside one
	// graph run; 0 means 1.
	Threads int
	// Steps is the number of flow steps; 0 means DefaultSteps.
	Steps int
	// MaxBatch is the most chunks of text, from concurrent requests for
	// one model, that run through its graphs as one batch; 0 means
	// DefaultMaxBatch, 1 runs every chunk alone. Batches form only while
	// the model is busy (see the package doc): a lone request never
	// waits, and a chunk's samples are those it has alone.
	MaxBatch int
	// Memory, if set, is the budget the engines share (the server's
	// -voice-memory; see onnx.Memory): each open model counts the bytes
	// of its four graphs' files in it, as a Piper voice counts its
	// model's. A Supertonic model stays loaded while its directory is
	// there, so opening one unloads the least recently used Piper voices
	// and clones nothing is using, while the budget is passed.
	Memory *onnx.Memory
	// Logger receives load logs; nil means slog.Default().
	Logger *slog.Logger
}

// Engine speaks with Supertonic models through ONNX Runtime. It
// implements engine.Engine, engine.VoiceLister and engine.VoiceResolver
// and is safe for concurrent use.
type Engine struct {
	log   *slog.Logger
	steps int

	// dir, extra and open are Options.VoicesDir, Options.Models and the
	// models' settings, for Rescan; rescanning lets one run at a time.
	dir        string
	extra      []string
	open       openOptions
	rescanning sync.Mutex
	lib        string // Options.LibraryPath

	mu     sync.RWMutex
	models map[string]*model
	closed bool
}

var (
	_ engine.Engine        = (*Engine)(nil)
	_ engine.VoiceLister   = (*Engine)(nil)
	_ engine.VoiceResolver = (*Engine)(nil)
)

// Load initializes ONNX Runtime (once per process, see onnx.InitRuntime)
// and opens every model of opts.VoicesDir and opts.Models. A model that
// fails to open fails Load.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Steps < 0 {
		return nil, fmt.Errorf("supertonic: %d steps", opts.Steps)
	}
	if opts.MaxBatch < 0 {
		return nil, fmt.Errorf("supertonic: a batch of %d", opts.MaxBatch)
	}
	threads := max(opts.Threads, 1)
	e := &Engine{log: opts.Logger, steps: cmpOr(opts.Steps, DefaultSteps), models: map[string]*model{},
		dir: opts.VoicesDir, extra: slices.Clone(opts.Models), lib: opts.LibraryPath,
		open: openOptions{threads: threads, maxBatch: cmpOr(opts.MaxBatch, DefaultMaxBatch), workers: batchWorkers(threads), memory: opts.Memory}}
	dirs, err := modelDirs(opts.VoicesDir, opts.Models)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return e, nil // a Rescan may bring some
	}
	if err := onnx.InitRuntime(opts.LibraryPath, opts.Logger); err != nil {
		return nil, err
	}
	for name, d := range dirs {
		if err := ctx.Err(); err != nil {
			e.Close()
			return nil, err
		}
		m, err := openModel(name, d, e.open)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.models[name] = m
		e.log.Debug("supertonic: model loaded", "model", name, "dir", d, "version", m.version, "voices", len(m.styles))
	}
	return e, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// modelDirs returns the model directories of voicesDir and extra, by
// model id (the directory's name).
func modelDirs(voicesDir string, extra []string) (map[string]string, error) {
	return modeldir.Find("supertonic", voicesDir, extra, isModelDir)
}

// Models returns the ids of the loaded models, sorted.
func (e *Engine) Models() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []string
	for name := range e.models {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// MaxBatch returns the most chunks a batch of one model runs
// (Options.MaxBatch, DefaultMaxBatch for 0); 1: batching is off.
func (e *Engine) MaxBatch() int { return e.open.maxBatch }

// voice is a voice name resolved: MODEL:SPEAKER speaks the model's first
// language, MODEL:SPEAKER:LANG another it speaks.
type voice struct {
	m     *model
	style *style
	lang  string
}

func (e *Engine) resolve(name string) (voice, error) {
	modelName, rest, _ := strings.Cut(name, onnx.SpeakerSep)
	speaker, lang, _ := strings.Cut(rest, onnx.SpeakerSep)
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return voice{}, errClosed
	}
	m, ok := e.models[modelName]
	if !ok {
		return voice{}, fmt.Errorf("supertonic: %w %q", engine.ErrUnknownVoice, name)
	}
	i := slices.IndexFunc(m.styles, func(s style) bool { return s.name == speaker })
	if i < 0 {
		return voice{}, fmt.Errorf("supertonic: %w %q (model %s has no voice %q)", engine.ErrUnknownVoice, name, modelName, speaker)
	}
	if lang == "" {
		lang = m.langs[0]
	}
	if !m.speaks(lang) {
		return voice{}, fmt.Errorf("supertonic: %w %q (model %s speaks %s)", engine.ErrUnknownVoice, name, modelName, strings.Join(m.langs, ", "))
	}
	return voice{m: m, style: &m.styles[i], lang: lang}, nil
}

// Voices lists every model's voices: MODEL:SPEAKER in its first language
// and MODEL:SPEAKER:LANG in each other language it speaks.
func (e *Engine) Voices(ctx context.Context) ([]engine.Voice, error) {
	var out []engine.Voice
	for _, name := range e.Models() {
		e.mu.RLock()
		m := e.models[name]
		e.mu.RUnlock()
		if m == nil {
			continue
		}
		for _, st := range m.styles {
			for i, lang := range m.langs {
				id := name + onnx.SpeakerSep + st.name
				if i > 0 {
					id += onnx.SpeakerSep + lang
				}
				out = append(out, describe(id, m, st.name, lang))
			}
		}
	}
	return out, nil
}

func describe(id string, m *model, speaker, lang string) engine.Voice {
	return engine.Voice{Name: id, Language: lang, SampleRate: int(m.cfg.SampleRate), Speaker: speaker,
		Description: fmt.Sprintf("Supertonic %d voice %s (%s, %s)", m.version, speaker, m.name, lang)}
}

// ResolveVoice describes a voice name (engine.VoiceResolver).
func (e *Engine) ResolveVoice(name string) (engine.Voice, error) {
	v, err := e.resolve(name)
	if err != nil {
		return engine.Voice{}, err
	}
	return describe(name, v.m, v.style.name, v.lang), nil
}

// Synthesize speaks req in the voice named req.Voice with the engine's
// steps (Options.Steps). See SynthesizeSteps.
func (e *Engine) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	return e.SynthesizeSteps(ctx, req, e.steps, emit)
}

// SynthesizeSteps speaks req with steps flow steps (0: the engine's). The
// text is cut as sherpa-onnx's ChunkText cuts it (chunks of at most 300
// code points, 120 in Korean and Japanese); each chunk is one engine.Chunk,
// emitted as soon as it is made, after 0.3 s of silence for every chunk
// but the first. Words, when asked for, are the chunk's words spread over
// its speech by their length (Estimated: the model predicts only the
// chunk's duration). Prosody.Rate is the model's speed. A req.Seed other than
// 0 seeds the noise (as sherpa-onnx's seed does: the same seed, voice,
// text and steps give the same samples); 0 draws a new one.
func (e *Engine) SynthesizeSteps(ctx context.Context, req engine.Request, steps int, emit engine.ChunkFunc) error {
	v, err := e.resolve(req.Voice)
	if err != nil {
		return err
	}
	if steps == 0 {
		steps = e.steps
	}
	if steps < 0 {
		return fmt.Errorf("supertonic: %d steps", steps)
	}
	maxLen := 300
	if v.lang == "ko" || v.lang == "ja" {
		maxLen = 120
	}
	seed := uint32(req.Seed)
	if req.Seed == 0 {
		seed = rand.Uint32()
	}
	n := newNoise(seed) // one generator for the whole text, as in sherpa-onnx
	speed := float32(req.Prosody.RateOrDefault())
	rate := int(v.m.cfg.SampleRate)
	gap := int(silence * float32(rate))
	sent := 0 // samples emitted so far
	for _, sp := range sherpatext.Locate(req.Text, sherpatext.Chunks(req.Text, maxLen)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		wav, err := v.m.speak(ctx, v.style, v.lang, sp.Text, steps, speed, n)
		if err != nil {
			return err
		}
		if len(wav) == 0 {
			continue
		}
		lead := 0
		if sent > 0 {
			lead = gap
			wav = append(make([]float32, gap, gap+len(wav)), wav...)
		}
		ch := engine.Chunk{Samples: wav, SampleRate: rate}
		if req.Words {
			ch.Words = sherpatext.Spread(req.Text, sp, sent+lead, len(wav)-lead)
		}
		sent += len(wav)
		if err := emit(ch); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Rescan reads Options.VoicesDir (and Options.Models) again: model
// directories added since are opened and their voices listed, and models
// whose directories are gone are closed (a request speaking with one ends
// with an error). A model directory whose files change in place is not
// reopened: remove it, rescan, and add it back. A model that fails to
// open is left out and its error returned (joined with the others'); the
// rest are served. Rescan reports whether the set of models changed.
func (e *Engine) Rescan(ctx context.Context) (changed bool, err error) {
	e.rescanning.Lock()
	defer e.rescanning.Unlock()
	dirs, err := modelDirs(e.dir, e.extra)
	if err != nil {
		return false, err
	}
	opened, errs := modeldir.OpenNew(ctx, dirs, func(name string) bool {
		e.mu.RLock()
		defer e.mu.RUnlock()
		return e.models[name] != nil
	}, func(name, dir string) (*model, error) {
		if err := onnx.InitRuntime(e.lib, e.log); err != nil {
			return nil, err
		}
		return openModel(name, dir, e.open)
	})
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		for _, m := range opened {
			m.close()
		}
		return false, errClosed
	}
	removed := modeldir.Prune(e.models, dirs)
	maps.Copy(e.models, opened)
	e.mu.Unlock()
	for _, m := range removed {
		errs = append(errs, m.close())
		e.log.Info("supertonic: model removed", "model", m.name)
	}
	for name := range opened {
		e.log.Info("supertonic: model added", "model", name, "dir", dirs[name])
	}
	return len(opened)+len(removed) > 0, errors.Join(errs...)
}

// Close frees the models. Running requests finish first.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	models := e.models
	e.models = map[string]*model{}
	e.mu.Unlock()
	var errs []error
	for _, m := range models {
		errs = append(errs, m.close())
	}
	return errors.Join(errs...)
}

// batchWorkers is the most batches of one model that run at once: as
// many as the machine's processors hold runs of threads threads.
func batchWorkers(threads int) int { return max(runtime.GOMAXPROCS(0)/threads, 1) }
