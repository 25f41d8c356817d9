//go:build cgo

// Package espeaktts makes the embedded default synthesizer in one call: a
// tts.Synthesizer that speaks with every espeak-ng voice (engine/espeak),
// which needs no model files. It sits above both tts and the engine, so
// that engines never import tts.
package espeaktts

import (
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
)

// New returns a tts.Synthesizer that speaks with every espeak-ng voice,
// on an engine of its own named "espeak". Its Close closes the engine.
func New(opts espeak.Options) (*tts.Synthesizer, error) {
	e, err := espeak.New(opts)
	if err != nil {
		return nil, err
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": e}, CloseEngines: true})
	if err != nil {
		e.Close()
		return nil, err
	}
	return s, nil
}
