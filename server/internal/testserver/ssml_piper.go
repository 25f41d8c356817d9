package testserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/onnxtest"
	"github.com/voxkit/voxkit/tts"
)

// newPiperEnv is newEnv with the generated Piper voices of engine/onnx's
// testdata beside espeak-ng's.
func NewPiperEnv(t *testing.T) *Env {
	t.Helper()
	piper := onnxtest.Load(t, onnx.Options{Strict: true, VoicesDir: filepath.Join(Root(), "engine", "onnx", "testdata", "voices")})
	return New(t, Options{Synth: func(o *tts.Options) {
		o.Engines["onnx"] = piper
		if err := o.Voices.AddEngine(context.Background(), "onnx", piper, time.Now()); err != nil {
			t.Fatal(err)
		}
	}})
}
