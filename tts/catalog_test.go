package tts_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tts"
)

// TestNewLeavesOutRefusedVoices: voices whose ids the catalog refuses (a
// line break, a bidi override, 20,000 characters, an id another engine
// has) are logged and left out when a Synthesizer starts, and the others
// serve, as a voices directory's rescan does.
func TestNewLeavesOutRefusedVoices(t *testing.T) {
	first := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"en-us"}})
	second := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{
		"en-us", "bad\nname", "evil\u202eeno", strings.Repeat("x", 20000), "fine",
	}})
	var log bytes.Buffer
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"a": first, "b": second},
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var ids []string
	for _, v := range synth.Voices().List("") {
		ids = append(ids, v.ID+"/"+v.Engine)
	}
	if got := strings.Join(ids, " "); got != "en-us/a fine/b" {
		t.Errorf("voices %q, want en-us of engine a and fine", got)
	}
	if !strings.Contains(log.String(), "voices left out") || !strings.Contains(log.String(), "both have it") {
		t.Errorf("log:\n%.2000s", log.String())
	}
	if _, err := synth.Synthesize(t.Context(), "fine", "Hello.", encode.Format{}); err != nil {
		t.Errorf("the good voice: %v", err)
	}
}
