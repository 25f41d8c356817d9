package supertonic

import (
	"context"
	"fmt"

	"github.com/voxkit/voxkit/engine/internal/ortrun"
	ort "github.com/yalue/onnxruntime_go"
)

// job is one chunk of one request: what the four graphs need of it and
// what they made of it.
type job struct {
	ctx   context.Context
	st    *style
	ids   []int64
	steps int
	speed float32
	n     *noise // the request's noise, drawn from in its chunks' order

	wav  []float32
	err  error
	done chan struct{} // closed when wav and err are set (batched runs)
}

// speak makes the audio of one chunk of text in style st and lang, with
// steps steps of the flow from noise drawn from n, at speed: in a batch
// with other requests' chunks (batcher), or alone when batching is off.
// It returns nil for a chunk sherpa-onnx speaks nothing of.
func (m *model) speak(ctx context.Context, st *style, lang, text string, steps int, speed float32, n *noise) ([]float32, error) {
	j := &job{ctx: ctx, st: st, ids: m.ids(text, lang), steps: steps, speed: speed, n: n}
	if len(j.ids) == 0 {
		return nil, nil
	}
	if m.batches == nil {
		m.run(ctx, []*job{j})
		return j.wav, j.err
	}
	return m.batches.do(j)
}

// run runs the four graphs once over jobs, as sherpa-onnx runs them on a
// batch: the text ids padded with 0 to the longest, the text mask 1 over
// each job's own ids; each job's noise drawn as its own run would draw
// it and laid over the longest job's latent frames, the latent mask 1
// over its own frames (the padding 0, as sherpa-onnx masks the noise);
// each job's audio cut to its own length. A model whose graphs keep their
// batch's items apart (the published ones do) gives each job the samples
// it would have alone. All jobs have the same steps and style shapes
// (batcher.take). Each job's wav and err are set.
func (m *model) run(ctx context.Context, jobs []*job) {
	if err := m.runGraphs(ctx, jobs); err != nil {
		for _, j := range jobs {
			j.wav, j.err = nil, err
		}
	}
}

func (m *model) runGraphs(ctx context.Context, jobs []*job) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return errModelClosed
	}
	ro, release, err := ortrun.Options(ctx)
	if err != nil {
		return fmt.Errorf("supertonic: %w", err)
	}
	defer release()
	r := runner{ctx: ctx, ro: ro}
	defer r.free()

	b := int64(len(jobs))
	first := jobs[0]
	t := 0
	for _, j := range jobs {
		t = max(t, len(j.ids))
		if j.steps != first.steps || j.st.ttlDims != first.st.ttlDims || j.st.dpDims != first.st.dpDims {
			return fmt.Errorf("supertonic: a batch of unlike chunks") // batcher.take never makes one
		}
	}
	ids := make([]int64, len(jobs)*t)
	mask := make([]float32, len(jobs)*t)
	var dp, ttl []float32
	for i, j := range jobs {
		copy(ids[i*t:], j.ids)
		fill(mask[i*t:i*t+len(j.ids)], 1)
		dp = append(dp, j.st.dp...)
		ttl = append(ttl, j.st.ttl...)
	}
	textIDs := r.int64s(ort.NewShape(b, int64(t)), ids)
	textMask := r.floats(ort.NewShape(b, 1, int64(t)), mask)
	styleDP := r.floats(ort.NewShape(b, first.st.dpDims[1], first.st.dpDims[2]), dp)
	styleTTL := r.floats(ort.NewShape(b, first.st.ttlDims[1], first.st.ttlDims[2]), ttl)
	if r.err != nil {
		return r.err
	}
	dur, _, err := m.sessions[0].run(ctx, ro, []ort.Value{textIDs, styleDP, textMask})
	if err != nil {
		return err
	}
	if len(dur) != len(jobs) {
		return fmt.Errorf("supertonic: %s gave %d durations, want %d", m.sessions[0].name, len(dur), len(jobs))
	}
	emb, embShape, err := m.sessions[1].run(ctx, ro, []ort.Value{textIDs, styleTTL, textMask})
	if err != nil {
		return err
	}
	if len(emb) == 0 {
		return fmt.Errorf("supertonic: %s gave nothing", m.sessions[1].name)
	}

	// Each job's noise over its own frames, as its own run draws it.
	dim := int(m.cfg.LatentDim * m.cfg.ChunkCompressFactor)
	noise := make([][]float32, len(jobs))
	samples := make([]int64, len(jobs))
	frames := make([]int, len(jobs))
	l := 0 // the batch's latent frames
	for i, j := range jobs {
		var maskLen int
		samples[i], frames[i], maskLen = m.lengths(dur[i], j.speed)
		x := make([]float32, dim*frames[i])
		j.n.fill(x)
		if maskLen != frames[i] {
			frames[i] = 0 // sherpa-onnx draws the noise, then gives up
			continue
		}
		noise[i] = x
		l = max(l, frames[i])
	}
	if l == 0 {
		return nil
	}
	x := make([]float32, len(jobs)*dim*l)
	latentMask := make([]float32, len(jobs)*l)
	for i, f := range frames {
		if f == 0 {
			continue
		}
		for d := range dim {
			copy(x[(i*dim+d)*l:], noise[i][d*f:(d+1)*f])
		}
		fill(latentMask[i*l:i*l+f], 1)
	}
	textEmb := r.floats(embShape, emb)
	latentMaskT := r.floats(ort.NewShape(b, 1, int64(l)), latentMask)
	total := r.floats(ort.NewShape(b), fill(make([]float32, len(jobs)), float32(first.steps)))
	current := r.floats(ort.NewShape(b), make([]float32, len(jobs)))
	latentShape := ort.NewShape(b, int64(dim), int64(l))
	latent := r.floats(latentShape, x)
	var next ort.Value
	if first.steps > 0 {
		next = r.floats(latentShape, make([]float32, len(x)))
	}
	if r.err != nil {
		return r.err
	}
	// Each step writes the next latent into the other of two tensors,
	// which the step after reads: the steps copy nothing, as sherpa-onnx
	// passes each step's output on as the next one's input.
	in := []ort.Value{latent, textEmb, styleTTL, latentMaskT, textMask, current, total}
	for step := range first.steps {
		fill(current.(*ort.Tensor[float32]).GetData(), float32(step))
		if _, err := m.sessions[2].runTo(ctx, ro, in, next); err != nil {
			return err
		}
		in[0], next = next, in[0]
	}
	latent = in[0]
	wav, shape, err := m.sessions[3].run(ctx, ro, []ort.Value{latent})
	if err != nil {
		return err
	}
	if len(wav) == 0 {
		return fmt.Errorf("supertonic: %s gave no audio", m.sessions[3].name)
	}
	// [B, N] or [B, 1, N]: each job's samples; any other shape: all of
	// it, for a batch of one.
	per := int64(len(wav))
	switch {
	case len(shape) == 2 && shape[0] == b, len(shape) == 3 && shape[0] == b && shape[1] == 1:
		per = shape[len(shape)-1]
	case b > 1:
		return fmt.Errorf("supertonic: %s gave audio of shape %v for a batch of %d", m.sessions[3].name, shape, b)
	default:
		samples[0] = per
	}
	for i, j := range jobs {
		if frames[i] == 0 {
			continue
		}
		from := int64(i) * per
		to := from + min(per, samples[i])
		j.wav = wav[from:to:to] // its own capacity: appending to it leaves the next job's alone
	}
	return nil
}

// fill sets every value of x to v and returns x.
func fill(x []float32, v float32) []float32 {
	for i := range x {
		x[i] = v
	}
	return x
}
