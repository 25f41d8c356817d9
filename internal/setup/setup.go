// Package setup builds what the example programs share: the embedded
// espeak-ng engine, Piper voices from a directory through ONNX Runtime,
// and the catalog of their voices.
package setup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/voices"
)

// Engine names in the catalog.
const (
	Espeak = "espeak"
	Piper  = "onnx"
)

// Config says which voices to load. The zero value loads espeak-ng's.
type Config struct {
	// VoicesDir holds Piper voices (NAME.onnx + NAME.onnx.json); empty
	// means none.
	VoicesDir string
	// OnnxLibrary is the ONNX Runtime library; empty means
	// onnx.FindLibrary's search. Programs pass $ONNXRUNTIME_LIB here.
	OnnxLibrary string
	// Strict fails Load when a voice of VoicesDir cannot load, instead of
	// leaving it out (onnx.Options.Strict).
	Strict bool
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Voices are the loaded engines and their catalog.
type Voices struct {
	Engines map[string]engine.Engine
	Catalog *voices.Catalog

	mu    sync.Mutex // serializes Rescan
	piper *onnx.Engine
}

// Load starts the engines and fills the catalog. Close releases them.
func Load(ctx context.Context, cfg Config) (*Voices, error) {
	esp, err := espeak.New(espeak.Options{})
	if err != nil {
		return nil, err
	}
	v := &Voices{Engines: map[string]engine.Engine{Espeak: esp}, Catalog: new(voices.Catalog)}
	if err := v.Catalog.AddEngine(ctx, Espeak, esp, time.Now()); err != nil {
		v.Close()
		return nil, err
	}
	if cfg.VoicesDir == "" {
		return v, nil
	}
	piper, err := onnx.Load(ctx, onnx.Options{
		LibraryPath: cfg.OnnxLibrary,
		Phonemizer:  esp,
		VoicesDir:   cfg.VoicesDir,
		Strict:      cfg.Strict,
		Logger:      cfg.Logger,
	})
	if err != nil {
		v.Close()
		return nil, fmt.Errorf("setup: voices in %s: %w", cfg.VoicesDir, err)
	}
	v.piper = piper
	v.Engines[Piper] = piper
	if err := v.Catalog.AddEngine(ctx, Piper, piper, time.Now()); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// Rescan reloads the voices directory and brings the catalog in line. It
// does nothing when no directory was given.
func (v *Voices) Rescan(ctx context.Context) error {
	if v.piper == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	_, err := v.piper.Rescan(ctx)
	// Voices that loaded are listed even if others failed.
	return errors.Join(err, v.Catalog.AddEngine(ctx, Piper, v.piper, time.Now()))
}

// Close closes the engines.
func (v *Voices) Close() error {
	var errs []error
	for _, e := range v.Engines {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}
