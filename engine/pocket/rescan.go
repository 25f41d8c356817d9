package pocket

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/voxkit/voxkit/engine/internal/modeldir"
	"github.com/voxkit/voxkit/engine/onnx"
)

// modelDirs returns the model directories of voicesDir (those holding a
// PocketTTS model) and extra, by model id (the directory's name).
func modelDirs(voicesDir string, extra []string) (map[string]string, error) {
	return modeldir.Find("pocket", voicesDir, extra, isModelDir)
}

// recordings returns the voices of the models' test_wavs directories:
// "MODEL:STEM" → the recording.
func recordings(models map[string]*model) map[string]string {
	refs := map[string]string{}
	for name, m := range models {
		wavs, _ := filepath.Glob(filepath.Join(m.dir, "test_wavs", "*.wav"))
		for _, w := range wavs {
			refs[name+onnx.SpeakerSep+strings.TrimSuffix(filepath.Base(w), ".wav")] = w
		}
	}
	return refs
}

// fits reports whether v's latents are of m's size.
func (m *model) fits(v *Voice) error {
	if int64(v.Dim) != m.embedDim {
		return fmt.Errorf("pocket: voice of %d-value latents for model %s, which takes %d", v.Dim, v.Model, m.embedDim)
	}
	return nil
}

// Rescan reads Options.VoicesDir (and Options.Models) again: model
// directories added since are opened, and models whose directories are
// gone are closed (a request running on one ends with an error), so
// CloneModels and Voices change with the directory. The recordings of
// every model's test_wavs are listed anew. A model directory whose files
// change in place is not reopened: remove it, rescan, and add it back.
//
// Voices added with AddVoice or LoadClone stay whatever happens to their
// model: while it is gone Synthesize refuses them with an
// engine.UnsupportedVoiceError, and once a model of that id is back they
// speak again. A model that fails to open is left out and its error
// returned (joined with the others'); the rest are served. Rescan
// reports whether the set of models changed. Rescans run one at a time.
func (e *Engine) Rescan(ctx context.Context) (changed bool, err error) {
	e.rescanning.Lock()
	defer e.rescanning.Unlock()
	dirs, err := modelDirs(e.dir, e.extra)
	if err != nil {
		return false, err
	}
	opened, errs := modeldir.OpenNew(ctx, dirs, func(name string) bool {
		e.mu.RLock()
		defer e.mu.RUnlock()
		return e.models[name] != nil
	}, func(name, dir string) (*model, error) { return openModel(name, dir, e.threads) })

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		closeModels(opened)
		return false, errClosed
	}
	removed := modeldir.Prune(e.models, dirs)
	maps.Copy(e.models, opened)
	// Recordings are encoded again on first use after a change.
	refs := recordings(e.models)
	for name, old := range e.refs {
		if refs[name] != old {
			delete(e.voices, name)
		}
	}
	e.refs = refs
	e.mu.Unlock()

	errs = append(errs, closeModels(removed))
	for name := range opened {
		e.log.Info("pocket: model added", "model", name, "dir", dirs[name])
	}
	for name := range removed {
		e.log.Info("pocket: model removed", "model", name)
	}
	return len(opened)+len(removed) > 0, errors.Join(errs...)
}

// closeModels closes the models of m.
func closeModels(m map[string]*model) error {
	var errs []error
	for _, x := range m {
		errs = append(errs, x.close())
	}
	return errors.Join(errs...)
}
