package pocket

import (
	"context"
	"errors"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
)

func TestConformance(t *testing.T) {
	e := loadGen(t)
	enginetest.Run(t, e, testModel+":alto")
}

// TestClosed: after Close, a call fails with engine.ErrClosed.
func TestClosed(t *testing.T) {
	enginetest.RunClosed(t, loadGen(t), testModel+":alto")
}

func TestVoices(t *testing.T) {
	e := loadGen(t)
	vs, err := e.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
		if v.SampleRate != SampleRate {
			t.Errorf("%s: sample rate %d", v.Name, v.SampleRate)
		}
	}
	want := []string{testModel + ":alto", testModel + ":bass"}
	if len(names) != 2 || names[0] != want[0] || names[1] != want[1] {
		t.Errorf("voices %v, want %v", names, want)
	}
	if got := e.Models(); len(got) != 1 || got[0] != testModel {
		t.Errorf("models %v", got)
	}
	_, err = enginetest.Collect(context.Background(), e, engine.Request{Voice: testModel + ":tenor", Text: "Hello."})
	if !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("unknown voice: %v, want ErrUnknownVoice", err)
	}
}
