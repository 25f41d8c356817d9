package tags

import (
	"strings"
	"testing"
)

// benchInput is about 4000 characters (the default input limit) with a
// tag every few words.
var benchInput = strings.Repeat("<|slow|>Hello there, <|pitch:+2|>how are you?<|/pitch|> <|pause:200ms|>I am <|whisper|>fine<|/whisper|>. <|wink|>Really.<|reset|> ", 32)

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		if _, err := Parse(benchInput, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSentences(b *testing.B) {
	s, _ := Parse(benchInput, Options{})
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		s.Sentences(0)
	}
}

// TestParseLinear guards against quadratic behaviour on long inputs full
// of tags that are dropped or merge text: a 200 kB input parses in one
// pass (the test fails by timing out, not by measuring).
func TestParseLinear(t *testing.T) {
	in := strings.Repeat("a<|x|>b<|slow|><|/slow|>", 10000)
	s, err := Parse(in, Options{})
	if err != nil || len(s.Parts) != 1 || len(s.Text()) != 20000 {
		t.Fatalf("parts %d, text %d, err %v", len(s.Parts), len(s.Text()), err)
	}
	if len(s.Sentences(0)) == 0 {
		t.Fatal("no sentences")
	}
}
