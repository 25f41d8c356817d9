package sentence

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"spaces", "  \n ", nil},
		{"one", "Hello world.", []string{"Hello world."}},
		{"no terminator", "Hello world", []string{"Hello world"}},
		{"two", "Hello there. How are you?", []string{"Hello there.", "How are you?"}},
		{"exclaim", "Stop! Go now!", []string{"Stop!", "Go now!"}},
		{"title", "Dr. Smith met Mr. Jones.", []string{"Dr. Smith met Mr. Jones."}},
		{"eg", "Fruit, e.g. apples, is good. Eat it.", []string{"Fruit, e.g. apples, is good.", "Eat it."}},
		{"ie", "One thing, i.e. This one.", []string{"One thing, i.e. This one."}},
		{"decimal", "Pi is 3.14159 roughly. Yes.", []string{"Pi is 3.14159 roughly.", "Yes."}},
		{"ellipsis lower", "Wait... what happened?", []string{"Wait... what happened?"}},
		{"ellipsis upper", "Wait... What happened?", []string{"Wait...", "What happened?"}},
		{"unicode ellipsis", "Well… Fine.", []string{"Well…", "Fine."}},
		{"quote", `He said "Go home." Then he left.`, []string{`He said "Go home."`, "Then he left."}},
		{"curly quote", "She asked “Why?” Nobody knew.", []string{"She asked “Why?”", "Nobody knew."}},
		{"paren", "It works (mostly.) Try it.", []string{"It works (mostly.)", "Try it."}},
		{"initials", "J. R. R. Tolkien wrote books.", []string{"J. R. R. Tolkien wrote books."}},
		{"interrobang", "Really?! Yes.", []string{"Really?!", "Yes."}},
		{"paragraph", "First line\n\nSecond paragraph", []string{"First line", "Second paragraph"}},
		{"single newline", "one\ntwo", []string{"one\ntwo"}},
		{"digit start", "It cost $5. 10 people paid.", []string{"It cost $5.", "10 people paid."}},
		{"cjk", "你好。今天很好！", []string{"你好。", "今天很好！"}},
		{"url-like", "Visit example.com today. Bye.", []string{"Visit example.com today.", "Bye."}},
		{"time", "Meet at 5 p.m. tomorrow. Ok.", []string{"Meet at 5 p.m. tomorrow.", "Ok."}},
		{"shillings and pence", "It cost 3s. 6d. in 1890. Dear.", []string{"It cost 3s. 6d. in 1890.", "Dear."}},
		{"pence end", "It cost 3s. 6d. Dear.", []string{"It cost 3s. 6d.", "Dear."}},
		{"seconds", "Wait 3s. 6 more.", []string{"Wait 3s.", "6 more."}},
		{"german ordinal before a month", "Wir treffen uns am 3. Mai. Gut.", []string{"Wir treffen uns am 3. Mai.", "Gut."}},
		{"german ordinal after an article", "Es ist der 2. Platz. Gut.", []string{"Es ist der 2. Platz.", "Gut."}},
		{"german ordinal after a preposition", "Ich war zum 1. Mal hier.", []string{"Ich war zum 1. Mal hier."}},
		{"german number ends", "Es waren 3. Dann kam er.", []string{"Es waren 3.", "Dann kam er."}},
		{"german abbreviations", "Das ist z. B. Obst, d. h. Nahrung. Hr. Meier kam, Nr. 5 auch.", []string{"Das ist z. B. Obst, d. h. Nahrung.", "Hr. Meier kam, Nr. 5 auch."}},
		{"german street", "Sie wohnt in der Hauptstr. 5 hier.", []string{"Sie wohnt in der Hauptstr. 5 hier."}},
		{"french abbreviations", "Mort en 44 av. J.-C. Rome pleure.", []string{"Mort en 44 av. J.-C. Rome pleure."}},
		{"spanish titles", "La Srta. Ruiz y la Dra. Pérez. Ver pág. 12 ya.", []string{"La Srta. Ruiz y la Dra. Pérez.", "Ver pág. 12 ya."}},
		{"english am before a number", "I am 30. My sister is 25.", []string{"I am 30.", "My sister is 25."}},
		{"english words kept", "I do. So we go. It is art. Fine.", []string{"I do.", "So we go.", "It is art.", "Fine."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.in, 0)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitLong(t *testing.T) {
	words := strings.Repeat("lorem ipsum dolor sit amet ", 100) // 2700 chars, no punctuation
	got := Split(words, 100)
	if len(got) < 27 {
		t.Fatalf("got %d pieces", len(got))
	}
	for _, p := range got {
		if n := utf8.RuneCountInString(p); n > 100 {
			t.Errorf("piece of %d characters", n)
		}
		if strings.HasPrefix(p, "psum") || strings.HasSuffix(p, " i") {
			t.Errorf("cut inside a word: %q", p)
		}
	}
	if strings.Join(got, " ") != strings.TrimSpace(words) {
		t.Error("words lost or changed")
	}

	clauses := strings.Repeat("this is a clause, ", 30)
	for _, p := range Split(clauses, 100) {
		if !strings.HasSuffix(p, ",") {
			t.Errorf("not cut at a clause boundary: %q", p)
		}
	}

	noSpaces := strings.Repeat("é", 250)
	got = Split(noSpaces, 100)
	if len(got) != 3 || strings.Join(got, "") != noSpaces {
		t.Errorf("unbroken text: %d pieces", len(got))
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"Hello. World", "Dr. X... y? Z!", "\n\n.", "a…b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range Split(s, 50) {
			if p == "" || p != strings.TrimSpace(p) {
				t.Fatalf("bad piece %q", p)
			}
			if utf8.ValidString(s) && utf8.RuneCountInString(p) > 50 {
				t.Fatalf("piece too long: %q", p)
			}
		}
	})
}

// TestSplitLang: where the language is known, it decides what text of no
// known language leaves open: German "am 3. Tag" is one sentence, English
// "I am 30. My…" two, and "am 3." before a word that starts a German
// sentence ends one.
func TestSplitLang(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       []string
	}{
		{"Am 3. Tag ging er heim. Gut.", "de-DE", []string{"Am 3. Tag ging er heim.", "Gut."}},
		{"Er kam am 2. Abend zurück.", "de", []string{"Er kam am 2. Abend zurück."}},
		{"Wir treffen uns am 3. Danach essen wir.", "de", []string{"Wir treffen uns am 3.", "Danach essen wir."}},
		{"Am 3. Tag ging er heim.", "", []string{"Am 3.", "Tag ging er heim."}},
		{"I am 30. My sister is 25.", "en-US", []string{"I am 30.", "My sister is 25."}},
		{"I am 30. My sister is 25.", "", []string{"I am 30.", "My sister is 25."}},
	} {
		if got := SplitLang(c.text, 0, c.lang); !slices.Equal(got, c.want) {
			t.Errorf("%q in %q: %q, want %q", c.text, c.lang, got, c.want)
		}
	}
}
