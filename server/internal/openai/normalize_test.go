package openai_test

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// TestNormalizeReadings: GET /v1/normalize shows the readings of
// docs/reading.md's harder cases, each in the language of the voice
// asked for: telephone numbers and emergency numbers digit by digit, no
// "(" left from an area code, "221B" not bytes, German "22:30 Uhr" with
// one "Uhr", Roman numerals after counted words and rulers' names, and
// German, French and Spanish as natives read them (issue 44).
func TestNormalizeReadings(t *testing.T) {
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) {
		for _, id := range []string{"de", "fr-fr", "es"} {
			v := voices.Voice{ID: id, Engine: "espeak", EngineVoice: id, Created: time.Unix(1700000000, 0)}
			if err := o.Voices.Add(v); err != nil {
				t.Fatal(err)
			}
		}
	}})
	for _, c := range []struct{ voice, input, want string }{
		{"en-us", "Call (415) 555-0142.", "Call four one five, five five five, zero one four two."},
		{"en-us", "Call 911 or dial 112.", "Call nine one one or dial one one two."},
		{"en-us", "221B Baker Street", "two hundred twenty one B Baker Street"},
		{"en-us", "Chapter IV of World War II, Pope John Paul II", "Chapter four of World War two, Pope John Paul the second"},
		{"de", "Um 22:30 Uhr ruf die 110 an.", "Um zweiundzwanzig Uhr dreißig ruf die eins eins null an."},
		{"de", "Kapitel IV: Ludwig XIV. war König.", "Kapitel vier: Ludwig der vierzehnte war König."},
		{"fr-fr", "Appelez le 15 ou le 555-0142.", "Appelez le un cinq ou le cinq cinq cinq, zéro un quatre deux."},
		{"fr-fr", "chapitre IV, Louis XIV", "chapitre quatre, Louis quatorze"},
		{"es", "Llama al 112. Felipe VI, capítulo IV", "Llama al uno uno dos. Felipe sexto, capítulo cuatro"},
		// Issue 44: ordinals in their case, dates, abbreviations, as natives read them.
		{"de", "Am 3. Mai kam Hr. Meier z. B. zum 1. Mal.", "Am dritten Mai kam Herr Meier zum Beispiel zum ersten Mal."},
		{"fr-fr", "Au XIXe siècle, Mme Martin vivait au 2e étage.", "Au dix-neuvième siècle, Madame Martin vivait au deuxième étage."},
		{"es", "La Srta. Ruiz llegó el 1.º de mayo por 3,99 $.", "La señorita Ruiz llegó el primero de mayo por tres dólares con noventa y nueve centavos."},
	} {
		res := e.Do("GET", "/v1/normalize?voice="+c.voice+"&text="+url.QueryEscape(c.input), e.Key, "", nil)
		var got wire.Normalization
		err := json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || got.Text != c.want {
			t.Errorf("%s %q: %d %v\n got %q\nwant %q", c.voice, c.input, res.StatusCode, err, got.Text, c.want)
		}
	}
}
