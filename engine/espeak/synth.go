//go:build cgo

package espeak

import (
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tts"
)

// NewSynthesizer returns a tts.Synthesizer that speaks with every
// espeak-ng voice, on an engine of its own named "espeak": the embedded
// default, which needs no model files. Its Close closes the engine.
func NewSynthesizer(opts Options) (*tts.Synthesizer, error) {
	e, err := New(opts)
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
