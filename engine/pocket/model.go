package pocket

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/ortrun"
	ort "github.com/yalue/onnxruntime_go"
)

// SampleRate is the rate of PocketTTS's audio, and of the recordings its
// encoder takes, in hertz.
const SampleRate = 24000

// Language is the language PocketTTS speaks, its voices' and their
// clones' (Kyutai's model, and sherpa-onnx's export of it, are English
// only: the text conditioner's vocabulary is English).
const Language = "en"

// MaxReference is the longest stretch of a recording a clone is made from:
// only its first MaxReference seconds count (as in sherpa-onnx).
const MaxReference = 10 // seconds

// The generation's fixed settings, sherpa-onnx's defaults: a piece stops
// framesAfterEOS frames after the model's end-of-speech logit first passes
// eosThreshold, or after maxFrames frames (40 s); frames are decoded
// chunkFrames at a time (1.2 s of audio).
const (
	maxFrames      = 500
	framesAfterEOS = 3
	eosThreshold   = -4
	chunkFrames    = 15
)

// parts names the five ONNX files of a model directory. Each is NAME.onnx,
// or NAME.int8.onnx when that is absent, as in sherpa-onnx's releases.
var parts = [...]string{"text_conditioner", "encoder", "lm_main", "lm_flow", "decoder"}

// model is one PocketTTS model directory.
type model struct {
	name string
	dir  string
	tok  *tokenizer
	// latentDim and embedDim are lm_main's frame and embedding sizes
	// (sherpa-onnx's 32 and 1024 when the model leaves them dynamic).
	latentDim, embedDim int64

	mu       sync.RWMutex // held for reading by each run; Lock closes
	closed   bool
	textCond *session
	encoder  *session
	lmMain   *session
	lmFlow   *session
	decoder  *session
	states   *states // lm_main's, kept from call to call
}

var errModelClosed = errors.New("pocket: model closed")

// errClosed is the error of an engine used after Close.
var errClosed = fmt.Errorf("pocket: %w", engine.ErrClosed)

// isModelDir reports whether dir holds a PocketTTS model: its lm_main.
func isModelDir(dir string) bool {
	_, err := partPath(dir, "lm_main")
	return err == nil
}

// partPath returns the file of a part in dir.
func partPath(dir, part string) (string, error) {
	for _, name := range []string{part + ".onnx", part + ".int8.onnx"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("pocket: %s has neither %s.onnx nor %s.int8.onnx", dir, part, part)
}

// openModel opens the model in dir, named name.
func openModel(name, dir string, threads int) (_ *model, err error) {
	m := &model{name: name, dir: dir}
	defer func() {
		if err != nil {
			m.close()
		}
	}()
	if m.tok, err = loadTokenizer(filepath.Join(dir, "vocab.json"), filepath.Join(dir, "token_scores.json")); err != nil {
		return nil, err
	}
	sessions := []**session{&m.textCond, &m.encoder, &m.lmMain, &m.lmFlow, &m.decoder}
	for i, part := range parts {
		p, err := partPath(dir, part)
		if err != nil {
			return nil, err
		}
		if *sessions[i], err = openSession(p, threads); err != nil {
			return nil, err
		}
	}
	err = errors.Join(m.textCond.check(1, 1), m.encoder.check(1, 1), m.lmMain.check(2, 2), m.lmFlow.check(4, 1), m.decoder.check(1, 1))
	if err != nil {
		return nil, err
	}
	m.states = newStates(m.lmMain)
	m.latentDim = lastDim(m.lmMain.inputs[0], 32)
	m.embedDim = lastDim(m.lmMain.inputs[1], 1024)
	return m, nil
}

func lastDim(info ort.InputOutputInfo, dynamic int64) int64 {
	if d := info.Dimensions; len(d) > 0 && d[len(d)-1] > 0 {
		return d[len(d)-1]
	}
	return dynamic
}

func (m *model) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.states != nil {
		m.states.close()
	}
	var errs []error
	for _, s := range []*session{m.textCond, m.encoder, m.lmMain, m.lmFlow, m.decoder} {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// runOptions returns run options that stop a run when ctx is done, and
// their release (engine/internal/ortrun).
func runOptions(ctx context.Context) (*ort.RunOptions, func(), error) {
	o, release, err := ortrun.Options(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("pocket: %w", err)
	}
	return o, release, nil
}

// encode runs the encoder on a recording at SampleRate (its first
// MaxReference seconds) and returns its latents, frames × dim.
func (m *model) encode(ctx context.Context, samples []float32) (latents []float32, frames, dim int, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, 0, 0, errModelClosed
	}
	samples = samples[:min(len(samples), MaxReference*SampleRate)]
	ro, release, err := runOptions(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	defer release()
	in, err := ort.NewTensor(ort.NewShape(1, 1, int64(len(samples))), samples)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("pocket: %w", err)
	}
	defer in.Destroy()
	out, err := m.encoder.run(ctx, ro, []ort.Value{in})
	if err != nil {
		return nil, 0, 0, err
	}
	defer destroy(out)
	data, err := floats(m.encoder, 0, out[0])
	if err != nil {
		return nil, 0, 0, err
	}
	shape := out[0].(*ort.Tensor[float32]).GetShape()
	if len(shape) != 3 || shape[0] != 1 || shape[2] != m.embedDim {
		return nil, 0, 0, fmt.Errorf("pocket: %s gave latents of shape %v, want [1, frames, %d]", m.encoder.name, shape, m.embedDim)
	}
	// The tensor's data is a Go slice (ORT's output is copied into it), so
	// it outlives the tensor.
	return data, int(shape[1]), int(shape[2]), nil
}

// speak generates the audio of one piece of text in voice v and passes it
// to emit chunk by chunk: each chunk is decoded as soon as its frames
// exist, with the same chunk boundaries (and so the same samples) as
// sherpa-onnx, which decodes a piece only after generating all of it.
// (Decoding in a goroutine of its own, beside the next frames, cost 8% more
// CPU on a busy machine and gained no time: BenchmarkSynthesis.)
//
// primed are lm_main's states after the voice's latents (m.primed): every
// piece's first run reads them (and leaves them), as if the piece had run
// the voice itself; the piece's states are written into the model's sets
// (states). Each frame's flow takes steps Euler steps from noise.
func (m *model) speak(ctx context.Context, primed []ort.Value, steps int, noise *noise, text string, emit func([]float32) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return errModelClosed
	}
	ids, err := m.tok.encode(text)
	if err != nil {
		return err
	}
	ro, release, err := runOptions(ctx)
	if err != nil {
		return err
	}
	defer release()
	g := &generation{m: m, ctx: ctx, ro: ro, pool: m.states, main: primed, borrowed: true}
	defer g.free()
	if err := g.prefill(ids); err != nil {
		return err
	}
	size := chunkFrames * int(m.latentDim)
	eosStep := -1
	for step := range maxFrames {
		// As in sherpa-onnx, an end of speech at the very first frame
		// (eosStep 0) never stops the piece before maxFrames. The end
		// depends on earlier frames only, so it is known before the step's
		// runs, which sherpa-onnx makes and discards (lm_main's, one frame's
		// cost); the step's noise is still drawn, so a seed's next piece
		// gets the same noise as before.
		if eosStep > 0 && step >= eosStep+framesAfterEOS {
			noise.fill(g.x.GetData())
			break
		}
		frame, eos, err := g.frame(steps, noise)
		if err != nil {
			return err
		}
		if eosStep < 0 && eos > eosThreshold {
			eosStep = step
		}
		g.latents = append(g.latents, frame...)
		if frameMade != nil {
			frameMade()
		}
		if len(g.latents) == size {
			if err := g.decode(emit); err != nil {
				return err
			}
		}
	}
	if len(g.latents) > 0 {
		return g.decode(emit)
	}
	return nil
}

// frameMade, when tests set it, is called after each frame is made.
var frameMade func()

// generation is the state of one piece being spoken.
type generation struct {
	m   *model
	ctx context.Context
	ro  *ort.RunOptions

	pool     *states     // lm_main's sets of states
	main     []ort.Value // lm_main's states
	borrowed bool        // main are primed or zero states, read and not written
	cond     ort.Value   // lm_main's conditioning and end-of-speech logit
	eos      ort.Value
	dir      ort.Value   // lm_flow's output
	dec      []ort.Value // the decoder's states
	decSpare []ort.Value // the decoder's previous states, to be written next
	cur      *ort.Tensor[float32]
	empty    *ort.Tensor[float32] // no text: [1, 0, embedDim]
	s, t     *ort.Tensor[float32]
	x        *ort.Tensor[float32]
	latents  []float32 // frames made and not yet decoded
}

func (g *generation) free() {
	if !g.borrowed {
		g.pool.put(g.main)
	}
	destroy([]ort.Value{g.cond, g.eos, g.dir})
	destroy(g.dec)
	destroy(g.decSpare)
	for _, t := range []*ort.Tensor[float32]{g.cur, g.empty, g.s, g.t, g.x} {
		if t != nil {
			t.Destroy()
		}
	}
}

// primed returns lm_main's states after a run on the voice's latents from
// zero states, the start of every piece the voice speaks (sherpa-onnx
// runs the voice again for each piece, to the same states), and their
// release, which the caller calls once no run reads them. They are kept
// for the voice's next calls (states).
func (m *model) primed(ctx context.Context, v *Voice) ([]ort.Value, func(), error) {
	if held, release, ok := m.states.hold(v.Latents, v.Frames); ok {
		return held, release, nil
	}
	primed, err := m.prime(ctx, v)
	if err != nil {
		return nil, nil, err
	}
	if primeRan != nil {
		primeRan()
	}
	held, release := m.states.keep(v.Latents, v.Frames, primed)
	return held, release, nil
}

// primeRan, when tests set it, is called after each run of a voice's
// latents.
var primeRan func()

// prime runs lm_main on the voice's latents from the zero states and
// returns the states it wrote (a set of the model's).
func (m *model) prime(ctx context.Context, v *Voice) ([]ort.Value, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, errModelClosed
	}
	ro, release, err := runOptions(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	zero, err := m.states.zeros()
	if err != nil {
		return nil, err
	}
	g := &generation{m: m, ctx: ctx, ro: ro, pool: m.states, main: zero, borrowed: true}
	defer g.free()
	voice, err := ort.NewTensor(ort.NewShape(1, int64(v.Frames), int64(v.Dim)), v.Latents)
	if err != nil {
		return nil, fmt.Errorf("pocket: %w", err)
	}
	defer voice.Destroy()
	if err := g.prefillWith(voice); err != nil {
		return nil, err
	}
	primed := g.main
	g.main, g.borrowed = nil, true
	return primed, nil
}

// prefillWith runs lm_main on embeddings emb (with no frames) from the
// current states.
func (g *generation) prefillWith(emb ort.Value) error {
	noSeq, err := ort.NewTensor(ort.NewShape(1, 0, g.m.latentDim), []float32(nil))
	if err != nil {
		return fmt.Errorf("pocket: %w", err)
	}
	defer noSeq.Destroy()
	out, err := g.runMain(noSeq, emb)
	if err != nil {
		return err
	}
	destroy(out)
	return nil
}

// prefill creates the decoder's states and the frame loop's tensors, and
// runs lm_main on the text's embeddings.
func (g *generation) prefill(ids []int64) error {
	m := g.m
	var err error
	if g.dec, err = m.decoder.zeroStates(1); err != nil {
		return err
	}
	nan := make([]float32, m.latentDim)
	for i := range nan {
		nan[i] = float32(math.NaN()) // the model reads NaN as "begin speech"
	}
	tensors := []struct {
		t     **ort.Tensor[float32]
		shape ort.Shape
		data  []float32
	}{
		{&g.cur, ort.NewShape(1, 1, m.latentDim), nan},
		{&g.empty, ort.NewShape(1, 0, m.embedDim), nil},
		{&g.s, ort.NewShape(1, 1), []float32{0}},
		{&g.t, ort.NewShape(1, 1), []float32{0}},
		{&g.x, ort.NewShape(1, m.latentDim), make([]float32, m.latentDim)},
	}
	for _, t := range tensors {
		if *t.t, err = ort.NewTensor(t.shape, t.data); err != nil {
			return fmt.Errorf("pocket: %w", err)
		}
	}
	tokens, err := ort.NewTensor(ort.NewShape(1, int64(len(ids))), ids)
	if err != nil {
		return fmt.Errorf("pocket: %w", err)
	}
	defer tokens.Destroy()
	text, err := m.textCond.run(g.ctx, g.ro, []ort.Value{tokens})
	if err != nil {
		return err
	}
	defer destroy(text)
	return g.prefillWith(text[0])
}

// runMain runs lm_main on seq and emb with the current states, keeps the new
// states and returns the conditioning and the end-of-speech logit.
func (g *generation) runMain(seq, emb ort.Value) ([]ort.Value, error) {
	out := make([]ort.Value, len(g.m.lmMain.outputs))
	if err := g.runMainInto(seq, emb, out); err != nil {
		return nil, err
	}
	return out[:2], nil
}

// runMainInto runs lm_main on seq and emb with the current states, writing
// its conditioning and end-of-speech logit into out[0] and out[1] (ORT
// allocates them where nil) and its states into a set from the pool, which
// become the current states; the states replaced go back to the pool.
func (g *generation) runMainInto(seq, emb ort.Value, out []ort.Value) error {
	set, err := g.pool.get()
	if err != nil {
		return err
	}
	copy(out[2:], set)
	if err := g.m.lmMain.runInto(g.ctx, g.ro, append([]ort.Value{seq, emb}, g.main...), out); err != nil {
		destroy(out[2:])
		return err
	}
	g.pool.learn(g.main, out[2:])
	if g.borrowed {
		g.borrowed = false
	} else {
		g.pool.put(g.main)
	}
	g.main = out[2:]
	return nil
}

// frame makes the next frame: one lm_main step, then an Euler flow over
// lm_flow from the noise; it returns the frame and the end-of-speech
// logit. The frame also becomes the next step's input.
//
// Every frame's runs have inputs of the same shapes, so each output
// tensor of a frame's runs is kept and written again by the next frame's
// (ORT allocates them for the first frame); lm_main's states alternate
// between two sets of tensors when their shapes do not change (states).
func (g *generation) frame(steps int, noise *noise) (frame []float32, eos float32, err error) {
	m := g.m
	out := make([]ort.Value, len(m.lmMain.outputs))
	out[0], out[1] = g.cond, g.eos
	if err := g.runMainInto(g.cur, g.empty, out); err != nil {
		return nil, 0, err
	}
	g.cond, g.eos = out[0], out[1]
	logit, err := floats(m.lmMain, 1, g.eos)
	if err != nil {
		return nil, 0, err
	}
	if len(logit) == 0 {
		return nil, 0, fmt.Errorf("pocket: %s gave an empty end-of-speech logit", m.lmMain.name)
	}
	x := g.x.GetData()
	noise.fill(x)
	dt := 1 / float32(steps)
	s, t := g.s.GetData(), g.t.GetData()
	flowIn := []ort.Value{g.cond, g.s, g.t, g.x}
	for i := range steps {
		s[0] = float32(i) / float32(steps)
		t[0] = s[0] + dt
		dir := []ort.Value{g.dir}
		if err := m.lmFlow.runInto(g.ctx, g.ro, flowIn, dir); err != nil {
			return nil, 0, err
		}
		g.dir = dir[0]
		d, err := floats(m.lmFlow, 0, g.dir)
		if err != nil {
			return nil, 0, err
		}
		if len(d) != len(x) {
			return nil, 0, fmt.Errorf("pocket: %s gave %d values, want %d", m.lmFlow.name, len(d), len(x))
		}
		for j := range x {
			x[j] += float32(dt * d[j]) // rounded before the sum, as sherpa-onnx computes it
		}
	}
	copy(g.cur.GetData(), x)
	return x, logit[0], nil
}

// keepSpare returns the states a session's next run writes into: old,
// the states its last run replaced by cur, when they have cur's shapes (a
// spare was in use already, or the shapes did not change; a model whose
// states grow gets new tensors from ORT every run). Otherwise old is
// destroyed and nil returned. spare must have been the run's outputs (so
// that it is cur now) or nil.
func keepSpare(spare, old, cur []ort.Value) []ort.Value {
	if spare != nil || sameShapes(old, cur) {
		return old
	}
	destroy(old)
	return nil
}

// decode runs the decoder on the frames made since the last decode, with
// its states, and passes the audio to emit.
func (g *generation) decode(emit func([]float32) error) error {
	n := int64(len(g.latents)) / g.m.latentDim
	lat, err := ort.NewTensor(ort.NewShape(1, n, g.m.latentDim), g.latents)
	if err != nil {
		return fmt.Errorf("pocket: %w", err)
	}
	in := append([]ort.Value{lat}, g.dec...)
	out := make([]ort.Value, len(g.m.decoder.outputs))
	if n == chunkFrames { // every chunk but a piece's last, shorter one: the states' shapes are those of the last run
		copy(out[1:], g.decSpare)
	} else {
		destroy(g.decSpare)
		g.decSpare = nil
	}
	err = g.m.decoder.runInto(g.ctx, g.ro, in, out)
	lat.Destroy()
	if err != nil {
		return err
	}
	old := g.dec
	g.dec = out[1:]
	g.decSpare = keepSpare(g.decSpare, old, g.dec)
	defer out[0].Destroy()
	g.latents = g.latents[:0]
	audio, err := floats(g.m.decoder, 0, out[0])
	if err != nil {
		return err
	}
	return emit(audio)
}

// noise draws the flow's starting point: normal with standard deviation
// √temperature, none at temperature 0.
type noise struct {
	stddev float64
	rng    *rand.Rand
}

func newNoise(temperature float64, seed int64) *noise {
	n := &noise{stddev: math.Sqrt(max(temperature, 0))}
	if n.stddev > 0 {
		s := uint64(seed)
		if seed == 0 {
			s = rand.Uint64()
		}
		n.rng = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	}
	return n
}

func (n *noise) fill(x []float32) {
	if n.rng == nil {
		clear(x)
		return
	}
	for i := range x {
		x[i] = float32(n.rng.NormFloat64() * n.stddev)
	}
}
