package tags_test

import (
	"slices"
	"testing"

	"github.com/voxkit/voxkit/tags"
)

func TestReadInstructions(t *testing.T) {
	for _, c := range []struct {
		text          string
		tags, unknown []string
	}{
		{"", nil, nil},
		{" None ", nil, nil},
		{"Speak slowly.", []string{"slow"}, nil},
		{"Whisper, quietly and a little higher", []string{"whisper", "soft", "high"}, nil},
		{"Cheerful! Then loudly.", []string{"excited", "loud"}, nil},
		{"Speak calmly, in a sad voice; angrily too", []string{"calm", "sad", "angry"}, nil},
		{"Don't whisper, speak like a pirate", nil, []string{"not whisper", "pirate"}},
		{"not too fast", nil, []string{"not fast"}},
		{"Do not whisper. Please do speak slowly", []string{"slow"}, []string{"not whisper"}},
		// The labels of OpenAI's prompt templates carry no style of their own.
		{"Voice Affect: calm. Tone: sad. Pacing: slow. Emotion: sad. Delivery: soft. Pauses: none. Phrasing: plain. Personality: calm. Pronunciation: crisp",
			[]string{"calm", "sad", "slow", "soft"}, []string{"none", "plain", "crisp"}},
		{"a b c d e f g h i j k", nil, []string{"b", "c", "d", "e", "f", "g", "h", "i", "..."}},
	} {
		got := tags.ReadInstructions(c.text)
		if !slices.Equal(got.Tags, c.tags) || !slices.Equal(got.Unknown, c.unknown) {
			t.Errorf("%q: tags %q unknown %q, want %q %q", c.text, got.Tags, got.Unknown, c.tags, c.unknown)
		}
	}
}

// TestParseOpen: tags given as Options.Open style the whole input as if
// written before it, and the input's own tags override them.
func TestParseOpen(t *testing.T) {
	s, err := tags.Parse("Hi <|fast|>there", tags.Options{Open: tags.ReadInstructions("slowly, whispering").Open()})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Parts) != 2 || s.Parts[0].Text != "Hi " || s.Parts[0].Style != (tags.Style{Rate: tags.SlowRate, Whisper: true}) ||
		s.Parts[1].Style != (tags.Style{Rate: tags.FastRate, Whisper: true}) || len(s.Issues) != 0 {
		t.Errorf("parts %v, issues %v", s.Parts, s.Issues)
	}
}
