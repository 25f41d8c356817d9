package supertonic

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/ortrun"
	"github.com/voxkit/voxkit/engine/onnx"
	ort "github.com/yalue/onnxruntime_go"
)

// sherpa-onnx's fixed settings: a chunk's duration is at least
// minDuration seconds once the speed divides it, a latent at most
// maxLatent frames, and chunks are parted by silence seconds.
const (
	minDuration = float32(0.1)
	maxLatent   = 10000
	silence     = float32(0.3)
)

// model is one Supertonic model directory.
type model struct {
	name    string
	dir     string
	cfg     config
	indexer []int32
	styles  []style
	version int      // 1, 2 or 3: see versionOf
	langs   []string // the languages it speaks, the first its default

	mu       sync.RWMutex // held for reading by each run; Lock closes
	closed   bool
	sessions [len(parts)]*session

	batches *batcher // nil: each chunk runs alone (Options.MaxBatch 1)

	memory *onnx.Memory // Options.Memory, counting size while the model is open
	size   int64        // bytes of the four graphs' files
}

// openOptions are an Engine's settings for the models it opens.
type openOptions struct {
	threads  int // ONNX Runtime's threads in one run
	maxBatch int // most chunks in a batch; 1: no batches
	workers  int // most batches of a model running at once
	memory   *onnx.Memory
}

var errModelClosed = errors.New("supertonic: model closed")

// errClosed is the error of an engine used after Close.
var errClosed = fmt.Errorf("supertonic: %w", engine.ErrClosed)

// session is one graph of a model. Its inputs and outputs are taken by
// position, as sherpa-onnx takes them.
type session struct {
	name    string
	s       *ort.DynamicAdvancedSession
	inputs  int
	outputs []string
}

func openSession(path string, threads int) (*session, error) {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("supertonic: %s: %w", path, err)
	}
	opts, err := ortrun.SessionOptions(threads)
	if err != nil {
		return nil, fmt.Errorf("supertonic: %w", err)
	}
	defer opts.Destroy()
	s, err := ort.NewDynamicAdvancedSession(path, names(ins), names(outs), opts)
	if err != nil {
		return nil, fmt.Errorf("supertonic: %s: %w", path, err)
	}
	return &session{name: filepath.Base(path), s: s, inputs: len(ins), outputs: names(outs)}, nil
}

func names(infos []ort.InputOutputInfo) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	return out
}

// run runs the session on in and returns its first output as float32
// data with its shape; the other outputs are discarded.
func (s *session) run(ctx context.Context, ro *ort.RunOptions, in []ort.Value) ([]float32, ort.Shape, error) {
	out, err := s.runTo(ctx, ro, in, nil)
	if err != nil {
		return nil, nil, err
	}
	defer out.Destroy()
	t, ok := out.(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("supertonic: %s: output %q is not a float32 tensor", s.name, s.outputs[0])
	}
	// The tensor's data is a Go slice ORT's output was copied into: it
	// outlives the tensor.
	return t.GetData(), t.GetShape(), nil
}

// runTo runs the session on in and returns its first output: written
// into dst when dst is not nil (ONNX Runtime fails the run when the
// output's shape is not dst's), else a tensor of its own the caller
// destroys. The other outputs are discarded.
func (s *session) runTo(ctx context.Context, ro *ort.RunOptions, in []ort.Value, dst ort.Value) (ort.Value, error) {
	out := make([]ort.Value, len(s.outputs))
	out[0] = dst
	err := s.s.RunWithOptions(in, out, ro)
	for _, v := range out[1:] {
		if v != nil {
			v.Destroy()
		}
	}
	if err != nil {
		if out[0] != nil && dst == nil {
			out[0].Destroy()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("supertonic: %s: %w", s.name, err)
	}
	return out[0], nil
}

// openModel opens the model in dir, named name.
func openModel(name, dir string, o openOptions) (_ *model, err error) {
	f, err := findFiles(dir)
	if err != nil {
		return nil, err
	}
	m := &model{name: name, dir: dir}
	if m.cfg, err = readConfig(f.config); err != nil {
		return nil, err
	}
	if m.indexer, err = readIndexer(f.indexer); err != nil {
		return nil, err
	}
	if m.styles, err = readStyles(f.voices); err != nil {
		return nil, err
	}
	m.version = versionOf(m.indexer)
	m.langs = languages[m.version]
	defer func() {
		if err != nil {
			m.close()
		}
	}()
	wantInputs := [len(parts)]int{3, 3, 7, 1}
	for i, p := range f.graphs {
		if m.sessions[i], err = openSession(p, o.threads); err != nil {
			return nil, err
		}
		if s := m.sessions[i]; s.inputs < wantInputs[i] || len(s.outputs) < 1 {
			return nil, fmt.Errorf("supertonic: %s has %d inputs and %d outputs, want %d and 1", p, s.inputs, len(s.outputs), wantInputs[i])
		}
	}
	if o.maxBatch > 1 {
		m.batches = newBatcher(m, o.maxBatch, o.workers)
	}
	for _, p := range f.graphs {
		if st, err := os.Stat(p); err == nil {
			m.size += st.Size()
		}
	}
	// The model stays loaded: it counts in the budget until it closes, and
	// others (Piper voices, clones) unload to make room for it.
	m.memory = o.memory
	m.memory.Add(m.size)
	m.memory.MakeRoom()
	return m, nil
}

func (m *model) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.memory.Add(-m.size)
	}
	m.closed = true
	var errs []error
	for i, s := range m.sessions {
		if s != nil {
			errs = append(errs, s.s.Destroy())
			m.sessions[i] = nil
		}
	}
	return errors.Join(errs...)
}

// languages are the languages each version speaks, its default first.
var languages = map[int][]string{
	1: {"en"},
	2: {"en", "ko", "es", "pt", "fr"},
	3: {"en", "ko", "ja", "ar", "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "hi", "hr", "hu",
		"id", "it", "lt", "lv", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sv", "tr", "uk", "vi"},
}

// versionOf tells a model's version from the characters its indexer
// knows: Supertonic 3 reads Cyrillic (Russian, Ukrainian, Bulgarian),
// Supertonic 2 Hangul jamo (Korean) but no Cyrillic, and Supertonic 1 (English
// only) neither.
func versionOf(indexer []int32) int {
	knows := func(r rune) bool { return int(r) < len(indexer) && indexer[r] >= 0 }
	switch {
	case knows('д'):
		return 3
	case knows(leadBase):
		return 2
	}
	return 1
}

// speaks reports whether the model speaks lang.
func (m *model) speaks(lang string) bool { return slices.Contains(m.langs, lang) }

// tag returns the language tag the model's text is wrapped in for lang:
// none for Supertonic 1, which has no tags.
func (m *model) tag(lang string) string {
	if m.version == 1 {
		return ""
	}
	return lang
}

// ids returns the model's ids of one chunk of text in lang: its prepared
// code points looked up in the indexer (0 beyond it, as in sherpa-onnx).
func (m *model) ids(text, lang string) []int64 {
	cps := codePoints(prepare(text, m.tag(lang)))
	ids := make([]int64, len(cps))
	for i, c := range cps {
		if int(c) < len(m.indexer) {
			ids[i] = int64(m.indexer[c])
		}
	}
	return ids
}

// chunkSize is the number of samples per latent frame.
func (m *model) chunkSize() int32 { return m.cfg.BaseChunkSize * m.cfg.ChunkCompressFactor }

// lengths returns a chunk's length in samples and in latent frames from
// its predicted duration in seconds, as sherpa-onnx computes them in
// float32: the duration divided by the speed and held at minDuration or
// more only when the speed is not 1; the samples rounded down (at least
// 1); the frames from the duration in samples, (d·rate + size − 1)/size
// rounded down in two float32 sums, at most maxLatent. maskLen is the
// frames the latent mask covers, ⌈samples/size⌉ in integers: sherpa-onnx
// speaks nothing of a chunk whose two lengths disagree.
func (m *model) lengths(d, speed float32) (samples int64, frames, maskLen int) {
	if speed != 1 {
		d = d / speed
		if d < minDuration {
			d = minDuration
		}
	}
	rate := float32(m.cfg.SampleRate)
	total := float32(d * rate)
	samples = max(int64(total), 1)
	size := m.chunkSize()
	f := float32(float32(float32(total+float32(size))-1) / float32(size))
	frames = min(int(int32(f)), maxLatent)
	maskLen = int((samples + int64(size) - 1) / int64(size))
	return samples, frames, maskLen
}

// runner makes a run's input tensors, remembering the first error, and
// frees them.
type runner struct {
	ctx  context.Context
	ro   *ort.RunOptions
	vals []ort.Value
	err  error
}

func (r *runner) floats(shape ort.Shape, data []float32) ort.Value {
	return r.keep(ort.NewTensor(shape, data))
}

func (r *runner) int64s(shape ort.Shape, data []int64) ort.Value {
	return r.keep(ort.NewTensor(shape, data))
}

func (r *runner) keep(v ort.Value, err error) ort.Value {
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("supertonic: %w", err)
		}
		return nil
	}
	r.vals = append(r.vals, v)
	return v
}

func (r *runner) free() {
	for _, v := range r.vals {
		v.Destroy()
	}
}
