package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
)

func TestFakeConformance(t *testing.T) {
	Run(t, NewFake(FakeOptions{}), "fake")
}

func TestFakeDeterministic(t *testing.T) {
	f := NewFake(FakeOptions{Voices: []string{"a", "b"}})
	req := engine.Request{Voice: "b", Text: "Same text. Twice."}
	x, err := Collect(context.Background(), f, req)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := Collect(context.Background(), f, req)
	if len(x.Samples) != len(y.Samples) {
		t.Fatalf("lengths differ: %d, %d", len(x.Samples), len(y.Samples))
	}
	for i := range x.Samples {
		if x.Samples[i] != y.Samples[i] {
			t.Fatalf("sample %d differs", i)
		}
	}
	// "Same text" has 8 letters and 1 space, "Twice" 5 letters; periods
	// are short silences too: 13 letters and 3 half-letter silences.
	want := 13*60*time.Millisecond + 3*30*time.Millisecond
	if d := x.Duration(); d != want {
		t.Errorf("duration %v, want %v", d, want)
	}
	if f.Pitch("b") != 160 || len(f.Requests()) != 2 {
		t.Errorf("pitch %v, %d requests recorded", f.Pitch("b"), len(f.Requests()))
	}
}
