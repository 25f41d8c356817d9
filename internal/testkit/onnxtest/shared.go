package onnxtest

import (
	"os"
	"sync"
)

// Shared is a directory of generated models made once per test binary
// and shared by its tests (engines only read it): pockettest's and
// supertonictest's Shared.
type Shared struct {
	once sync.Once
	dir  string
	err  error
}

// Dir returns the directory, made by make in a new temporary directory
// named after pattern (as os.MkdirTemp names it) at the first call.
func (s *Shared) Dir(pattern string, make func(dir string) error) (string, error) {
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", pattern); s.err == nil {
			s.err = make(s.dir)
		}
	})
	return s.dir, s.err
}

// Remove removes the directory, if it was made: from TestMain, after
// m.Run.
func (s *Shared) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
