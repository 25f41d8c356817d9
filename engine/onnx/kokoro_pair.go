package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ErrNoPacks is returned (wrapped) for a Kokoro model whose voice packs
// cannot be told: no pack file beside it, or more than one that could be
// its own (see the package doc, "Kokoro").
var ErrNoPacks = errors.New("onnx: Kokoro model without voice packs")

// packPairError says why a Kokoro model found no voice pack file among
// the files beside it, and what to name one so that it does. It wraps
// ErrNoPacks.
type packPairError struct {
	Model      string   // the model file
	Reason     string   // why no pack file was chosen
	Candidates []string // the files that could be its packs (none when none was found)
	Rivals     []string // other Kokoro models that could take the same pack file
	Want       string   // the file name that pairs the model for sure: NAME.voices.bin
}

func (e *packPairError) Error() string {
	msg := fmt.Sprintf("onnx: Kokoro model %s: %s", e.Model, e.Reason)
	if len(e.Candidates) > 0 {
		msg += " (" + strings.Join(e.Candidates, ", ") + ")"
	}
	return msg + "; name its packs " + e.Want + " (or " + strings.TrimSuffix(e.Want, ".bin") + "/VOICE.bin) to pair them"
}

func (e *packPairError) Unwrap() error { return ErrNoPacks }

// packExts are the file name endings of voice pack files that a Kokoro
// model is paired with by the names kokoro-onnx gives them (readPacks
// reads the content whatever the name).
var packExts = []string{".bin", ".npz"}

// versionRE finds a release version in a file name without its ending:
// "v1.0" in kokoro-v1.0, kokoro-v1.0.int8 and voices-v1.0; "v1.1-zh" in
// kokoro-v1.1-zh and voices-v1.1-zh; "v0_19" in kokoro-v0_19.
var versionRE = regexp.MustCompile(`(?i)(?:^|[-_.])(v[0-9]+(?:[._][0-9]+)*(?:-[a-z]{2})?)(?:$|[-_.])`)

// fileVersion returns the release version in a model or pack file name,
// lower case, or "".
func fileVersion(name string) string {
	for _, ext := range append([]string{".onnx"}, packExts...) {
		name = strings.TrimSuffix(name, ext)
	}
	if m := versionRE.FindStringSubmatch(name); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// kokoroDirFiles lists, in dir, the Kokoro models that have no packs of
// their own name (NAME.onnx with no NAME.onnx.json, NAME.voices or
// NAME.voices.bin) and the pack files not named for a model
// (FILE.bin and FILE.npz, but not NAME.voices.bin beside NAME.onnx).
func kokoroDirFiles(dir string) (models, packs []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	has := map[string]bool{}
	for _, ent := range entries {
		has[ent.Name()] = true
	}
	for _, ent := range entries {
		n := ent.Name()
		if ent.IsDir() {
			continue
		}
		if base, ok := strings.CutSuffix(n, ".onnx"); ok {
			if !has[n+".json"] && !has[base+".voices"] && !has[base+".voices.bin"] {
				models = append(models, n)
			}
			continue
		}
		if base, ok := strings.CutSuffix(n, ".voices.bin"); ok && has[base+".onnx"] {
			continue
		}
		if slices.ContainsFunc(packExts, func(ext string) bool { return strings.HasSuffix(n, ext) }) {
			packs = append(packs, n)
		}
	}
	return models, packs, nil
}

// pairPacks chooses the pack file of the Kokoro model file model among
// packs, the pack files beside it, when it has no NAME.voices or
// NAME.voices.bin; models are the Kokoro models beside it in the same
// case (model among them). It returns the pack file's name, or a
// *packPairError:
//
//  1. a pack file whose name has the model's release version
//     (kokoro-v1.0.onnx, kokoro-v1.0.int8.onnx: voices-v1.0.bin), if
//     exactly one has;
//  2. else the only pack file, leaving out those with another version
//     than the model's and those with the version of another model.
//
// A pack file that two models would take by the same rule is given to
// neither: which one it belongs to is the user's call.
func pairPacks(model string, models, packs []string) (string, error) {
	fail := func(reason string, candidates, rivals []string) (string, error) {
		return "", &packPairError{Model: model, Reason: reason, Candidates: candidates, Rivals: rivals,
			Want: strings.TrimSuffix(model, ".onnx") + ".voices.bin"}
	}
	byVersion, others := packCandidates(model, models, packs)
	switch {
	case len(byVersion) > 1:
		return fail("more than one pack file has its version "+fileVersion(model), byVersion, nil)
	case len(byVersion) == 1:
		var rivals []string
		for _, m := range models {
			if m != model && fileVersion(m) == fileVersion(model) {
				rivals = append(rivals, m)
			}
		}
		if len(rivals) > 0 {
			return fail(byVersion[0]+" has the version of more than one model: "+strings.Join(append([]string{model}, rivals...), ", "), byVersion, rivals)
		}
		return byVersion[0], nil
	case len(others) > 1:
		return fail("more than one pack file beside it", others, nil)
	case len(others) == 0 && len(packs) > 0:
		return fail("no pack file beside it fits: each has another model's or another release's version", packs, nil)
	case len(others) == 0:
		return fail("no voice pack file (.bin or .npz) beside it", nil, nil)
	}
	var rivals []string
	for _, m := range models {
		if m == model {
			continue
		}
		if v, o := packCandidates(m, models, packs); len(v) == 0 && slices.Equal(o, others) {
			rivals = append(rivals, m)
		}
	}
	if len(rivals) > 0 {
		return fail(others[0]+" is the only pack file beside more than one model: "+strings.Join(append([]string{model}, rivals...), ", "), others, rivals)
	}
	return others[0], nil
}

// packCandidates returns the pack files of rule 1 (the model's version)
// and rule 2 (no version, or a version no model has while the model has
// none) of pairPacks.
func packCandidates(model string, models, packs []string) (byVersion, others []string) {
	mv := fileVersion(model)
	modelVersions := map[string]bool{}
	for _, m := range models {
		modelVersions[fileVersion(m)] = true
	}
	for _, p := range packs {
		switch pv := fileVersion(p); {
		case mv != "" && pv == mv:
			byVersion = append(byVersion, p)
		case pv == "", mv == "" && !modelVersions[pv]:
			others = append(others, p)
		}
	}
	return byVersion, others
}

// pairKokoro returns the path of the pack file of the Kokoro model at
// path, which has no NAME.voices or NAME.voices.bin, chosen among the
// files beside it by pairPacks.
func pairKokoro(path string) (string, error) {
	dir := filepath.Dir(path)
	models, packs, err := kokoroDirFiles(dir)
	if err != nil {
		return "", fmt.Errorf("onnx: Kokoro model %s: %w", path, err)
	}
	if !slices.Contains(models, filepath.Base(path)) {
		models = append(models, filepath.Base(path))
	}
	p, err := pairPacks(filepath.Base(path), models, packs)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, p), nil
}
