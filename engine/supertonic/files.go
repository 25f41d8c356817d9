package supertonic

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// parts are the four graphs of a model, in the order they run. Each is
// NAME.onnx, or NAME.int8.onnx when that is absent (sherpa-onnx's int8
// release).
var parts = [...]string{"duration_predictor", "text_encoder", "vector_estimator", "vocoder"}

// files are where a model directory keeps its files.
type files struct {
	graphs  [len(parts)]string
	config  string // tts.json
	indexer string // unicode_indexer.bin or .json
	voices  string // voice.bin, or the voice_styles directory
}

// findFiles finds a model's files in dir, in either layout: sherpa-onnx's
// release (the graphs, tts.json, unicode_indexer.bin and voice.bin side by
// side) or Supertone's own as downloaded (onnx/ holding the graphs,
// tts.json and unicode_indexer.json, beside voice_styles/; or all of it in
// dir). It fails when dir holds no model.
func findFiles(dir string) (files, error) {
	var f files
	onnxDir := dir
	if isFile(filepath.Join(dir, "onnx", "tts.json")) {
		onnxDir = filepath.Join(dir, "onnx")
	}
	f.config = filepath.Join(onnxDir, "tts.json")
	if !isFile(f.config) {
		return f, fmt.Errorf("supertonic: %s has no tts.json", dir)
	}
	for i, p := range parts {
		f.graphs[i] = filepath.Join(onnxDir, p+".onnx")
		if !isFile(f.graphs[i]) {
			f.graphs[i] = filepath.Join(onnxDir, p+".int8.onnx")
		}
		if !isFile(f.graphs[i]) {
			return f, fmt.Errorf("supertonic: %s has neither %s.onnx nor %s.int8.onnx", onnxDir, p, p)
		}
	}
	for _, name := range []string{"unicode_indexer.bin", "unicode_indexer.json"} {
		if p := filepath.Join(onnxDir, name); isFile(p) {
			f.indexer = p
			break
		}
	}
	if f.indexer == "" {
		return f, fmt.Errorf("supertonic: %s has neither unicode_indexer.bin nor unicode_indexer.json", onnxDir)
	}
	for _, p := range []string{filepath.Join(dir, "voice.bin"), filepath.Join(dir, "voice_styles"), filepath.Join(onnxDir, "voice_styles")} {
		if _, err := os.Stat(p); err == nil {
			f.voices = p
			break
		}
	}
	if f.voices == "" {
		return f, fmt.Errorf("supertonic: %s has neither voice.bin nor voice_styles/", dir)
	}
	return f, nil
}

// isModelDir reports whether dir looks like a Supertonic model: a tts.json
// beside a duration predictor, in it or in its onnx/.
func isModelDir(dir string) bool {
	for _, d := range []string{dir, filepath.Join(dir, "onnx")} {
		if isFile(filepath.Join(d, "tts.json")) &&
			(isFile(filepath.Join(d, parts[0]+".onnx")) || isFile(filepath.Join(d, parts[0]+".int8.onnx"))) {
			return true
		}
	}
	return false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// config is what a model's tts.json says that the runtime needs.
type config struct {
	SampleRate          int32 // ae.sample_rate
	BaseChunkSize       int32 // ae.base_chunk_size
	ChunkCompressFactor int32 // ttl.chunk_compress_factor
	LatentDim           int32 // ttl.latent_dim
}

func readConfig(path string) (config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return config{}, fmt.Errorf("supertonic: %w", err)
	}
	var j struct {
		AE *struct {
			SampleRate    *int32 `json:"sample_rate"`
			BaseChunkSize *int32 `json:"base_chunk_size"`
		} `json:"ae"`
		TTL *struct {
			ChunkCompressFactor *int32 `json:"chunk_compress_factor"`
			LatentDim           *int32 `json:"latent_dim"`
		} `json:"ttl"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return config{}, fmt.Errorf("supertonic: %s: %w", path, err)
	}
	if j.AE == nil || j.TTL == nil {
		return config{}, fmt.Errorf("supertonic: %s has no ae or ttl section", path)
	}
	var c config
	for _, v := range []struct {
		name string
		in   *int32
		out  *int32
	}{
		{"ae.sample_rate", j.AE.SampleRate, &c.SampleRate},
		{"ae.base_chunk_size", j.AE.BaseChunkSize, &c.BaseChunkSize},
		{"ttl.chunk_compress_factor", j.TTL.ChunkCompressFactor, &c.ChunkCompressFactor},
		{"ttl.latent_dim", j.TTL.LatentDim, &c.LatentDim},
	} {
		if v.in == nil || *v.in <= 0 {
			return config{}, fmt.Errorf("supertonic: %s: %s is missing or not a positive integer", path, v.name)
		}
		*v.out = *v.in
	}
	return c, nil
}

// readIndexer reads a unicode indexer: the model's id of each BMP code
// point (-1 for none), as raw little-endian int32 (.bin) or a JSON array.
func readIndexer(path string) ([]int32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("supertonic: %w", err)
	}
	var ids []int32
	if strings.HasSuffix(path, ".json") {
		if err := json.Unmarshal(b, &ids); err != nil {
			return nil, fmt.Errorf("supertonic: %s: %w", path, err)
		}
	} else {
		if len(b) == 0 || len(b)%4 != 0 {
			return nil, fmt.Errorf("supertonic: %s: %d bytes, not int32s", path, len(b))
		}
		ids = make([]int32, len(b)/4)
		for i := range ids {
			ids[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("supertonic: %s is empty", path)
	}
	return ids, nil
}

// style is one voice: its style for the text encoder and vector estimator
// (ttl, [1, 50, 256] in the releases) and for the duration predictor (dp,
// [1, 8, 16]).
type style struct {
	name            string
	ttl, dp         []float32
	ttlDims, dpDims [3]int64 // with a batch of 1
}

// readStyles reads a model's voices: voice.bin, or the *.json of a
// voice_styles directory, in the sorted order of their file names (as
// sherpa-onnx's voice.bin is made).
func readStyles(path string) ([]style, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return readStyleDir(path)
	}
	return readVoiceBin(path)
}

// readVoiceBin reads sherpa-onnx's voice.bin: the int64 dimensions [N, a,
// b] of the ttl styles and [N, c, d] of the dp styles, then every ttl
// style and then every dp style, as little-endian float32. Its voices are
// named as the releases' voice_styles are, F1… then M1… (half each), in
// the sorted order voice.bin was made in; an odd count is named S1….
func readVoiceBin(path string) ([]style, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("supertonic: %w", err)
	}
	const header = 6 * 8
	if len(b) < header {
		return nil, fmt.Errorf("supertonic: %s: %d bytes, too short", path, len(b))
	}
	var dims [6]int64
	for i := range dims {
		dims[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		if dims[i] <= 0 || dims[i] > 1<<20 {
			return nil, fmt.Errorf("supertonic: %s: dimension %d is %d", path, i, dims[i])
		}
	}
	if dims[0] != dims[3] {
		return nil, fmt.Errorf("supertonic: %s: %d ttl styles and %d dp styles", path, dims[0], dims[3])
	}
	n := int(dims[0])
	ttlSize, dpSize := int(dims[1]*dims[2]), int(dims[4]*dims[5])
	if want := header + 4*n*(ttlSize+dpSize); len(b) != want {
		return nil, fmt.Errorf("supertonic: %s: %d bytes, want %d for dimensions %v", path, len(b), want, dims)
	}
	all := floatsLE(b[header:])
	out := make([]style, n)
	for i := range out {
		out[i] = style{
			name:    speakerName(i, n),
			ttl:     all[i*ttlSize : (i+1)*ttlSize],
			dp:      all[n*ttlSize+i*dpSize : n*ttlSize+(i+1)*dpSize],
			ttlDims: [3]int64{1, dims[1], dims[2]},
			dpDims:  [3]int64{1, dims[4], dims[5]},
		}
	}
	return out, nil
}

// speakerName names voice i of n in voice.bin.
func speakerName(i, n int) string {
	if n%2 != 0 {
		return fmt.Sprintf("S%d", i+1)
	}
	if i < n/2 {
		return fmt.Sprintf("F%d", i+1)
	}
	return fmt.Sprintf("M%d", i-n/2+1)
}

func floatsLE(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// readStyleDir reads Supertone's voice_styles/*.json, each named by its
// file: {"style_ttl": {"dims": [1, a, b], "data": nested arrays}, "style_dp":
// {...}}.
func readStyleDir(dir string) ([]style, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []style
	for _, p := range paths {
		s, err := readStyleJSON(p)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && (s.ttlDims != out[0].ttlDims || s.dpDims != out[0].dpDims) {
			return nil, fmt.Errorf("supertonic: %s has other dimensions than %s", p, out[0].name)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("supertonic: %s has no voice styles (*.json)", dir)
	}
	return out, nil
}

func readStyleJSON(path string) (style, error) {
	f, err := os.Open(path)
	if err != nil {
		return style{}, fmt.Errorf("supertonic: %w", err)
	}
	defer f.Close()
	var j struct {
		TTL, DP struct {
			Dims []int64        `json:"dims"`
			Data nestedFloats32 `json:"data"`
		}
	}
	dec := json.NewDecoder(f)
	if err := dec.Decode(&struct {
		TTL any `json:"style_ttl"`
		DP  any `json:"style_dp"`
	}{&j.TTL, &j.DP}); err != nil {
		return style{}, fmt.Errorf("supertonic: %s: %w", path, err)
	}
	s := style{name: strings.TrimSuffix(filepath.Base(path), ".json"), ttl: j.TTL.Data, dp: j.DP.Data}
	for _, t := range []struct {
		dims []int64
		data []float32
		out  *[3]int64
	}{{j.TTL.Dims, s.ttl, &s.ttlDims}, {j.DP.Dims, s.dp, &s.dpDims}} {
		if len(t.dims) != 3 || t.dims[0] != 1 || t.dims[1] <= 0 || t.dims[2] <= 0 || int64(len(t.data)) != t.dims[1]*t.dims[2] {
			return style{}, fmt.Errorf("supertonic: %s: a style of dims %v and %d values, want [1, a, b] and a·b", path, t.dims, len(t.data))
		}
		*t.out = [3]int64(t.dims)
	}
	return s, nil
}

// nestedFloats32 decodes a JSON array of numbers nested to any depth into
// its numbers, in order.
type nestedFloats32 []float32

func (n *nestedFloats32) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case float64:
			*n = append(*n, float32(v))
		case json.Delim:
		default:
			return fmt.Errorf("a %T in a style's data", tok)
		}
	}
}
