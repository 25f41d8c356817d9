package onnx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/voxkit/voxkit/engine/internal/ortrun"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/voxkit/voxkit/engine"
)

// Model input and output names, as Piper exports them.
const (
	inputIDs     = "input"
	inputLengths = "input_lengths"
	inputScales  = "scales"
	inputSpeaker = "sid"
)

// errModelClosed is returned for a voice whose model was unloaded for
// good (by Close, or by a Rescan that dropped its files) before it could
// serve.
var errModelClosed = fmt.Errorf("onnx: %w: the voice was unloaded", engine.ErrUnknownVoice)

// model is one NAME.onnx of the catalog with its config. Its ORT session,
// shared by every request and every speaker of the voice (ORT sessions
// are safe for concurrent Run calls), is created on first use and freed
// when the memory budget needs the room (see resident.go).
type model struct {
	name  string // NAME
	path  string // NAME.onnx
	cfg   *Config
	stamp fileStamp // of the .onnx and .onnx.json, to notice changes
	size  int64     // bytes of NAME.onnx: what the memory budget counts for it loaded
	multi bool      // the model takes a sid input
	// outputs are the session's outputs: the audio, then the phoneme
	// durations when the model has them (a Piper model patched for
	// alignments; see piperOutputs).
	outputs []string
	kokoro  *kokoroModel // set for a Kokoro model (kokoro.go)
	arena   bool         // its sessions run on an arena (set by load)

	// Residency, guarded by Engine.res (resident.go).
	session *ort.DynamicAdvancedSession // nil while not loaded
	holds   int                         // requests using the session
	loading chan struct{}               // closed when a load under way ends
	waiters int                         // requests waiting for that load
	failed  error                       // why the model cannot load; kept until its files change
	used    uint64                      // Options.Memory's Tick when last released, for LRU eviction
	removed bool                        // dropped by a rescan or Close: unloaded at the last release
}

// fileStamp identifies a version of a voice's two files.
type fileStamp struct {
	modelSize, configSize int64
	modelTime, configTime int64
}

func stampOf(modelPath, configPath string) (fileStamp, error) {
	m, err := os.Stat(modelPath)
	if err != nil {
		return fileStamp{}, fmt.Errorf("model file: %w", err)
	}
	c, err := os.Stat(configPath)
	if err != nil {
		return fileStamp{}, fmt.Errorf("config file (NAME.onnx.json beside the model): %w", err)
	}
	return fileStamp{m.Size(), c.Size(), m.ModTime().UnixNano(), c.ModTime().UnixNano()}, nil
}

// readModel reads what the catalog needs of a Piper voice without creating
// a session: NAME.onnx.json, and the inputs and outputs of NAME.onnx,
// which must be a Piper model's (a sid input exactly when the config has
// several speakers).
func readModel(name, path string) (*model, error) {
	configPath := path + ".json"
	stamp, err := stampOf(path, configPath)
	if err != nil {
		return nil, fmt.Errorf("onnx: voice %s: %w", name, err)
	}
	cfg, err := ReadConfig(configPath)
	if err != nil {
		return nil, err
	}
	m := &model{name: name, path: path, cfg: cfg, stamp: stamp, size: stamp.modelSize, multi: cfg.NumSpeakers > 1}
	if m.outputs, err = piperOutputs(m.path, m.multi); err != nil {
		return nil, fmt.Errorf("onnx: voice %s: model %s: %w", name, path, err)
	}
	return m, nil
}

// sessionOptions are the ORT settings of every model of an Engine.
type sessionOptions struct {
	threads int
	arena   Arena
	spin    bool // let intra-op worker threads spin between runs
}

// load creates the model's session and checks it with one short run, so
// that a model that cannot serve fails here with a clear error rather
// than in the middle of a request.
func (m *model) load(so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	if m.kokoro != nil {
		return m.loadKokoro(so)
	}
	inputs := []string{inputIDs, inputLengths, inputScales}
	if m.multi {
		inputs = append(inputs, inputSpeaker)
	}
	s, err := newSession(m.path, inputs, m.outputs, so)
	if err != nil {
		return nil, fmt.Errorf("onnx: voice %s: model %s: %w", m.name, m.path, err)
	}
	m.arena = so.arena == ArenaPerSession || (so.arena == ArenaShared && sharedArenaReady())
	// One run of an empty sentence checks the inputs and output and warms
	// the session up. It speaks as the last speaker the config names, so
	// a config that claims more speakers than the model has is refused
	// here (the model's speaker table has no such row).
	var last int64
	if m.multi {
		last = int64(m.cfg.NumSpeakers - 1)
	}
	if _, _, err := m.run(context.Background(), s, m.cfg.IDs(nil, ""), m.cfg.LengthScale, last); err != nil {
		s.Destroy()
		if last > 0 {
			return nil, fmt.Errorf("onnx: voice %s: model %s: test run as speaker %d (num_speakers is %d): %w", m.name, m.path, last, m.cfg.NumSpeakers, err)
		}
		return nil, fmt.Errorf("onnx: voice %s: model %s: test run: %w", m.name, m.path, err)
	}
	return s, nil
}

// piperOutputs checks the inputs of the Piper model at path and returns
// its outputs to run: its audio output, then its phoneme durations when
// it has a second output, as piper1-gpl's patch_voice_with_alignment adds
// (the output of the duration predictor's Ceil node, frames per id,
// shape [1,1,N]).
func piperOutputs(path string, multi bool) ([]string, error) {
	mi, err := readModelInfo(path)
	if err != nil {
		return nil, err
	}
	for _, in := range []string{inputIDs, inputLengths, inputScales} {
		if _, ok := mi.input(in); !ok {
			return nil, fmt.Errorf("not a Piper model: it has no input %q", in)
		}
	}
	if _, ok := mi.input(inputSpeaker); ok != multi {
		return nil, fmt.Errorf("the config does not fit the model: num_speakers above 1 needs a model with a %q input, and only then may it have one", inputSpeaker)
	}
	outs := mi.outputs
	if len(outs) == 0 {
		return nil, errors.New("the model has no outputs")
	}
	names := []string{outs[0].name}
	if len(outs) > 1 && numericType(outs[1].elem) {
		names = append(names, outs[1].name)
	}
	return names, nil
}

// numericType reports whether a tensor element type is one that
// durations can be read from.
func numericType(t ort.TensorElementDataType) bool {
	switch t {
	case ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeDouble,
		ort.TensorElementDataTypeInt64, ort.TensorElementDataTypeInt32:
		return true
	}
	return false
}

// newSession creates the ORT session of a model file with the engine's
// settings; Piper and Kokoro models alike.
func newSession(path string, inputs, outputs []string, so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	shared := so.arena == ArenaShared && sharedArenaReady()
	err = errors.Join(
		opts.SetIntraOpNumThreads(so.threads),
		opts.SetInterOpNumThreads(1),
		opts.SetCpuMemArena(so.arena == ArenaPerSession || shared),
	)
	if err != nil {
		return nil, err
	}
	if shared {
		if err := opts.AddSessionConfigEntry("session.use_env_allocators", "1"); err != nil {
			return nil, err
		}
	}
	if so.threads > 1 && !so.spin {
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, err
		}
	}
	return ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
}

// run synthesizes one id sequence on the model's session s and returns
// the audio at the config's sample rate, and the frames of each id when
// the model gives them (nil otherwise). A done ctx terminates the run.
func (m *model) run(ctx context.Context, s *ort.DynamicAdvancedSession, ids []int64, lengthScale float32, sid int64) (audio []float32, durations []float64, err error) {
	var in tensors
	in.add(ort.NewTensor(ort.NewShape(1, int64(len(ids))), ids))
	in.add(ort.NewTensor(ort.NewShape(1), []int64{int64(len(ids))}))
	in.add(ort.NewTensor(ort.NewShape(3), []float32{m.cfg.NoiseScale, lengthScale, m.cfg.NoiseW}))
	if m.multi {
		in.add(ort.NewTensor(ort.NewShape(1), []int64{sid}))
	}
	return runAudio(ctx, s, &in, m.outputs, m.arena && len(ids) >= shrinkAboveIDs)
}

// shrinkAboveIDs is the length of input, in ids, from which a Piper run
// ends by shrinking the CPU arena: about 200 characters of text, some
// 13 s of audio (the usual sentence is 80 to 120 ids). A VITS decoder's
// activations grow with the audio (channels × samples float32), so two
// runs of the longest pieces (300 characters) at once take about 1 GB;
// the arena, which grows by powers of two and keeps what it took, held
// 1.4 to 1.9 GB after a few such runs and never gave it back. Shrinking
// frees its regions left unused at the end of the run; after ordinary
// sentences the arena stays as it is, so their runs find their memory
// ready (BenchmarkRSSLongSentences).
var shrinkAboveIDs = 400 // a variable for BenchmarkShrinkSpeed

// shrinkUnavailable warns once that shrinkArena failed.
var shrinkUnavailable sync.Once

// tensors collects the inputs of one run, and the first error making them.
type tensors struct {
	vals []ort.Value
	err  error
}

func (t *tensors) add(v ort.Value, err error) {
	if err != nil {
		t.err = errors.Join(t.err, err)
		return
	}
	t.vals = append(t.vals, v)
}

// runAudio runs s on the inputs and returns its first output, a float32
// tensor of audio, and its second, the durations, if outputs names one;
// the inputs and outputs are destroyed. A done ctx terminates the run
// and its error is returned. With shrink, the session's arena gives the
// memory the run freed back to the system at its end (shrinkArena).
func runAudio(ctx context.Context, s *ort.DynamicAdvancedSession, in *tensors, outputs []string, shrink bool) ([]float32, []float64, error) {
	defer func() {
		for _, v := range in.vals {
			v.Destroy()
		}
	}()
	if in.err != nil {
		return nil, nil, in.err
	}
	runOpts, release, err := ortrun.Options(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if shrink {
		if runOpts == nil {
			if runOpts, err = ort.NewRunOptions(); err != nil {
				return nil, nil, err
			}
			defer runOpts.Destroy()
		}
		if err := shrinkArena(runOpts); err != nil {
			// The shrink only gives memory back: where this ONNX Runtime
			// cannot be asked for it, the run goes on without, said once.
			shrinkUnavailable.Do(func() {
				slog.Warn("onnx: long runs cannot give ONNX Runtime's arena memory back", "err", err)
			})
		}
	}
	out := make([]ort.Value, len(outputs))
	err = s.RunWithOptions(in.vals, out, runOpts)
	for _, v := range out {
		if v != nil {
			defer v.Destroy()
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, err
	}
	t, ok := out[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("output %q is %s, want a float32 tensor", outputs[0], out[0].GetONNXType())
	}
	// The tensor's data is a Go slice (ORT's output is copied into it), so
	// it outlives the tensor.
	var durations []float64
	if len(out) > 1 {
		durations = numbers(out[1])
	}
	return t.GetData(), durations, nil
}

// numbers returns the values of a numeric tensor (of any shape) as
// float64s, nil for another value.
func numbers(v ort.Value) []float64 {
	switch t := v.(type) {
	case *ort.Tensor[float32]:
		return toFloat64(t.GetData())
	case *ort.Tensor[float64]:
		return toFloat64(t.GetData())
	case *ort.Tensor[int64]:
		return toFloat64(t.GetData())
	case *ort.Tensor[int32]:
		return toFloat64(t.GetData())
	}
	return nil
}

func toFloat64[T float32 | float64 | int64 | int32](x []T) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// sharedArenaReady reports whether the environment has the shared arena
// allocator.
func sharedArenaReady() bool {
	runtimeEnv.mu.Lock()
	defer runtimeEnv.mu.Unlock()
	return runtimeEnv.sharedArena
}
