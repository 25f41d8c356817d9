// Package modeldir finds the model directories of a voices directory, for
// the engines whose models are directories (engine/pocket,
// engine/supertonic).
package modeldir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Find returns the subdirectories of voicesDir for which isModel holds,
// and the directories of extra, by model id: the directory's name. Two
// of one name are an error. pkg starts the errors' messages.
func Find(pkg, voicesDir string, extra []string, isModel func(dir string) bool) (map[string]string, error) {
	dirs := slices.Clone(extra)
	if voicesDir != "" {
		entries, err := os.ReadDir(voicesDir)
		if err != nil {
			return nil, fmt.Errorf("%s: voices directory: %w", pkg, err)
		}
		for _, ent := range entries {
			d := filepath.Join(voicesDir, ent.Name())
			if st, err := os.Stat(d); err == nil && st.IsDir() && isModel(d) {
				dirs = append(dirs, d)
			}
		}
	}
	byName := map[string]string{}
	for _, d := range dirs {
		name := filepath.Base(filepath.Clean(d))
		if _, dup := byName[name]; dup {
			return nil, fmt.Errorf("%s: two models named %s", pkg, name)
		}
		byName[name] = d
	}
	return byName, nil
}
