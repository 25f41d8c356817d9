package lexicon_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/lexicon"
)

const head = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
`

func mustParse(t testing.TB, doc string) *lexicon.Lexicon {
	t.Helper()
	l, err := lexicon.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParse(t *testing.T) {
	l := mustParse(t, head+`  <meta name="author" content="x"/>
  <lexeme role="noun">
    <grapheme>WHO</grapheme>
    <alias>World Health Organization</alias>
  </lexeme>
  <lexeme>
    <grapheme>  New
       York </grapheme>
    <grapheme>NYC</grapheme>
    <phoneme>nuː ˈjɔːk</phoneme>
    <example>I love New York.</example>
  </lexeme>
  <lexeme>
    <grapheme>tomato</grapheme>
    <phoneme alphabet="x-sampa">t@"mA:t@U</phoneme>
    <phoneme prefer="true">təˈmeɪtoʊ</phoneme>
  </lexeme>
  <lexeme>
    <grapheme>Nguyen</grapheme>
    <alias>win</alias>
    <phoneme alphabet="X-SAMPA">N_wIn</phoneme>
  </lexeme>
</lexicon>`)
	want := []lexicon.Lexeme{
		{Graphemes: []string{"WHO"}, Alias: "World Health Organization"},
		{Graphemes: []string{"New York", "NYC"}, Phonemes: "nuː ˈjɔːk"},
		{Graphemes: []string{"tomato"}, Phonemes: "təˈmeɪtoʊ"},
		{Graphemes: []string{"Nguyen"}, Alias: "win"},
	}
	if !reflect.DeepEqual(l.Lexemes, want) {
		t.Errorf("lexemes:\n got %+v\nwant %+v", l.Lexemes, want)
	}
	if l.Language != "en-US" {
		t.Errorf("language %q, want en-US", l.Language)
	}
}

func TestParseByteOrderMark(t *testing.T) {
	l := mustParse(t, "\ufeff"+head+"<lexeme><grapheme>a</grapheme><alias>b</alias></lexeme></lexicon>")
	if len(l.Lexemes) != 1 {
		t.Errorf("lexemes %+v", l.Lexemes)
	}
}

func TestParseXSAMPALexicon(t *testing.T) {
	l := mustParse(t, `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="x-sampa" xml:lang="en-GB">
<lexeme><grapheme>church</grapheme><phoneme>"t_S3:t_S</phoneme></lexeme>
<lexeme><grapheme>Bath</grapheme><phoneme alphabet="ipa">bɑːθ</phoneme></lexeme>
</lexicon>`)
	if got, want := l.Lexemes[0].Phonemes, "ˈt͡ʃɜːt͡ʃ"; got != want {
		t.Errorf("church: %q, want %q", got, want)
	}
	if got, want := l.Lexemes[1].Phonemes, "bɑːθ"; got != want {
		t.Errorf("Bath: %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	lexeme := func(body string) string { return head + "<lexeme>" + body + "</lexeme>\n</lexicon>" }
	cases := []struct {
		name      string
		doc       string
		kind      error
		line, col int
	}{
		{"not XML", "hello", lexicon.ErrMalformed, 1, 1},
		{"unclosed", head + "<lexeme><grapheme>a</grapheme>", lexicon.ErrMalformed, 3, 31},
		{"mismatched", head + "<lexeme><grapheme>a</phoneme></lexeme></lexicon>", lexicon.ErrMalformed, 3, 30},
		{"other root", `<speak version="1.0">x</speak>`, lexicon.ErrMalformed, 1, 1},
		{"empty", "", lexicon.ErrMalformed, 1, 1},
		{"version", `<lexicon version="2.0" alphabet="ipa"></lexicon>`, lexicon.ErrMalformed, 1, 1},
		{"no alphabet", `<lexicon version="1.0"></lexicon>`, lexicon.ErrUnknownAlphabet, 1, 1},
		{"unknown alphabet", `<lexicon version="1.0" alphabet="x-cmu"></lexicon>`, lexicon.ErrUnknownAlphabet, 1, 1},
		{"unknown phoneme alphabet", lexeme("<grapheme>a</grapheme>\n<phoneme alphabet=\"arpabet\">AH</phoneme>"), lexicon.ErrUnknownAlphabet, 4, 1},
		{"empty grapheme", lexeme("<grapheme> </grapheme><alias>b</alias>"), lexicon.ErrEmptyGrapheme, 3, 9},
		{"no grapheme", lexeme("<alias>b</alias>"), lexicon.ErrEmptyGrapheme, 3, 1},
		{"no pronunciation", lexeme("<grapheme>a</grapheme>"), lexicon.ErrNoPronunciation, 3, 1},
		{"empty alias", lexeme("<grapheme>a</grapheme><alias/>"), lexicon.ErrNoPronunciation, 3, 31},
		{"bad x-sampa", lexeme("<grapheme>a</grapheme><phoneme alphabet=\"x-sampa\">a$</phoneme>"), lexicon.ErrMalformed, 3, 31},
		{"unknown element", lexeme("<grapheme>a</grapheme><sound>b</sound>"), lexicon.ErrMalformed, 3, 31},
		{"grapheme after phoneme", lexeme("<phoneme>a</phoneme><grapheme>a</grapheme>"), lexicon.ErrMalformed, 3, 29},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := lexicon.Parse([]byte(c.doc))
			var se *lexicon.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SyntaxError", err)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %v is not %v", err, c.kind)
			}
			if se.Line != c.line || se.Column != c.col {
				t.Errorf("error at %d:%d, want %d:%d (%v)", se.Line, se.Column, c.line, c.col, err)
			}
			if !strings.HasPrefix(err.Error(), "lexicon: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			fmt.Fprintf(&b, "<lexeme><grapheme>w%d</grapheme><alias>x</alias></lexeme>\n", i)
		}
		return b.String() + "</lexicon>"
	}
	if _, err := lexicon.Parse([]byte(many(lexicon.MaxLexemes))); err != nil {
		t.Errorf("%d lexemes: %v", lexicon.MaxLexemes, err)
	}
	cases := []struct {
		name, doc, what string
	}{
		{"lexemes", many(lexicon.MaxLexemes + 1), "lexemes"},
		{"bytes", head + strings.Repeat(" ", lexicon.MaxBytes) + "</lexicon>", "bytes"},
		{"grapheme", head + "<lexeme><grapheme>" + strings.Repeat("é", lexicon.MaxGrapheme+1) + "</grapheme><alias>x</alias></lexeme></lexicon>", "grapheme characters"},
		{"alias", head + "<lexeme><grapheme>a</grapheme><alias>" + strings.Repeat("b", lexicon.MaxPronunciation+1) + "</alias></lexeme></lexicon>", "pronunciation characters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := lexicon.Parse([]byte(c.doc))
			var le *lexicon.LimitError
			if !errors.As(err, &le) || !errors.Is(err, lexicon.ErrTooLarge) {
				t.Fatalf("error %v, want a *LimitError", err)
			}
			if le.What != c.what {
				t.Errorf("limit %q, want %q", le.What, c.what)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	l := mustParse(t, head+`<lexeme><grapheme>AT&amp;T</grapheme><alias>A T and T</alias></lexeme>
<lexeme><grapheme>church</grapheme><phoneme alphabet="x-sampa">"t_S3:t_S</phoneme></lexeme></lexicon>`)
	again := mustParse(t, string(l.Marshal()))
	if !reflect.DeepEqual(again.Lexemes, l.Lexemes) || again.Language != l.Language {
		t.Errorf("round trip:\n got %+v\nwant %+v\n%s", again, l, l.Marshal())
	}
}

func TestXSAMPAToIPA(t *testing.T) {
	cases := map[string]string{
		`"hEl@U`:       "ˈhɛləʊ",
		`D@ "kwIk`:     "ðə ˈkwɪk",
		`r\{n`:         "ɹæn",
		`"sIN@`:        "ˈsɪŋə",
		`tS_h`:         "tʃʰ",
		`t_S`:          "t͡ʃ",
		`"bE6-t@`:      "ˈbɛɐtə",
		"@\\ 3\\ r\\`": "ɘ ɞ ɻ",
		`J\_< G\_<`:    "ʄ ʛ",
		`a~ O: i_^`:    "a\u0303 ɔː i\u032f",
		`p_> k_w n=`:   "pʼ kʷ n\u0329",
		`?\ X\ 4 5`:    "ʕ ħ ɾ ɫ",
	}
	for in, want := range cases {
		got, err := lexicon.XSAMPAToIPA(in)
		if err != nil || got != want {
			t.Errorf("XSAMPAToIPA(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"a$", "é", "#"} {
		if got, err := lexicon.XSAMPAToIPA(bad); err == nil {
			t.Errorf("XSAMPAToIPA(%q) = %q, want an error", bad, got)
		}
	}
}

func TestFind(t *testing.T) {
	l := mustParse(t, head+`<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
<lexeme><grapheme>New</grapheme><alias>Knew</alias></lexeme>
<lexeme><grapheme>New York</grapheme><grapheme>New York City</grapheme><alias>the Big Apple</alias></lexeme>
<lexeme><grapheme>C++</grapheme><alias>C plus plus</alias></lexeme>
<lexeme><grapheme>café</grapheme><phoneme>kaˈfe</phoneme></lexeme></lexicon>`)
	other := mustParse(t, head+`<lexeme><grapheme>WHO</grapheme><alias>W H O</alias></lexeme>
<lexeme><grapheme>York</grapheme><alias>Yorick</alias></lexeme></lexicon>`)
	cases := []struct {
		text     string
		lexicons []*lexicon.Lexicon
		want     []string // the matched text, then its alias or phonemes
	}{
		{"We met the WHO today.", []*lexicon.Lexicon{l}, []string{"WHO=World Health Organization"}},
		{"who WHOM WHO's (WHO)", []*lexicon.Lexicon{l}, []string{"WHO=World Health Organization", "WHO=World Health Organization"}},
		{"New York City, New  York and New\nYorkshire", []*lexicon.Lexicon{l}, []string{"New York City=the Big Apple", "New  York=the Big Apple", "New=Knew"}},
		{"new york", []*lexicon.Lexicon{l}, nil},
		{"I write C++ and C.", []*lexicon.Lexicon{l}, []string{"C++=C plus plus"}},
		{"un café, cafés", []*lexicon.Lexicon{l}, []string{"café=kaˈfe"}},
		{"WHO in York", []*lexicon.Lexicon{other, l}, []string{"WHO=W H O", "York=Yorick"}},
		{"WHO in New York", []*lexicon.Lexicon{l, other}, []string{"WHO=World Health Organization", "New York=the Big Apple"}},
		{"WHO", []*lexicon.Lexicon{nil}, nil},
	}
	for _, c := range cases {
		var got []string
		for _, m := range lexicon.Find(c.text, c.lexicons...) {
			got = append(got, c.text[m.Start:m.End]+"="+m.Lexeme.Alias+m.Lexeme.Phonemes)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Find(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStraddles(t *testing.T) {
	l := mustParse(t, head+`<lexeme><grapheme>Yahoo! Inc</grapheme><alias>Yahoo Incorporated</alias></lexeme>
<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme></lexicon>`)
	cases := []struct {
		text string
		at   int
		want bool
	}{
		{"We use Yahoo! Inc today.", 14, true}, // found, across at
		{"We use Yahoo! In", 14, true},         // the text ends inside it
		{"We use Yahoo! ", 14, true},           // the white space may go on
		{"We use Yahoo! Then", 14, false},      // it is not there
		{"We met the WHO. Then", 16, false},    // found, before at
		{"We met the WHO. Th", 16, false},      // no grapheme begins "Th"
		{"We met the WH", 13, true},            // the text ends inside its key
		{"We use Yahoo! Inc today.", 3, false}, // nothing begins before 3 and goes past it
	}
	for _, c := range cases {
		if got := lexicon.Straddles(c.text, c.at, l); got != c.want {
			t.Errorf("Straddles(%q, %d) = %v, want %v", c.text, c.at, got, c.want)
		}
	}
}

func TestNew(t *testing.T) {
	l, err := lexicon.New("en-US", []lexicon.Lexeme{
		{Graphemes: []string{"New  York"}, Alias: "the Big Apple"},
		{Graphemes: []string{"tomato"}, Phonemes: "təˈmɑːtoʊ"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range lexicon.Find("A tomato in New York.", l) {
		got = append(got, m.Lexeme.Alias+m.Lexeme.Phonemes)
	}
	if want := []string{"təˈmɑːtoʊ", "the Big Apple"}; !reflect.DeepEqual(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	if again := mustParse(t, string(l.Marshal())); !reflect.DeepEqual(again.Lexemes, l.Lexemes) {
		t.Errorf("marshalled and parsed: %+v, want %+v", again.Lexemes, l.Lexemes)
	}
	bad := []struct {
		lexeme lexicon.Lexeme
		kind   error
	}{
		{lexicon.Lexeme{Alias: "x"}, lexicon.ErrEmptyGrapheme},
		{lexicon.Lexeme{Graphemes: []string{" "}, Alias: "x"}, lexicon.ErrEmptyGrapheme},
		{lexicon.Lexeme{Graphemes: []string{"a"}}, lexicon.ErrNoPronunciation},
		{lexicon.Lexeme{Graphemes: []string{"a"}, Alias: "x", Phonemes: "y"}, lexicon.ErrNoPronunciation},
		{lexicon.Lexeme{Graphemes: []string{"a"}, Alias: strings.Repeat("x", lexicon.MaxPronunciation+1)}, lexicon.ErrTooLarge},
	}
	for _, c := range bad {
		if _, err := lexicon.New("en", []lexicon.Lexeme{c.lexeme}); !errors.Is(err, c.kind) {
			t.Errorf("New(%+v): %v, want %v", c.lexeme, err, c.kind)
		}
	}
}
