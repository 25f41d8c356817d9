package onnx

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Kokoro voice pack holds one style vector per sentence length: float32
// [510, 1, 256], row n for a sentence of n tokens (the last row for
// longer ones).
const (
	packRows  = 510
	styleDim  = 256
	packBytes = packRows * styleDim * 4 // 522,240
)

// MaxPacks is the most voice packs one Kokoro model may have (Kokoro
// v1.0 has 54, v1.1-zh 103): each pack takes 510 KiB of memory, so a
// file of more is refused whole, before any is read.
const MaxPacks = 256

// ErrBadPack is returned (wrapped) for a voice pack file that cannot be
// used.
var ErrBadPack = errors.New("onnx: bad Kokoro voice pack")

// pack is one voice's [510, 1, 256] style table, row-major.
type pack []float32

// row returns the style vector for a sentence of n tokens (without the
// pads): row min(n, 509), as kokoro-onnx, kokoro.js and sherpa-onnx
// take it.
func (p pack) row(n int) []float32 {
	n = max(0, min(n, packRows-1))
	return p[n*styleDim : (n+1)*styleDim]
}

// readPacks reads the voice packs of a Kokoro model from path: a
// directory of raw VOICE.bin files, or one file holding a NumPy .npz
// archive (told by its zip signature) or raw packs back to back, whose
// names, in order, are speakerNames. Errors wrap ErrBadPack and name the
// voice.
func readPacks(path string, speakerNames []string) (map[string]pack, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPack, err)
	}
	if st.IsDir() {
		return readPackDir(path)
	}
	if zr, err := zip.OpenReader(path); err == nil {
		defer zr.Close()
		return readNPZ(path, &zr.Reader)
	}
	if n := st.Size() / packBytes; n > MaxPacks {
		return nil, tooManyPacks(path, int(n))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPack, err)
	}
	return readConcatenated(path, data, speakerNames)
}

func tooManyPacks(path string, n int) error {
	return fmt.Errorf("%w: %s holds %d voice packs, more than %d: left out whole", ErrBadPack, path, n, MaxPacks)
}

// readPackDir reads every VOICE.bin of dir, each one raw pack.
func readPackDir(dir string) (map[string]pack, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPack, err)
	}
	if n := countFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".bin") && !e.IsDir() }); n > MaxPacks {
		return nil, tooManyPacks(dir, n)
	}
	packs := map[string]pack{}
	var errs []error
	for _, ent := range entries {
		name, ok := strings.CutSuffix(ent.Name(), ".bin")
		if !ok || ent.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err == nil && len(data) != packBytes {
			err = fmt.Errorf("%d bytes, want %d (float32 [510,1,256])", len(data), packBytes)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: voice %s (%s): %w", ErrBadPack, name, filepath.Join(dir, ent.Name()), err))
			continue
		}
		packs[name] = decodeFloats(data)
	}
	if len(packs) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%w: %s has no VOICE.bin files", ErrBadPack, dir))
	}
	return packs, errors.Join(errs...)
}

// readConcatenated splits raw packs stored back to back (sherpa-onnx's
// voices.bin) among names.
func readConcatenated(path string, data []byte, names []string) (map[string]pack, error) {
	switch {
	case len(data) == 0 || len(data)%packBytes != 0:
		return nil, fmt.Errorf("%w: %s: %d bytes is not a whole number of %d-byte packs", ErrBadPack, path, len(data), packBytes)
	case len(names) == 0:
		return nil, fmt.Errorf("%w: %s holds %d packs back to back, but the model has no speaker_names metadata to name them", ErrBadPack, path, len(data)/packBytes)
	case len(names) != len(data)/packBytes:
		return nil, fmt.Errorf("%w: %s holds %d packs but the model's speaker_names has %d names", ErrBadPack, path, len(data)/packBytes, len(names))
	}
	packs := make(map[string]pack, len(names))
	for i, name := range names {
		packs[name] = decodeFloats(data[i*packBytes : (i+1)*packBytes])
	}
	return packs, nil
}

// readNPZ reads a NumPy .npz archive of NAME.npy packs (kokoro-onnx's
// voices-v1.0.bin).
func readNPZ(path string, zr *zip.Reader) (map[string]pack, error) {
	if n := countFunc(zr.File, func(f *zip.File) bool { return strings.HasSuffix(f.Name, ".npy") }); n > MaxPacks {
		return nil, tooManyPacks(path, n)
	}
	packs := map[string]pack{}
	var errs []error
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		p, err := readNPY(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: voice %s (in %s): %w", ErrBadPack, name, path, err))
			continue
		}
		packs[name] = p
	}
	if len(packs) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%w: %s has no .npy arrays", ErrBadPack, path))
	}
	return packs, errors.Join(errs...)
}

// countFunc counts the elements of s for which f is true.
func countFunc[E any](s []E, f func(E) bool) int {
	n := 0
	for _, e := range s {
		if f(e) {
			n++
		}
	}
	return n
}

// npyShape matches the shape entry of a .npy header.
var npyShape = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)

// readNPY reads one .npy array of little-endian float32 [510, 1, 256] (or
// [510, 256]) in C order.
func readNPY(f *zip.File) (pack, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, packBytes+1<<16))
	if err != nil {
		return nil, err
	}
	if len(data) < 10 || string(data[:6]) != "\x93NUMPY" {
		return nil, errors.New("not a .npy array")
	}
	var hlen, start int
	switch data[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return nil, fmt.Errorf(".npy version %d", data[6])
	}
	if start+hlen > len(data) {
		return nil, errors.New("truncated .npy header")
	}
	header := string(data[start : start+hlen])
	body := data[start+hlen:]
	if !strings.Contains(header, "'descr': '<f4'") || !strings.Contains(header, "'fortran_order': False") {
		return nil, fmt.Errorf("want little-endian float32 in C order, header %s", strings.TrimSpace(header))
	}
	m := npyShape.FindStringSubmatch(header)
	if m == nil {
		return nil, fmt.Errorf("no shape in header %s", strings.TrimSpace(header))
	}
	var dims []int
	for _, s := range strings.Split(m[1], ",") {
		if s = strings.TrimSpace(s); s != "" {
			d, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("shape (%s)", m[1])
			}
			dims = append(dims, d)
		}
	}
	if !slices.Equal(dims, []int{packRows, 1, styleDim}) && !slices.Equal(dims, []int{packRows, styleDim}) {
		return nil, fmt.Errorf("shape (%s), want (510, 1, 256)", m[1])
	}
	if len(body) != packBytes {
		return nil, fmt.Errorf("%d bytes of data, want %d", len(body), packBytes)
	}
	return decodeFloats(body), nil
}

func decodeFloats(data []byte) pack {
	p := make(pack, len(data)/4)
	for i := range p {
		p[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return p
}

// blendTerm is one voice of a blend with its signed weight.
type blendTerm struct {
	name   string
	weight float64
}

// blendTermRE matches one term of a blend: a voice name and an optional
// weight in parentheses.
var blendTermRE = regexp.MustCompile(`^([A-Za-z0-9_.]+)(?:\(([0-9]*\.?[0-9]+)\))?$`)

// parseBlend reads a voice blend as Kokoro-FastAPI writes it:
// "af_bella(2)+af_sky(1)" or "af_bella+af_sky-am_adam(0.5)". A weight
// defaults to 1; "-" makes the next term's weight negative. Weights are
// later divided by the sum of their magnitudes.
func parseBlend(id string) ([]blendTerm, error) {
	var terms []blendTerm
	sign := 1.0
	rest := id
	for {
		i := strings.IndexAny(rest, "+-")
		part := rest
		if i >= 0 {
			part = rest[:i]
		}
		m := blendTermRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("onnx: voice blend %q: %q is not VOICE or VOICE(WEIGHT)", id, part)
		}
		w := 1.0
		if m[2] != "" {
			var err error
			if w, err = strconv.ParseFloat(m[2], 64); err != nil || w <= 0 || w > 1e6 {
				return nil, fmt.Errorf("onnx: voice blend %q: weight %q must be a positive number", id, m[2])
			}
		}
		terms = append(terms, blendTerm{m[1], sign * w})
		if i < 0 {
			break
		}
		sign = 1
		if rest[i] == '-' {
			sign = -1
		}
		rest = rest[i+1:]
	}
	return terms, nil
}

// blend returns the weighted mean of packs: the sum of weight × pack over
// the sum of the weights' magnitudes, so "a(2)+b(1)" is 2/3 a + 1/3 b
// and "a-b" is (a - b) / 2.
func blend(packs []pack, weights []float64) pack {
	var total float64
	for _, w := range weights {
		total += math.Abs(w)
	}
	out := make(pack, len(packs[0]))
	acc := make([]float64, len(out))
	for i, p := range packs {
		w := weights[i] / total
		for j, v := range p {
			acc[j] += w * float64(v)
		}
	}
	for j, v := range acc {
		out[j] = float32(v)
	}
	return out
}
