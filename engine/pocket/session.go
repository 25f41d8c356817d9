package pocket

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/voxkit/voxkit/engine/internal/ortrun"
	ort "github.com/yalue/onnxruntime_go"
)

// session is one ONNX model of a PocketTTS model directory. Its inputs and
// outputs are taken by position, as sherpa-onnx takes them: a model's
// names are free.
type session struct {
	name    string
	s       *ort.DynamicAdvancedSession
	inputs  []ort.InputOutputInfo
	outputs []ort.InputOutputInfo
}

func openSession(path string, threads int) (*session, error) {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("pocket: %s: %w", path, err)
	}
	opts, err := ortrun.SessionOptions(threads)
	if err != nil {
		return nil, fmt.Errorf("pocket: %w", err)
	}
	defer opts.Destroy()
	s, err := ort.NewDynamicAdvancedSession(path, names(ins), names(outs), opts)
	if err != nil {
		return nil, fmt.Errorf("pocket: %s: %w", path, err)
	}
	return &session{name: filepath.Base(path), s: s, inputs: ins, outputs: outs}, nil
}

func names(infos []ort.InputOutputInfo) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	return out
}

// check fails unless the session has at least nIn inputs and nOut outputs,
// and the same number of state outputs as state inputs beyond them.
func (s *session) check(nIn, nOut int) error {
	if len(s.inputs) < nIn || len(s.outputs) < nOut || len(s.inputs)-nIn != len(s.outputs)-nOut {
		return fmt.Errorf("pocket: %s has %d inputs and %d outputs, want %d and %d plus as many state outputs as state inputs",
			s.name, len(s.inputs), len(s.outputs), nIn, nOut)
	}
	return nil
}

// zeroStates returns the session's inputs from index first on as tensors
// of zeros, of their declared type and shape, with a dynamic dimension
// taken as 1 (sherpa-onnx's initial state).
func (s *session) zeroStates(first int) ([]ort.Value, error) {
	var out []ort.Value
	for _, in := range s.inputs[first:] {
		shape := ort.Shape(in.Dimensions).Clone()
		for i, d := range shape {
			if d < 0 {
				shape[i] = 1
			}
		}
		n := shape.FlattenedSize()
		var v ort.Value
		var err error
		switch in.DataType {
		case ort.TensorElementDataTypeFloat:
			v, err = ort.NewTensor(shape, make([]float32, n))
		case ort.TensorElementDataTypeInt64:
			v, err = ort.NewTensor(shape, make([]int64, n))
		case ort.TensorElementDataTypeBool:
			v, err = ort.NewTensor(shape, make([]bool, n))
		default:
			err = fmt.Errorf("state input %q has type %v; float32, int64 and bool states are supported", in.Name, in.DataType)
		}
		if err != nil {
			destroy(out)
			return nil, fmt.Errorf("pocket: %s: %w", s.name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// run runs the session on in and returns its outputs, which the caller
// destroys; in is not destroyed. A done ctx stops the run (through
// runOpts, which may be nil) and its error is returned.
func (s *session) run(ctx context.Context, runOpts *ort.RunOptions, in []ort.Value) ([]ort.Value, error) {
	out := make([]ort.Value, len(s.outputs))
	if err := s.runInto(ctx, runOpts, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// runInto is run with the outputs' buffers given: ORT writes each output
// into its tensor in out (which must have the output's shape), or into a
// tensor it allocates where out holds nil. On failure the tensors it
// allocated are destroyed and their entries set back to nil.
func (s *session) runInto(ctx context.Context, runOpts *ort.RunOptions, in, out []ort.Value) error {
	given := make([]bool, len(out))
	for i, v := range out {
		given[i] = v != nil
	}
	if sessionRan != nil {
		defer sessionRan(s)
	}
	if err := s.s.RunWithOptions(in, out, runOpts); err != nil {
		for i, v := range out {
			if !given[i] && v != nil {
				v.Destroy()
				out[i] = nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pocket: %s: %w", s.name, err)
	}
	return nil
}

// sessionRan, when tests set it, is called after each run of a session.
var sessionRan func(*session)

// sameShapes reports whether a and b are values of the same shapes.
func sameShapes(a, b []ort.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i].GetShape(), b[i].GetShape()) {
			return false
		}
	}
	return true
}

func (s *session) close() error {
	if s == nil {
		return nil
	}
	return s.s.Destroy()
}

func destroy(vals []ort.Value) {
	for _, v := range vals {
		if v != nil {
			v.Destroy()
		}
	}
}

// floats returns the data of a float32 tensor output.
func floats(s *session, i int, v ort.Value) ([]float32, error) {
	t, ok := v.(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("pocket: %s: output %d (%q) is not a float32 tensor", s.name, i, s.outputs[i].Name)
	}
	return t.GetData(), nil
}
