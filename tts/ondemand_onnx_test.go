package tts_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// TestVoiceRemovedWhileSpeaking: a request whose voice a rescan removes
// after its first sentence speaks the rest (tts holds the voice for the
// request), the first request for the cold voice reports its load
// (Result.VoiceLoad) and the next one none, and once the request ends the
// voice is gone.
func TestVoiceRemovedWhileSpeaking(t *testing.T) {
	dir, fixture := t.TempDir(), filepath.Join("..", "engine", "onnx", "testdata", "voices", "en_US-tone-medium")
	for _, ext := range []string{".onnx", ".onnx.json"} {
		b, err := os.ReadFile(fixture + ext)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "v"+ext), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	eng := onnxtest.Load(t, onnx.Options{VoicesDir: dir})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(ctx, "onnx", eng, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": eng}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	const input = "First sentence here. Second sentence here. Third sentence here."
	var buf bytes.Buffer
	res, err := s.Stream(ctx, &buf, tts.Request{Voice: "v", Input: input, Format: encode.PCM})
	if err != nil || res.VoiceLoad <= 0 || res.VoiceLoad > res.EngineTime {
		t.Fatalf("the first request: %v, voice load %v of engine time %v", err, res.VoiceLoad, res.EngineTime)
	}
	whole := buf.Len()

	sentences := 0
	req := tts.Request{Voice: "v", Input: input, Format: encode.PCM, OnSentence: func(tts.SentenceDone) {
		if sentences++; sentences == 1 {
			os.Remove(filepath.Join(dir, "v.onnx"))
			os.Remove(filepath.Join(dir, "v.onnx.json"))
			if _, err := eng.Rescan(ctx); err != nil {
				t.Error(err)
			}
		}
	}}
	buf.Reset()
	res, err = s.Stream(ctx, &buf, req)
	if err != nil || sentences != 3 || res.VoiceLoad != 0 {
		t.Fatalf("the voice removed after the first sentence: %v after %d sentences, voice load %v", err, sentences, res.VoiceLoad)
	}
	if d := buf.Len() - whole; d < -whole/10 || d > whole/10 {
		t.Errorf("%d bytes of audio, the first request %d", buf.Len(), whole)
	}
	if r := eng.Residency(); r.Models != 0 {
		t.Errorf("after the request: %+v, want the removed voice unloaded", r)
	}
	if err := eng.Synthesize(ctx, engine.Request{Voice: "v", Text: "Gone."}, func(engine.Chunk) error { return nil }); err == nil {
		t.Error("the removed voice still speaks")
	}
}
