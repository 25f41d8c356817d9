// Package modeldir finds the model directories of a voices directory, for
// the engines whose models are directories (engine/pocket,
// engine/supertonic).
package modeldir

import (
	"context"
	"fmt"
	"maps"
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

// OpenNew opens, with open, each model of dirs (as Find returns them) that
// has is false for, and returns those that opened by name and the errors
// of those that did not; it stops at ctx's end (its error among them).
// has is called without any lock of the caller's: it must take its own.
func OpenNew[M any](ctx context.Context, dirs map[string]string, has func(name string) bool, open func(name, dir string) (M, error)) (map[string]M, []error) {
	opened := map[string]M{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(dirs)) {
		if has(name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return opened, append(errs, err)
		}
		m, err := open(name, dirs[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		opened[name] = m
	}
	return opened, errs
}

// Prune removes from models those whose names dirs does not hold, and
// returns them by name.
func Prune[M any](models map[string]M, dirs map[string]string) map[string]M {
	removed := map[string]M{}
	for name, m := range models {
		if _, ok := dirs[name]; !ok {
			removed[name] = m
			delete(models, name)
		}
	}
	return removed
}
