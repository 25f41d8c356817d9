package tts

import (
	"testing"

	"github.com/voxkit/voxkit/tags"
)

func TestQuickStart(t *testing.T) {
	long := "When the morning light came over the hills, the farmers went out to the fields and worked until the sun was high."
	text := func(s string) tags.Sentence { return tags.Sentence{Parts: []tags.Part{{Text: s}}} }
	for _, tc := range []struct {
		name string
		in   []tags.Sentence
		min  int
		want []string // the first sentences' texts after the cut
	}{
		{"long, cut at the comma", []tags.Sentence{text(long), text("Then rest.")}, 80,
			[]string{"When the morning light came over the hills,", "the farmers went out to the fields and worked until the sun was high.", "Then rest."}},
		{"short", []tags.Sentence{text("Hello, world.")}, 80, []string{"Hello, world."}},
		{"off", []tags.Sentence{text(long)}, -1, []string{long}},
		{"no clause mark", []tags.Sentence{text("A sentence that runs on and on without any clause mark at all for quite a while now.")}, 40,
			[]string{"A sentence that runs on and on without any clause mark at all for quite a while now."}},
		{"a dash", []tags.Sentence{text("The results were clear from the start — nobody had expected them to be so good.")}, 40,
			[]string{"The results were clear from the start —", "nobody had expected them to be so good."}},
		{"a comma too early", []tags.Sentence{text("Yes, the results were clear from the start and nobody had expected them.")}, 40,
			[]string{"Yes, the results were clear from the start and nobody had expected them."}},
		{"styled parts are left whole", []tags.Sentence{{Parts: []tags.Part{{Text: "When the morning light came over the hills,"}, {Text: " the farmers went out.", Style: tags.Style{Rate: 2}}}}}, 20,
			[]string{"When the morning light came over the hills,  the farmers went out."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := quickStart(tc.in, tc.min)
			if len(got) != len(tc.want) {
				t.Fatalf("%d sentences, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if got[i].Text() != w {
					t.Errorf("sentence %d = %q, want %q", i, got[i].Text(), w)
				}
			}
		})
	}
}
