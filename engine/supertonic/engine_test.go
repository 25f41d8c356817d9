package supertonic

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st3", "--small")})
	got := say(t, e, "st3:F1", "Hello world, this is a test.", 1, 5, 42)
	t.Logf("%d samples", len(got))
}
