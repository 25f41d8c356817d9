package tags

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCases are the inputs whose parse is kept in testdata/golden.
var goldenCases = []struct {
	name   string
	input  string
	maxLen int
	opts   Options
}{
	{name: "plain", input: "Hello, world."},
	{name: "empty", input: ""},
	{name: "only-pause", input: "<|pause|>"},
	{name: "only-style", input: "<|slow|>"},
	{name: "only-tags", input: "<|loud|><|breath|><|/loud|><|sigh|>"},
	{name: "leading-style", input: "<|slow|>The whole thing is slow. Really."},
	{name: "closed-style", input: "Normal <|fast|>quick words<|/fast|> normal again."},
	{name: "unclosed", input: "Start <|high|>and never close. Still high."},
	{name: "nested-same-attr", input: "<|slow|>slow <|fast|>fast<|/fast|> slow again<|/slow|> neutral"},
	{name: "nested-different", input: "<|slow|>a <|loud|>b <|whisper|>c<|/whisper|> d<|/loud|> e<|/slow|> f"},
	{name: "overlapping", input: "<|slow|>a <|loud|>b<|/slow|> c<|/loud|> d"},
	{name: "reset", input: "<|slow|><|high|><|whisper|>styled <|reset|>plain"},
	{name: "reset-value", input: "<|reset:now|>text"},
	{name: "close-unopened", input: "text<|/slow|> more"},
	{name: "close-event", input: "a<|/pause|>b"},
	{name: "close-with-value", input: "<|slow|>a<|/slow:2|>b"},
	{name: "unknown", input: "I <|wink|>know."},
	{name: "unknown-closing", input: "I <|/wink|>know."},
	{name: "literal-open", input: "a <| b"},
	{name: "literal-trailing", input: "trailing <|"},
	{name: "literal-pipe-gt", input: "x |> y <||> z"},
	{name: "literal-uppercase", input: "<|SLOW|>shouting name"},
	{name: "literal-space-in-tag", input: "<| slow |>spaced <|pause: 1s|>"},
	{name: "literal-nested-open", input: "<|<|slow|>|>"},
	{name: "removed-tag-would-form-tag", input: "<|sl<|wink|>ow|>text"},
	{name: "removed-style-would-form-tag", input: "<|lo<|slow|><|/slow|>ud|>x"},
	{name: "pause-values", input: "a<|pause:250ms|>b<|pause:1.5s|>c<|pause:2|>d<|pause:0ms|>e"},
	{name: "pause-too-long", input: "wait<|pause:10s|>done"},
	{name: "pause-bad", input: "a<|pause:soon|>b<|pause:-1s|>c"},
	{name: "empty-values", input: "<|rate:|>a<|pitch:|>b<|voice:|>c<|pause:|>d"},
	{name: "missing-values", input: "<|rate|>a<|pitch|>b<|volume|>c<|voice|>d"},
	{name: "value-on-flag", input: "<|whisper:yes|>a<|slow:2|>b"},
	{name: "rate-values", input: "<|rate:1.2|>a<|rate:0.25|>b<|rate:4|>c"},
	{name: "rate-out-of-range", input: "<|rate:9|>fast<|rate:0.1|>slow<|rate:-1|>neg"},
	{name: "rate-bad", input: "<|rate:abc|>a<|rate:NaN|>b<|rate:inf|>c<|rate:0x10|>d"},
	{name: "pitch-values", input: "<|pitch:+3|>up <|pitch:-2.5|>down <|pitch:5st|>st"},
	{name: "pitch-out-of-range", input: "<|pitch:+30|>way up<|pitch:-13|>way down"},
	{name: "volume-values", input: "<|volume:0.5|>half <|volume:2|>double <|volume:0|>silent"},
	{name: "volume-out-of-range", input: "<|volume:3|>too loud"},
	{name: "named-styles", input: "<|high|>h<|low|>l<|loud|>L<|soft|>s<|emphasis|>e<|spell|>ABC"},
	{name: "presets", input: "<|excited|>Yes!<|/excited|> <|sad|>No.<|/sad|> <|calm|>Fine.<|/calm|> <|angry|>Why?"},
	{name: "preset-override", input: "<|excited|><|slow|>slow but excited"},
	{name: "events", input: "Well<|breath|> I<|sigh|> think<|laugh|> so<|cough|>."},
	{name: "events-values", input: "<|breath:2|>a<|laugh:loud|>b"},
	{name: "voice", input: "<|voice:alice|>Hi Bob.<|voice:bob|>Hi Alice.<|/voice|>Narrator."},
	{name: "voice-nested", input: "<|voice:alice|>A <|voice:bob|>B<|/voice|> A again"},
	{name: "voice-unknown", input: "<|voice:mallory|>Hi.", opts: Options{Voice: func(id string) bool { return id == "alice" }}},
	{name: "voice-colon-id", input: "<|voice:en-us+f3:x|>odd id"},
	{name: "unsupported", input: "<|laugh|>ha<|whisper|>psst", opts: Options{Supports: func(n string) bool { return n != "laugh" }}},
	{name: "split-across-sentences", input: "First <|slow|>sentence ends. Second starts slow<|/slow|> and ends fast. Third."},
	{name: "pause-between-sentences", input: "One.<|pause|> Two. <|pause:1s|>Three."},
	{name: "event-first", input: "<|breath|>Then words. And more."},
	{name: "unicode", input: "<|high|>Grüße, 世界！<|/high|>你好。 <|pitch:-2|>Ünïcödé — ok…"},
	{name: "unicode-value", input: "<|voice:ünï|>x<|pause:1秒|>y"},
	{name: "tag-mid-word", input: "hel<|loud|>lo wor<|/loud|>ld"},
	{name: "many-spaces", input: "  <|slow|>  spaced   out  <|/slow|>  "},
	{name: "newlines", input: "Para one.\n\n<|whisper|>Para two\nstill two."},
	{name: "long-sentence-cut", maxLen: 40, input: "<|fast|>This sentence is much longer than the limit, so it gets cut at a clause mark or a word boundary<|/fast|> and ends plain."},
	{name: "abbreviation", input: "<|slow|>Dr. Smith arrived. <|/slow|>Mr. Jones left."},
	{name: "adjacent-same-style", input: "<|slow|>a<|/slow|><|slow|>b"},
	{name: "invalid-utf8", input: "a\xff<|slow|>b\xfe<|pause:\xff|>c"},
	{name: "pipes-in-text", input: "a | b <| c |> d <|e|>"},
	{name: "punctuation-joins-words", input: "<|loud|>Yes<|/loud|>! <|slow|>\"<|/slow|>Quoted\" he said<|pause|>?"},
	{name: "punctuation-only", input: "<|loud|>!<|/loud|>?"},
	{name: "long-unknown", input: "<|" + strings.Repeat("x", 80) + "|>text"},
}

func TestGolden(t *testing.T) {
	if len(goldenCases) < 40 {
		t.Fatalf("only %d golden cases", len(goldenCases))
	}
	seen := map[string]bool{}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			if seen[tc.name] {
				t.Fatalf("duplicate case name %q", tc.name)
			}
			seen[tc.name] = true
			got := dump(tc.input, tc.maxLen, tc.opts)
			path := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tags -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("parse of %q differs from %s:\n--- got\n%s--- want\n%s", tc.input, path, got, want)
			}
		})
	}
}

// dump renders everything Parse says about input in a readable form.
func dump(input string, maxLen int, opts Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "input: %q\n", input)
	s, err := Parse(input, opts)
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
		return b.String()
	}
	b.WriteString("parts:\n")
	for _, p := range s.Parts {
		fmt.Fprintf(&b, "  %v\n", p)
	}
	if len(s.Issues) > 0 {
		b.WriteString("issues:\n")
		for _, e := range s.Issues {
			fmt.Fprintf(&b, "  %v\n", e)
		}
		fmt.Fprintf(&b, "ignored: %q\n", s.Ignored())
		if c := s.Clamped(); len(c) > 0 {
			fmt.Fprintf(&b, "clamped: %q\n", c)
		}
	}
	opts.Strict = true
	if _, err := Parse(input, opts); err != nil {
		fmt.Fprintf(&b, "strict: %v\n", err)
	}
	fmt.Fprintf(&b, "sentences:\n")
	for i, sen := range s.Sentences(maxLen) {
		fmt.Fprintf(&b, "  %d:", i)
		for _, p := range sen.Parts {
			fmt.Fprintf(&b, " %v;", p)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestStrictError(t *testing.T) {
	_, err := Parse("ok <|wink|> <|rate:9|> <|/slow|>", Options{Strict: true})
	var se *StrictError
	if !errors.As(err, &se) || len(se.Tags) != 3 {
		t.Fatalf("err = %v, want a StrictError with 3 tags", err)
	}
	var te *TagError
	if !errors.As(err, &te) || te.Pos != 3 || te.Tag != "<|wink|>" {
		t.Fatalf("errors.As TagError = %+v", te)
	}
	for _, kind := range []error{ErrUnknownTag, ErrOutOfRange, ErrUnmatched} {
		if !errors.Is(err, kind) {
			t.Errorf("errors.Is(err, %v) = false", kind)
		}
	}
	if errors.Is(err, ErrBadValue) {
		t.Errorf("errors.Is(err, ErrBadValue) = true")
	}
	for _, name := range []string{"<|wink|>", "<|rate:9|>", "<|/slow|>"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestStrictAcceptsGoodTags(t *testing.T) {
	in := "<|excited|>Hi<|pause:1s|> <|voice:bob|><|pitch:-3|>there<|/voice|><|reset|>."
	if _, err := Parse(in, Options{Strict: true}); err != nil {
		t.Fatal(err)
	}
}

func TestVocabulary(t *testing.T) {
	// Every name of the vocabulary parses cleanly, with a value where it
	// needs one, and leaves no text behind.
	values := map[string]string{"rate": "1.5", "pitch": "2", "volume": "0.5", "voice": "x", "phoneme": "bˈiː"}
	for _, name := range vocabularyNames() {
		t.Run(name, func(t *testing.T) {
			tag := "<|" + name + "|>"
			if v, ok := values[name]; ok {
				tag = "<|" + name + ":" + v + "|>"
			}
			s, err := Parse("a"+tag+"b", Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Text(); got != "ab" {
				t.Errorf("text = %q", got)
			}
			styled := len(s.Parts) == 2 && s.Parts[1].Style != Style{}
			event := len(s.Parts) == 3 && s.Parts[1].IsEvent()
			if !styled && !event && name != "reset" {
				t.Errorf("parts = %v: tag had no effect", s.Parts)
			}
			if isEventTag(name) != event {
				t.Errorf("IsEvent(%q) = %v, parts %v", name, isEventTag(name), s.Parts)
			}
		})
	}
}

func TestSentencesKeepText(t *testing.T) {
	// The text of the script survives splitting, in order, whatever the
	// bound, and no sentence is longer than the bound.
	in := "<|slow|>Alpha beta. Gamma<|pause|> delta, epsilon<|/slow|> zeta! <|loud|>Eta theta iota kappa lambda."
	s, err := Parse(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(strings.Fields(s.Text()), "")
	for _, maxLen := range []int{0, 5, 12, 30} {
		var got strings.Builder
		events := 0
		for _, sen := range s.Sentences(maxLen) {
			n := 0
			for _, p := range sen.Parts {
				got.WriteString(strings.Join(strings.Fields(p.Text), ""))
				n += len([]rune(p.Text))
				if p.IsEvent() {
					events++
				}
			}
			if maxLen > 0 && n > maxLen {
				t.Errorf("maxLen %d: sentence %q has %d characters", maxLen, sen.Text(), n)
			}
		}
		if got.String() != want || events != 1 {
			t.Errorf("maxLen %d: text %q and %d events, want %q and 1", maxLen, got.String(), events, want)
		}
	}
}

// vocabularyNames returns the names of the tag vocabulary, sorted.
func vocabularyNames() []string {
	names := make([]string, 0, len(vocabulary))
	for n := range vocabulary {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// isEventTag reports whether name is an event tag of the vocabulary (one that
// happens where it stands rather than styling text).
func isEventTag(name string) bool {
	d, ok := vocabulary[name]
	return ok && d.kind == eventTag
}

func TestOpenCarriesStyles(t *testing.T) {
	first, err := Parse("<|whisper|><|rate:1.5|>One. <|loud|>Two.<|/loud|>", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(first.Open, ""), "<|whisper|><|rate:1.5|>"; got != want {
		t.Fatalf("Open = %q, want %q", got, want)
	}
	next, err := Parse(strings.Join(first.Open, "")+"Three.", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Parts) != 1 || next.Parts[0].Style != first.Parts[0].Style {
		t.Fatalf("continued parts %v, want the style of %v", next.Parts, first.Parts[0])
	}
}

func TestMask(t *testing.T) {
	in := "Hi <|pause:1s|>there <|Pause|> you <|x <|/loud|>!"
	got := Mask(in)
	want := "Hi             there           you <|x          !"
	if got != want || len(got) != len(in) {
		t.Fatalf("Mask(%q)\n= %q\nwant %q", in, got, want)
	}
}

// Every tag of the vocabulary is described, and its example parses
// (with text in place of "…") without issues.
func TestVocabularyDescribed(t *testing.T) {
	list := Vocabulary()
	if len(list) != len(vocabulary) {
		t.Fatalf("%d tags listed, %d in the vocabulary", len(list), len(vocabulary))
	}
	for _, tag := range list {
		if tag.Doc == "" || tag.Example == "" || tag.Kind == "" {
			t.Errorf("%+v: not described", tag)
		}
		s, err := Parse("a "+strings.ReplaceAll(tag.Example, "…", "words"), Options{Strict: true})
		if err != nil || len(s.Parts) == 0 {
			t.Errorf("%s: example %q: %v, %v", tag.Name, tag.Example, s.Parts, err)
		}
	}
}

func TestPhonemeTag(t *testing.T) {
	// Each phoneme tag's text is a part of its own, even beside another of
	// the same phonemes; "_" in the value is a space.
	s, err := Parse("I say <|phoneme:təˈmɑːtoʊ|>tomato<|/phoneme|><|phoneme:təˈmɑːtoʊ|>tomato<|/phoneme|>, <|phoneme:ðə_kæt|>the cat<|/phoneme|>.", Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Parts {
		got = append(got, p.String())
	}
	want := []string{
		`text "I say " {neutral}`,
		`text "tomato" {phonemes="təˈmɑːtoʊ"}`,
		`text "tomato" {phonemes="təˈmɑːtoʊ"}`,
		`text ", " {neutral}`,
		`text "the cat" {phonemes="ðə kæt"}`,
		`text "." {neutral}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tag := PhonemeTag(" ðə  kæt | sæt "); tag != "<|phoneme:ðə_kæt_sæt|>" {
		t.Errorf("PhonemeTag = %q", tag)
	}
}

// TestIgnoredNamesDelimiters: a delimiter left over, which Parse removes
// with its word, is reported in Ignored as the word was written, also
// when nothing is left of it once its delimiters are trimmed ("<|", "|>",
// "<||>"), and a word such as "x|>" is not reported as a tag named "x".
func TestIgnoredNamesDelimiters(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  []string
	}{
		{"<|", []string{"<|"}},
		{"a <| b", []string{"<|"}},
		{"a |> b", []string{"|>"}},
		{"a <||> b", []string{"<||>"}},
		{"a x|> b", []string{"x|>"}},
		{"Hi <|pause:1s <|x|> there.", []string{"<|pause:1s", "x"}},
		{"<|<|slow|>|>", []string{"<|", "|>"}},
		{"a <| c |> d", []string{"c"}},
	} {
		s, err := Parse(tc.input, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Ignored(); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q).Ignored() = %q, want %q", tc.input, got, tc.want)
		}
	}
}

// TestPauseValueAsWritten: a pause's value is a duration or a plain
// decimal number of seconds; numbers written as Go reads them but people
// do not (hexadecimal, digits with underscores) are bad values, dropped
// and reported as those of rate, pitch and volume are, not a 4 s pause.
func TestPauseValueAsWritten(t *testing.T) {
	for _, in := range []string{"<|pause:0x1p2|>", "<|pause:1_0|>", "<|pause:0x10|>"} {
		s, err := Parse("a"+in+"b", Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(strings.TrimPrefix(in, "<|"), "|>")
		if len(s.Parts) != 1 || s.Parts[0].Text != "ab" || !slices.Equal(s.Ignored(), []string{want}) {
			t.Errorf("%s: parts %v, ignored %q; want the text alone and %q ignored", in, s.Parts, s.Ignored(), want)
		}
	}
	for in, want := range map[string]time.Duration{"<|pause|>": DefaultPause, "<|pause:|>": DefaultPause, "<|pause:2|>": 2 * time.Second, "<|pause:1.5|>": 1500 * time.Millisecond, "<|pause:250ms|>": 250 * time.Millisecond, "<|pause:1e0|>": time.Second} {
		s, err := Parse(in, Options{Strict: true})
		if err != nil || len(s.Parts) != 1 || s.Parts[0].Event.Duration != want {
			t.Errorf("%s: %v %v, want a pause of %v", in, s.Parts, err, want)
		}
	}
}
