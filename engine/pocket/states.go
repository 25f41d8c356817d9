package pocket

import (
	"fmt"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// states are a model's sets of lm_main's state tensors, kept from call to
// call as sherpa-onnx's runtime keeps ONNX Runtime's arena: in the
// published export the states are a KV cache of 8 MB per layer, so a set
// is about 50 MB, and a set allocated per call (and per sentence: tts
// speaks a text sentence by sentence) costs Go's zeroing of it and the
// kernel's first-touch page faults every time.
//
// Each run of lm_main writes its states into a set that no run reads any
// more (ORT writes them in place: no allocation by ORT and copy into Go
// memory). A voice's primed states (its latents run through lm_main from
// zero states) are the start of each of its pieces: they are kept for
// the last maxPrimed voices spoken, so a voice's next sentence starts
// where they are, read and never written, with no run of its latents
// (sherpa-onnx runs them again for every piece). A call alternates
// between two sets; maxFree sets are kept for reuse.
//
// Sets are reused only while the states' shapes are fixed: known from the
// model's declared shapes, or seen unchanged by a run (as in prime). A
// model whose states grow gets new tensors from ORT every run.
type states struct {
	s *session

	mu     sync.Mutex
	shapes []ort.Shape // the states' shapes when fixed, else nil
	free   [][]ort.Value
	zero   []ort.Value    // zero states, the input of every prime
	primed []*primedVoice // most recently used first
	closed bool
}

// maxFree is the number of sets a model keeps for reuse: two calls at
// once write into sets they take from them without allocating.
const maxFree = 4

// maxPrimed is the number of voices whose primed states a model keeps.
const maxPrimed = 2

// primedVoice are lm_main's states after a voice's latents.
type primedVoice struct {
	latents []float32 // a copy of the voice's
	frames  int
	states  []ort.Value
	users   int  // calls reading the states
	evicted bool // destroyed when the last user leaves
}

// newStates returns the states of session s (lm_main: its inputs and
// outputs from index 2 on are the states).
func newStates(s *session) *states {
	return &states{s: s, shapes: declaredStates(s)}
}

// declaredStates returns the shapes of s's states when the model declares
// them fixed (no dynamic dimension) and the same for each state input and
// its output, else nil.
func declaredStates(s *session) []ort.Shape {
	ins, outs := s.inputs[2:], s.outputs[2:]
	shapes := make([]ort.Shape, len(ins))
	for i, in := range ins {
		d := in.Dimensions
		if slices.ContainsFunc(d, func(n int64) bool { return n < 0 }) || !slices.Equal(d, outs[i].Dimensions) || in.DataType != outs[i].DataType {
			return nil
		}
		shapes[i] = ort.Shape(d).Clone()
	}
	return shapes
}

// zeros returns the zero states, which runs only read (made at the first
// call).
func (p *states) zeros() ([]ort.Value, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.zero == nil {
		z, err := p.s.zeroStates(2)
		if err != nil {
			return nil, err
		}
		p.zero = z
	}
	return p.zero, nil
}

// get returns a set for a run to write its states into, or nil (ORT
// allocates them) while the shapes are not known to be fixed.
func (p *states) get() ([]ort.Value, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		set := p.free[n-1]
		p.free = p.free[:n-1]
		return set, nil
	}
	if p.shapes == nil {
		return nil, nil
	}
	set := make([]ort.Value, 0, len(p.shapes))
	for i, shape := range p.shapes {
		var v ort.Value
		var err error
		switch t := p.s.inputs[2+i].DataType; t {
		case ort.TensorElementDataTypeFloat:
			v, err = ort.NewEmptyTensor[float32](shape)
		case ort.TensorElementDataTypeInt64:
			v, err = ort.NewEmptyTensor[int64](shape)
		case ort.TensorElementDataTypeBool:
			v, err = ort.NewEmptyTensor[bool](shape)
		default:
			err = fmt.Errorf("a state of type %v", t)
		}
		if err != nil {
			destroy(set)
			return nil, fmt.Errorf("pocket: %s: %w", p.s.name, err)
		}
		set = append(set, v)
	}
	return set, nil
}

// learn notes a run's input states and the output states it wrote: equal
// shapes mean the states' shapes are fixed.
func (p *states) learn(in, out []ort.Value) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shapes == nil && sameShapes(in, out) {
		p.shapes = make([]ort.Shape, len(out))
		for i, v := range out {
			p.shapes[i] = v.GetShape()
		}
	}
}

// put gives back a set that no run reads or writes any more.
func (p *states) put(set []ort.Value) {
	if len(set) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putLocked(set)
}

// putLocked is put with p.mu held.
func (p *states) putLocked(set []ort.Value) {
	if !p.closed && p.shapes != nil && len(p.free) < maxFree && !slices.Contains(set, nil) && slices.EqualFunc(set, p.shapes, func(v ort.Value, s ort.Shape) bool {
		return slices.Equal(v.GetShape(), s)
	}) {
		p.free = append(p.free, set)
		return
	}
	destroy(set)
}

// hold returns the primed states of a voice's latents (frames of them),
// if kept, and their release, which the caller calls once no run reads
// them any more.
func (p *states) hold(latents []float32, frames int) ([]ort.Value, func(), bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, pv := range p.primed {
		if pv.frames == frames && slices.Equal(pv.latents, latents) {
			copy(p.primed[1:i+1], p.primed[:i])
			p.primed[0] = pv
			pv.users++
			return pv.states, p.releaser(pv), true
		}
	}
	return nil, nil, false
}

// keep keeps states, just primed from a voice's latents, and returns
// the primed states the caller reads (states, or those another call kept
// for the same latents meanwhile) and their release. The voice kept
// longest unused makes room.
func (p *states) keep(latents []float32, frames int, states []ort.Value) ([]ort.Value, func()) {
	if held, release, ok := p.hold(latents, frames); ok {
		p.put(states)
		return held, release
	}
	pv := &primedVoice{latents: slices.Clone(latents), frames: frames, states: states, users: 1}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return states, func() { destroy(states) }
	}
	p.primed = append([]*primedVoice{pv}, p.primed...)
	if len(p.primed) > maxPrimed {
		p.evict(p.primed[maxPrimed:])
		p.primed = p.primed[:maxPrimed]
	}
	return states, p.releaser(pv)
}

// releaser returns the release of a hold of pv.
func (p *states) releaser(pv *primedVoice) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			pv.users--
			if pv.evicted && pv.users == 0 {
				p.putLocked(pv.states)
			}
		})
	}
}

// evict forgets primed states; those no call reads become a free set.
func (p *states) evict(pvs []*primedVoice) {
	for _, pv := range pvs {
		pv.evicted = true
		if pv.users == 0 {
			p.putLocked(pv.states)
		}
	}
}

// close destroys the sets kept. Calls must have finished.
func (p *states) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, set := range p.free {
		destroy(set)
	}
	p.free = nil
	destroy(p.zero)
	p.zero = nil
	p.evict(p.primed)
	p.primed = nil
}
