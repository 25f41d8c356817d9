package pocket

import (
	"fmt"
	"slices"

	ort "github.com/yalue/onnxruntime_go"
)

// states are the sets of lm_main's state tensors of one call of
// SynthesizeVoice. Each run of lm_main writes its states into a set that
// no run reads any more (ORT writes them in place: no allocation by ORT and
// copy into Go memory), and each piece's first run reads the voice's
// primed states where they are (no copy of them per piece). In the
// published export the states are a KV cache of 8 MB per layer, so a set
// is about 50 MB: a piece alternates between two sets, and the call keeps
// at most two beside the primed ones.
//
// Sets are reused only while the states' shapes are fixed: known from the
// model's declared shapes, or seen unchanged by a run (as in prime). A
// model whose states grow gets new tensors from ORT every run.
type states struct {
	s      *session
	shapes []ort.Shape // the states' shapes when fixed, else nil
	free   [][]ort.Value
}

// maxFree is the number of sets a call keeps for reuse.
const maxFree = 2

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

// get returns a set for a run to write its states into, or nil (ORT
// allocates them) while the shapes are not known to be fixed.
func (p *states) get() ([]ort.Value, error) {
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
	if p.shapes != nil && len(p.free) < maxFree && !slices.Contains(set, nil) && slices.EqualFunc(set, p.shapes, func(v ort.Value, s ort.Shape) bool {
		return slices.Equal(v.GetShape(), s)
	}) {
		p.free = append(p.free, set)
		return
	}
	destroy(set)
}

// close destroys the sets kept.
func (p *states) close() {
	for _, set := range p.free {
		destroy(set)
	}
	p.free = nil
}
