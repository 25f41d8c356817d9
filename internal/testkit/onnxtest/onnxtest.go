// Package onnxtest loads onnx engines for tests of the packages above
// engine/onnx.
package onnxtest

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
)

// Load returns an onnx engine of opts, closed when t ends, with the ONNX
// Runtime library of $ONNXRUNTIME_LIB (or found where onnx.FindLibrary
// looks), espeak-ng as the phonemizer and logs discarded unless opts say
// otherwise. Without the library it skips t, or fails it under CI, where
// the library must be there.
func Load(t testing.TB, opts onnx.Options) *onnx.Engine {
	t.Helper()
	opts.LibraryPath = Library(t)
	if opts.Phonemizer == nil {
		es, err := espeak.New(espeak.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Phonemizer = es
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	eng, err := onnx.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// Library returns the ONNX Runtime library for tests: $ONNXRUNTIME_LIB, or
// the one onnx.FindLibrary finds. Without one it skips t, or fails it
// under CI, where the library must be there.
func Library(t testing.TB) string {
	t.Helper()
	lib, err := onnx.FindLibrary(os.Getenv("ONNXRUNTIME_LIB"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return lib
}
