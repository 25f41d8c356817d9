//go:build cgo

package testserver

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine/supertonic"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
	"github.com/voxkit/voxkit/tts"
)

// SupertonicEnv is the test server with a supertonic engine, as the
// engine "supertonic", on the small generated Supertonic 3 model
// (supertonictest.Model), made once per test binary and shared.
func SupertonicEnv(t *testing.T) *Env {
	t.Helper()
	dir, err := supertonictest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	st, err := supertonic.Load(context.Background(), supertonic.Options{LibraryPath: onnxtest.Library(t), VoicesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(t, Options{Synth: func(o *tts.Options) {
		o.Engines["supertonic"] = st
		if err := o.Voices.AddEngine(context.Background(), "supertonic", st, time.Now()); err != nil {
			t.Fatal(err)
		}
	}})
}
