package ssml

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConvert(t *testing.T) {
	for _, c := range []struct{ src, want, ignored string }{
		{`<speak>Hello world.</speak>`, `Hello world.`, ``},
		{`<speak>Hello <break time="1s"/> world.</speak>`, `Hello <|pause:1000ms|> world.`, ``},
		{`<speak>A<break time="750ms"/>B</speak>`, `A <|pause:750ms|> B`, ``},
		{`<speak>A<break strength="strong"/>B</speak>`, `A <|pause:750ms|> B`, ``},
		{`<speak>A<break time="7s"/>B</speak>`, `A <|pause:5000ms|><|pause:2000ms|> B`, ``},
		{`<speak>A<break/>B</speak>`, `A <|pause:500ms|> B`, ``},
		{`<speak><p>One</p><p>Two</p></speak>`, `One. Two.`, ``},
		{`<speak><s>One</s><s>Two!</s></speak>`, `One. Two!`, ``},
		{`<speak><prosody rate="slow">slowly</prosody></speak>`, `<|rate:0.75|>slowly<|/rate|>`, ``},
		{`<speak><prosody rate="150%">fast</prosody></speak>`, `<|rate:1.5|>fast<|/rate|>`, ``},
		{`<speak><prosody rate="+20%" pitch="+2st" volume="+6dB">all</prosody></speak>`, `<|rate:1.2|><|pitch:+2|><|volume:1.995|>all<|/volume|><|/pitch|><|/rate|>`, ``},
		{`<speak><prosody pitch="high">up</prosody></speak>`, `<|pitch:+3|>up<|/pitch|>`, ``},
		{`<speak><prosody volume="soft">quiet</prosody></speak>`, `<|volume:0.6|>quiet<|/volume|>`, ``},
		{`<speak><emphasis>really</emphasis></speak>`, `<|emphasis|>really<|/emphasis|>`, ``},
		{`<speak><emphasis level="reduced">meh</emphasis></speak>`, `<|soft|>meh<|/soft|>`, ``},
		{`<speak><say-as interpret-as="characters">abc</say-as></speak>`, `<|spell|>abc<|/spell|>`, ``},
		{`<speak><say-as interpret-as="digits">123</say-as></speak>`, `1 2 3`, ``},
		{`<speak><say-as interpret-as="telephone">555-1234</say-as></speak>`, `5 5 5, 1 2 3 4`, ``},
		{`<speak><say-as interpret-as="ordinal">2</say-as></speak>`, `2nd`, ``},
		{`<speak><say-as interpret-as="date" format="mdy">11/24/2026</say-as></speak>`, `2026-11-24`, ``},
		{`<speak><say-as interpret-as="date" format="dmy">1.2.2026</say-as></speak>`, `2026-02-01`, ``},
		{`<speak><say-as interpret-as="cardinal">42</say-as></speak>`, `42`, ``},
		{`<speak><sub alias="World Wide Web">WWW</sub></speak>`, `World Wide Web`, ``},
		{`<speak><voice name="en-gb">Cheerio</voice></speak>`, `<|voice:en-gb|>Cheerio<|/voice|>`, ``},
		{`<speak><phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme></speak>`, `<|phoneme:təˈmɑːtoʊ|>tomato<|/phoneme|>`, ``},
		{`<speak>I say <phoneme ph="ðə ˈkæt | sæt">the cat</phoneme> 2 times.</speak>`, `I say <|phoneme:ðə_ˈkæt_sæt|>the cat<|/phoneme|> 2 times.`, ``},
		{`<speak><phoneme alphabet="x-sampa" ph="t@&quot;mA:toU">tomato</phoneme></speak>`, `tomato`, `phoneme:x-sampa`},
		{`<speak><phoneme alphabet="ipa">tomato</phoneme></speak>`, `tomato`, `phoneme`},
		{`<speak><phoneme alphabet="ipa" ph=" | ">tomato</phoneme></speak>`, `tomato`, `phoneme`},
		{`<speak><say-as interpret-as="digits"><phoneme ph="wʌn">1</phoneme>2</say-as></speak>`, `1 2`, `phoneme`},
		{`<speak>Hi <audio src="x.wav">fallback</audio> there</speak>`, `Hi there`, `audio`},
		{`<speak>Hi <foo>there</foo></speak>`, `Hi there`, `foo`},
		{`<speak>Tom &amp; Jerry &lt;3</speak>`, `Tom & Jerry <3`, ``},
		{`<speak>not a &lt;|pause|&gt; tag</speak>`, `not a < |pause| > tag`, ``},
		{"  <speak>\n  Two\n   lines\n</speak>  ", `Two lines`, ``},
		{`<?xml version="1.0"?><speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="en-US">Hi.</speak>`, `Hi.`, ``},
	} {
		got, err := Convert(c.src, "en-us")
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got.Input != c.want || strings.Join(got.Ignored, ",") != c.ignored {
			t.Errorf("%s\n got %q %v\nwant %q %s", c.src, got.Input, got.Ignored, c.want, c.ignored)
		}
	}
}

func TestOrdinalByLanguage(t *testing.T) {
	for lang, want := range map[string]string{"en-us": "3rd", "fr": "3e", "es": "3º", "de": "3."} {
		got, _ := Convert(`<speak><say-as interpret-as="ordinal">3</say-as></speak>`, lang)
		if got.Input != want {
			t.Errorf("%s: %q, want %q", lang, got.Input, want)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		src        string
		line, col  int
		msgPartial string
	}{
		{"<speak>Hi <prosody>there</speak>", 1, 33, "prosody"},
		{"<speak>\nHi &bogus; there</speak>", 2, 11, "bogus"},
		{"<speak>unclosed", 1, 16, "EOF"},
		{"<p>Hi</p>", 1, 4, "<speak>"},
		{"<speak>a</speak><speak>b</speak>", 1, 24, "<speak>"},
	} {
		_, err := Convert(c.src, "en")
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a SyntaxError", c.src, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col || !strings.Contains(se.Msg, c.msgPartial) {
			t.Errorf("%q: %v, want line %d column %d mentioning %q", c.src, se, c.line, c.col, c.msgPartial)
		}
	}
}

func TestIs(t *testing.T) {
	for s, want := range map[string]bool{"<speak>x</speak>": true, "  \n<speak>": true, "<?xml version=\"1.0\"?><speak/>": true,
		"Hello <speak>": false, "<|pause|>": false, "": false} {
		if Is(s) != want {
			t.Errorf("Is(%q) = %v", s, !want)
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add(`<speak>Hi <break time="1s"/><prosody rate="slow">there</prosody></speak>`)
	f.Add(`<speak><say-as interpret-as="date" format="mdy">1/2/2026</say-as></speak>`)
	f.Fuzz(func(t *testing.T, src string) {
		got, err := Convert(src, "en")
		if err == nil && strings.Contains(got.Input, "<|") {
			// Every tag it writes is well formed: an even number of delimiters.
			if strings.Count(got.Input, "<|") != strings.Count(got.Input, "|>") {
				t.Fatalf("%q → %q: unbalanced tags", src, got.Input)
			}
		}
	})
}

// TestSource: every word of the converted input maps back to the source
// text it came from: its own characters, through entities and line
// breaks, and the element's text for what say-as and sub rewrote.
func TestSource(t *testing.T) {
	src := "<speak>Tom &amp; Jerry\r\n  like <sub alias=\"World Wide Web\">WWW</sub>, <say-as interpret-as=\"digits\">42</say-as>" +
		" and <phoneme alphabet=\"ipa\" ph=\"təˈmɑːtoʊ\">tomátoes</phoneme>.<break time=\"1s\"/> Ünïcode ok.</speak>"
	r, err := Convert(src, "en")
	if err != nil {
		t.Fatal(err)
	}
	runes, in := []rune(src), []rune(r.Input)
	want := map[string]string{"Tom": "Tom", "&": "&amp;", "Jerry": "Jerry", "like": "like", "World": "WWW", "Wide": "WWW", "Web": "WWW",
		"4": "42", "2": "42", "and": "and", "tomátoes": "tomátoes", "Ünïcode": "Ünïcode", "ok": "ok"}
	seen := 0
	for i := 0; i < len(in); {
		if in[i] == ' ' || in[i] == '<' || in[i] == '.' || in[i] == ',' {
			if in[i] == '<' { // a tag: skip it
				for i < len(in) && in[i] != '>' {
					i++
				}
			}
			i++
			continue
		}
		j := i
		for j < len(in) && !strings.ContainsRune(" <.,", in[j]) {
			j++
		}
		word := string(in[i:j])
		a, b := r.Source(i, j)
		if w, ok := want[word]; ok {
			seen++
			if got := string(runes[a:b]); got != w {
				t.Errorf("%q comes from %q, want %q", word, got, w)
			}
		}
		i = j
	}
	if seen < len(want) {
		t.Errorf("saw %d of the %d words in %q", seen, len(want), r.Input)
	}
	if a, b := r.Source(len(in), len(in)); a != b {
		t.Errorf("an empty span at the end: %d–%d", a, b)
	}
}

// TestBreakLimit: a break's time is clamped to the limit while the
// document is read, and breaks that add up past it fail before their
// tags are written, however long they ask to be.
func TestBreakLimit(t *testing.T) {
	for _, c := range []struct {
		src   string
		limit time.Duration
		tags  int // pause tags written, when it fits
		fails bool
	}{
		{`<speak>Hi <break time="600s"/></speak>`, 0, 120, false},
		{`<speak>Hi <break time="601s"/></speak>`, 0, 0, true},
		{`<speak><break time="1e10ms"/> hi</speak>`, 0, 0, true},
		{`<speak><break time="1e300s"/> hi</speak>`, 0, 0, true},
		{`<speak><break time="-1e300s"/> hi</speak>`, 0, 0, false},
		{`<speak><break time="2s"/> hi</speak>`, time.Second, 0, true},
		{`<speak>` + strings.Repeat(`<break time="5s"/>`, 12) + `</speak>`, time.Minute, 12, false},
		{`<speak>` + strings.Repeat(`<break time="5s"/>`, 13) + `</speak>`, time.Minute, 0, true},
		{`<speak><audio>` + strings.Repeat(`<break time="5s"/>`, 13) + `</audio>hi</speak>`, time.Minute, 0, false},
	} {
		r, err := Converter{MaxBreaks: c.limit}.Convert(c.src)
		var be *BreakLimitError
		switch {
		case c.fails && !errors.As(err, &be):
			t.Errorf("%.60s: %v, want a *BreakLimitError", c.src, err)
		case c.fails && be.Total <= be.Limit:
			t.Errorf("%.60s: %+v, want a total past the limit", c.src, be)
		case !c.fails && err != nil:
			t.Errorf("%.60s: %v", c.src, err)
		case !c.fails && strings.Count(r.Input, "<|pause:") != c.tags:
			t.Errorf("%.60s: %d pause tags, want %d", c.src, strings.Count(r.Input, "<|pause:"), c.tags)
		}
	}
}

func TestLexiconURIs(t *testing.T) {
	doc := `<speak><lexicon uri="lex_a"/><lexicon xml:id="x" uri="lex_b"></lexicon>We met the WHO.</speak>`
	if got := LexiconURIs(doc); len(got) != 2 || got[0] != "lex_a" || got[1] != "lex_b" {
		t.Errorf("LexiconURIs: %q", got)
	}
	r, err := Converter{}.Convert(doc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Input, "lex") || len(r.Ignored) != 0 {
		t.Errorf("converted %q, ignored %v: a lexicon element is neither read nor ignored", r.Input, r.Ignored)
	}
}

// TestRewritten: the characters say-as and sub wrote are marked, and no
// others (say-as characters is a spell tag around the text as written).
func TestRewritten(t *testing.T) {
	r, err := Convert(`<speak>The <sub alias="WHO">agency</sub> and the WHO, <say-as interpret-as="digits">12</say-as> <say-as interpret-as="characters">ab</say-as>.</speak>`, "")
	if err != nil {
		t.Fatal(err)
	}
	var marked strings.Builder
	for i, c := range []rune(r.Input) {
		if r.Rewritten(i) {
			marked.WriteRune(c)
		} else {
			marked.WriteByte('_')
		}
	}
	want := "____WHO______________1 2_______________________"
	if got := marked.String(); got != want || r.Rewritten(-1) || r.Rewritten(len(r.Input)) {
		t.Errorf("rewritten in %q:\n got %q\nwant %q", r.Input, got, want)
	}
}
