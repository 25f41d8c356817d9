package pocket

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/sherpatext"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/codec/wavfile"
	"github.com/voxkit/voxkit/internal/dsp"
)

// Options configure Load. The zero value loads no models.
type Options struct {
	// LibraryPath is the ONNX Runtime shared library; empty means
	// onnx.FindLibrary's well-known places.
	LibraryPath string
	// VoicesDir is searched for model directories in sherpa-onnx's
	// release layout (see the package doc); each directory's name is
	// its model id. Other entries are left alone (engine/onnx reads the
	// Piper and Kokoro voices of the same directory).
	VoicesDir string
	// Models are more model directories.
	Models []string
	// Threads is the number of threads ONNX Runtime uses inside one
	// model run; 0 means 1.
	Threads int
	// Logger receives load logs; nil means slog.Default().
	Logger *slog.Logger
	// Memory, if set, is the budget that clones added with AddClone
	// count in while loaded (engine/onnx's voices may share it): past
	// it, the least recently used that no request is speaking are
	// forgotten until next spoken. nil: a clone stays once loaded.
	Memory *onnx.Memory
}

// Engine speaks with PocketTTS models through ONNX Runtime, in voices
// cloned from recordings. It implements engine.Engine and
// engine.VoiceLister and is safe for concurrent use.
type Engine struct {
	log  *slog.Logger
	opts Options

	// dir, extra and threads are Options.VoicesDir, Options.Models and
	// the threads per run, for Rescan; rescanning lets one run at a time.
	dir        string
	extra      []string
	threads    int
	rescanning sync.Mutex

	mu     sync.RWMutex
	models map[string]*model
	refs   map[string]string // "MODEL:STEM" → a recording in MODEL/test_wavs
	voices map[string]*Voice // added voices and encoded recordings, by name
	closed bool

	// lz guards the clones added with AddClone (clones.go).
	lz   sync.Mutex
	lazy map[string]*lazyClone
}

var (
	_ engine.Engine      = (*Engine)(nil)
	_ engine.VoiceLister = (*Engine)(nil)
	_ engine.Cloner      = (*Engine)(nil)
)

// ErrUnknownModel is returned (wrapped) for a model id the engine has not
// loaded.
var ErrUnknownModel = errors.New("pocket: unknown model")

// Load initializes ONNX Runtime (once per process, see onnx.InitRuntime)
// and opens every model of opts.VoicesDir and opts.Models. A model that
// fails to open fails Load.
func Load(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	threads := max(opts.Threads, 1)
	if err := onnx.InitRuntime(opts.LibraryPath, opts.Logger); err != nil {
		return nil, err
	}
	dirs, err := modelDirs(opts.VoicesDir, opts.Models)
	if err != nil {
		return nil, err
	}
	e := &Engine{log: opts.Logger, opts: opts, lazy: map[string]*lazyClone{}, dir: opts.VoicesDir, extra: slices.Clone(opts.Models), threads: threads,
		models: map[string]*model{}, refs: map[string]string{}, voices: map[string]*Voice{}}
	for name, d := range dirs {
		if err := ctx.Err(); err != nil {
			e.Close()
			return nil, err
		}
		m, err := openModel(name, d, threads)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.models[name] = m
		e.log.Debug("pocket: model loaded", "model", name, "dir", d)
	}
	e.refs = recordings(e.models)
	opts.Memory.Join(residentClones{e})
	return e, nil
}

// Models returns the ids of the loaded models, sorted.
func (e *Engine) Models() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return slices.Sorted(mapKeys(e.models))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (e *Engine) model(name string) (*model, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return nil, errClosed
	}
	m, ok := e.models[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownModel, name)
	}
	return m, nil
}

// Clone makes a voice from a recording: it runs model's encoder on the
// first MaxReference seconds of samples, resampled to SampleRate when
// sampleRate differs, and returns the result with settings s. The voice
// can be stored (Voice.MarshalBinary) and spoken with SynthesizeVoice or,
// once added, Synthesize.
func (e *Engine) Clone(ctx context.Context, model string, samples []float32, sampleRate int, s Settings) (*Voice, error) {
	m, err := e.model(model)
	if err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	if sampleRate <= 0 {
		return nil, fmt.Errorf("%w: sample rate %d", ErrRecording, sampleRate)
	}
	if sampleRate != SampleRate {
		r, err := dsp.NewResampler(sampleRate, SampleRate)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRecording, err) // a rate not resampled
		}
		samples = r.Flush(r.Process(nil, samples[:min(len(samples), (MaxReference+1)*sampleRate)]))
	}
	if len(samples) < minReference {
		return nil, fmt.Errorf("%w: %d samples at %d Hz, want at least %d ms", ErrRecording, len(samples), SampleRate, minReference*1000/SampleRate)
	}
	lat, frames, dim, err := m.encode(ctx, samples)
	if err != nil {
		return nil, err
	}
	if frames == 0 {
		return nil, fmt.Errorf("%w: the encoder made nothing of it", ErrRecording)
	}
	return &Voice{Model: model, Frames: frames, Dim: dim, Latents: lat, Settings: s}, nil
}

// minReference is the shortest recording Clone takes: one frame of the
// encoder (80 ms). Callers that want a useful clone ask for more (the
// server wants a second).
const minReference = SampleRate * 2 / 25

// ErrRecording is returned (wrapped) by Clone for a recording it cannot
// make a voice of, with the reason: engine.ErrRecording.
var ErrRecording = engine.ErrRecording

// AddVoice makes v speakable by Synthesize as name. A name already in use
// is replaced.
func (e *Engine) AddVoice(name string, v *Voice) error {
	m, err := e.model(v.Model)
	if err != nil {
		return err
	}
	if err := v.validate(); err != nil {
		return err
	}
	if err := m.fits(v); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.voices[name] = v
	return nil
}

// RemoveVoice removes a voice added with AddVoice, LoadClone or
// AddClone.
func (e *Engine) RemoveVoice(name string) {
	e.mu.Lock()
	delete(e.voices, name)
	e.mu.Unlock()
	e.lz.Lock()
	defer e.lz.Unlock()
	e.forget(name)
}

// voice returns the voice of a name: an added voice, or a model's
// recording ("MODEL:STEM" for MODEL/test_wavs/STEM.wav), cloned with
// DefaultSettings the first time it is asked for.
func (e *Engine) voice(ctx context.Context, name string) (*Voice, error) {
	e.mu.RLock()
	v, ok := e.voices[name]
	ref, isRef := e.refs[name]
	e.mu.RUnlock()
	if ok {
		return v, nil
	}
	if !isRef {
		return nil, fmt.Errorf("pocket: %w %q", engine.ErrUnknownVoice, name)
	}
	f, err := os.Open(ref)
	if err != nil {
		return nil, fmt.Errorf("pocket: %w", err)
	}
	defer f.Close()
	a, err := wavfile.Decode(f, 0)
	if err != nil {
		return nil, fmt.Errorf("pocket: %s: %w", ref, err)
	}
	model, _, _ := strings.Cut(name, onnx.SpeakerSep)
	if v, err = e.Clone(ctx, model, a.Samples, a.SampleRate, DefaultSettings()); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.voices[name] = v
	return v, nil
}

// Voices lists the recordings of each model's test_wavs directory (as
// "MODEL:STEM"). Voices added with AddVoice or LoadClone are not listed:
// they are their adder's to offer.
func (e *Engine) Voices(ctx context.Context) ([]engine.Voice, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []engine.Voice
	for _, n := range slices.Sorted(mapKeys(e.refs)) {
		model, _, _ := strings.Cut(n, onnx.SpeakerSep)
		out = append(out, engine.Voice{Name: n, Language: Language, SampleRate: SampleRate, Description: "PocketTTS voice (" + model + ")"})
	}
	return out, nil
}

// CloneModels lists the loaded models (engine.Cloner).
func (e *Engine) CloneModels() []string { return e.Models() }

// CloneVoice clones req's recording (see Clone) and returns the voice
// encoded by Voice.MarshalBinary (engine.Cloner). Unset settings are
// DefaultSettings'.
func (e *Engine) CloneVoice(ctx context.Context, req engine.CloneRequest) ([]byte, error) {
	model := req.Model
	if model == "" {
		models := e.Models()
		if len(models) != 1 {
			return nil, fmt.Errorf("%w: %d models loaded, name one", ErrUnknownModel, len(models))
		}
		model = models[0]
	}
	s := Settings{Temperature: DefaultTemperature, Steps: req.Steps, Seed: req.Seed}
	if req.Temperature != nil {
		s.Temperature = *req.Temperature
	}
	v, err := e.Clone(ctx, model, req.Samples, req.SampleRate, s)
	if err != nil {
		return nil, err
	}
	return v.MarshalBinary()
}

// LoadClone decodes a voice made by CloneVoice and adds it as name
// (engine.Cloner). Unlike AddVoice it keeps a voice whose model is not
// loaded: Synthesize refuses it (an engine.UnsupportedVoiceError) until
// a Rescan finds a model of that id.
func (e *Engine) LoadClone(name string, data []byte) error {
	v, err := e.decodeClone(data)
	if err != nil {
		return err
	}
	e.lz.Lock()
	e.forget(name)
	e.lz.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.voices[name] = v
	return nil
}

// UnloadClone removes a voice loaded by LoadClone (engine.Cloner).
func (e *Engine) UnloadClone(name string) { e.RemoveVoice(name) }

// Synthesize speaks req in the voice named req.Voice (see AddVoice and
// Voices).
func (e *Engine) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	c, v, _, err := e.holdClone(ctx, req.Voice)
	if err != nil {
		return err
	}
	if c != nil {
		defer e.releaseClone(c)
	} else if v, err = e.voice(ctx, req.Voice); err != nil {
		return err
	}
	err = e.SynthesizeVoice(ctx, v, req, emit)
	if errors.Is(err, ErrUnknownModel) {
		return &engine.UnsupportedVoiceError{Voice: req.Voice, Err: err,
			Reason: fmt.Sprintf("its model %s is not loaded (not in the voices directory); it speaks again once the model is back", v.Model)}
	}
	return err
}

// SynthesizeVoice speaks req in voice v (req.Voice is not read). The text
// is cut into pieces as sherpa-onnx cuts it (sentences, short ones joined,
// long ones cut at 200 characters), each piece is generated frame by frame
// and its audio passed to emit in chunks of 15 frames (1.2 s) as soon as
// they exist. The rate (Prosody.Rate) time-stretches the audio; the
// model has no other speaking-style control. Words, when asked for, are
// spread over each piece's audio by their length (Estimated). A
// req.Seed other than 0 replaces v's seed.
func (e *Engine) SynthesizeVoice(ctx context.Context, v *Voice, req engine.Request, emit engine.ChunkFunc) error {
	m, err := e.model(v.Model)
	if err != nil {
		return err
	}
	if err := v.validate(); err != nil {
		return err
	}
	if err := m.fits(v); err != nil {
		return err
	}
	rate := req.Prosody.RateOrDefault()
	spans := sherpatext.Locate(req.Text, pieces(req.Text))
	if len(spans) == 0 {
		return ctx.Err()
	}
	primed, release, err := m.primed(ctx, v)
	if err != nil {
		return err
	}
	defer release()
	steps := v.Steps
	if steps <= 0 {
		steps = DefaultSteps
	}
	seed := v.Seed
	if req.Seed != 0 {
		seed = req.Seed
	}
	noise := newNoise(v.Temperature, seed) // one draw for the whole text
	var sent int                           // samples emitted so far
	for _, p := range spans {
		if err := ctx.Err(); err != nil {
			return err
		}
		var audio [][]float32 // this piece's chunks, kept only for word timings
		err := m.speak(ctx, primed, steps, noise, p.Text, func(samples []float32) error {
			if err := ctx.Err(); err != nil {
				return err // a chunk decoded as the call was cancelled is not sent
			}
			if rate != 1 {
				samples = dsp.Stretch(samples, SampleRate, rate)
			}
			ch := engine.Chunk{Samples: samples, SampleRate: SampleRate}
			if req.Words {
				audio = append(audio, samples)
				return nil
			}
			sent += len(samples)
			return emit(ch)
		})
		if err != nil {
			return err
		}
		if req.Words {
			if err := emitWithWords(req.Text, p, audio, &sent, emit); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// StreamsChunks reports that the engine's chunks come as they are
// decoded (engine.ChunkStreamer): a stream sends each on at once.
func (e *Engine) StreamsChunks() bool { return true }

// Close frees the models. Running requests finish first.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	models := e.models
	e.models = map[string]*model{}
	e.mu.Unlock()
	e.opts.Memory.Leave(residentClones{e})
	return closeModels(models)
}
