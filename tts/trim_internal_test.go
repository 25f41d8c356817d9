package tts

import (
	"slices"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// trim cuts silence only at the seams it is given, holds quiet samples
// back until sound follows, and drops them at the end.
func TestTrim(t *testing.T) {
	const q = 0.0005 // below the silence level
	chunks := [][]float32{{0, 0}, {0, q, 0.5, 0}, {0, 0}, {0.25, q}, {0, 0}}
	for _, tc := range []struct {
		at   seams
		want []float32
		lead int
	}{
		{seams{}, []float32{0, 0, 0, q, 0.5, 0, 0, 0, 0.25, q, 0, 0}, 0},
		{seams{start: true}, []float32{0.5, 0, 0, 0, 0.25, q, 0, 0}, 4},
		{seams{end: true}, []float32{0, 0, 0, q, 0.5, 0, 0, 0, 0.25}, 0},
		{seams{start: true, end: true}, []float32{0.5, 0, 0, 0, 0.25}, 4},
	} {
		var got []float32
		lead := 0
		emit := trim(func(c engine.Chunk) error {
			got = append(got, c.Samples...)
			return nil
		}, tc.at, &lead)
		for _, c := range chunks {
			if err := emit(engine.Chunk{Samples: slices.Clone(c), SampleRate: 16000}); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, tc.want) || lead != tc.lead {
			t.Errorf("%+v: got %v, cut %d at the start; want %v, %d", tc.at, got, lead, tc.want, tc.lead)
		}
	}
}

func TestEndsClause(t *testing.T) {
	for text, want := range map[string]bool{
		"Hello":      false,
		"Hello, ":    true,
		"Hello.":     true,
		`"Hi!" `:     true,
		"one; ":      true,
		"你好，":        true,
		"well-known": false,
	} {
		if got := endsClause(text); got != want {
			t.Errorf("endsClause(%q) = %v", text, got)
		}
	}
}
