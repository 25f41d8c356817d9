package tts_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// TestNativesReachTheEngine: what an engine is given to say, through the
// sentence splitter and the normalizer together, is the native reading:
// a German ordinal's period or an abbreviation's does not end the
// sentence before the normalizer sees the words around it.
func TestNativesReachTheEngine(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"de", "fr-fr", "es"}})
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": nativeVoices{fake}}, Ahead: -1}) // the engine calls in the text's order: none rendered ahead
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ voice, input, want string }{
		{"de", "Wir treffen uns am 3. Mai.", "Wir treffen uns am dritten Mai."},
		{"de", "Ich war zum 1. Mal hier.", "Ich war zum ersten Mal hier."},
		{"de", "Im 19. Jahrhundert wuchs die Stadt.", "Im neunzehnten Jahrhundert wuchs die Stadt."},
		{"de", "Der 2. Platz geht an Anna.", "Der zweite Platz geht an Anna."},
		{"de", "Das gilt bis zum 15.08. Danach nicht.", "Das gilt bis zum fünfzehnten August. | Danach nicht."},
		{"de", "Das ist z. B. Obst.", "Das ist zum Beispiel Obst."},
		{"de", "Das heißt, d. h. Sie warten.", "Das heißt, das heißt Sie warten."},
		{"de", "Es kostet ca. 5 Euro.", "Es kostet circa fünf Euro."},
		{"de", "Zimmer Nr. 12 ist frei.", "Zimmer Nummer zwölf ist frei."},
		{"de", "Hr. Meier und Fr. Schulz kommen.", "Herr Meier und Frau Schulz kommen."},
		{"de", "Obst, Gemüse usw. Dann Brot.", "Obst, Gemüse und so weiter. Dann Brot."},
		{"fr-fr", "Mme Martin et M. Dupont sont là.", "Madame Martin et Monsieur Dupont sont là."},
		{"fr-fr", "Prenez p. ex. le n° 5.", "Prenez par exemple le numéro cinq."},
		{"fr-fr", "Il est mort en 44 av. J.-C. à Rome.", "Il est mort en quarante-quatre avant Jésus-Christ à Rome."},
		{"es", "El Sr. García y la Sra. López llegaron.", "El señor García y la señora López llegaron."},
		{"es", "La Srta. Ruiz habló con la Dra. Pérez.", "La señorita Ruiz habló con la doctora Pérez."},
		{"es", "Ver pág. 12, p. ej. el núm. 3.", "Ver página doce, por ejemplo el número tres."},
		{"es", "Nació en el 44 a. C. en Roma.", "Nació en el cuarenta y cuatro antes de Cristo en Roma."},
	} {
		before := len(fake.Requests())
		if _, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: c.voice, Input: c.input}); err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, r := range fake.Requests()[before:] {
			said = append(said, r.Text)
		}
		if got := strings.Join(said, " | "); got != c.want {
			t.Errorf("%s %q: the engine said %q, want %q", c.voice, c.input, got, c.want)
		}
	}
}

// nativeVoices is a fake engine whose voices speak the language their
// names give ("de", "fr-fr", "es").
type nativeVoices struct{ *enginetest.Fake }

func (f nativeVoices) Voices(ctx context.Context) ([]engine.Voice, error) {
	vs, err := f.Fake.Voices(ctx)
	for i := range vs {
		vs[i].Language = vs[i].Name
	}
	return vs, err
}

// TestNativeWordsPointAtTheInput: in German, French and Spanish too, the
// word timings of what was said for a written form cover that form as the
// client wrote it ("3. Mai" for "dritten Mai", "Srta." for "señorita").
func TestNativeWordsPointAtTheInput(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	for _, c := range []struct{ voice, input, want string }{
		{"de", "Am 3. Mai zahlt Hr. Meier z. B. 12,50 €.", "Am|3. Mai|zahlt|Hr.|Meier|z. B.|12,50 €"},
		{"fr-fr", "Au XIXe siècle, Mme Martin paie 3,99 $.", "Au|XIXe|siècle|Mme|Martin|paie|3,99 $"},
		{"es", "La Srta. Ruiz llegó el 1.º de mayo, p. ej. a las 14:30.", "La|Srta.|Ruiz|llegó|el|1.º|de|mayo|p. ej.|a|las|14:30"},
	} {
		var got []tts.Word
		_, err := synth.Stream(context.Background(), io.Discard, tts.Request{Voice: c.voice, Input: c.input, Format: encode.PCM,
			OnSentence: func(d tts.SentenceDone) { got = append(got, d.Words...) }})
		if err != nil {
			t.Fatal(err)
		}
		runes := []rune(c.input)
		var written []string
		for _, w := range got {
			if w.CharStart < 0 || w.CharEnd > len(runes) || w.CharStart >= w.CharEnd {
				t.Fatalf("%s: word %+v outside the input", c.voice, w)
			}
			if s := string(runes[w.CharStart:w.CharEnd]); s != w.Word {
				t.Errorf("%s: word %q covers %q of the input", c.voice, w.Word, s)
			}
			written = append(written, w.Word)
		}
		if got := strings.Join(written, "|"); got != c.want {
			t.Errorf("%s: words %q, want %q", c.voice, got, c.want)
		}
	}
}

// TestNativesReachTheEngineStreamed: a text stream (a language model's
// tokens) ends sentences as a whole input in the voice's language does,
// whatever pieces the text comes in: German "am 3." followed by a month
// or a noun is one sentence, even when "Mai" arrives in two pieces.
func TestNativesReachTheEngineStreamed(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"de", "es"}})
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": nativeVoices{fake}}, Ahead: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		voice  string
		pieces []string
		want   string
	}{
		{"de", []string{"Wir treffen uns am 3", ".", " Ma", "i", ". Dann", " gehen wir."}, "Wir treffen uns am dritten Mai. | Dann gehen wir."},
		{"de", []string{"Am 3. ", "Tag ging er heim", ". Danach schlief er."}, "Am dritten Tag ging er heim. | Danach schlief er."},
		{"de", []string{"Ich war zum 1", ". Mal hier."}, "Ich war zum ersten Mal hier."},
		{"de", []string{"Wir treffen uns am 3. Da", "nach essen wir."}, "Wir treffen uns am dritten. | Danach essen wir."},
		{"es", []string{"Ver pág", ". 12 hoy."}, "Ver página doce hoy."},
	} {
		before := len(fake.Requests())
		ts, err := synth.StreamText(context.Background(), io.Discard, tts.Request{Voice: c.voice, Format: encode.PCM})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.pieces {
			if _, err := ts.WriteString(p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ts.Close(); err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, r := range fake.Requests()[before:] {
			said = append(said, r.Text)
		}
		if got := strings.Join(said, " | "); got != c.want {
			t.Errorf("%s %q: the engine said %q, want %q", c.voice, c.pieces, got, c.want)
		}
	}
}
