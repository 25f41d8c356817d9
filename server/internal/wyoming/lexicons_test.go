package wyoming_test

import (
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestWyomingDefaultLexicons: Wyoming, whose clients name no lexicons,
// speaks with the account's default lexicons, whole texts and streams.
func TestWyomingDefaultLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	addr := testserver.StartWyoming(t, e)
	speak := func(stream bool) []byte {
		c := testserver.DialWyoming(t, addr)
		voice := map[string]any{"name": "en-us"}
		if stream {
			c.Send("synthesize-start", map[string]any{"voice": voice})
			c.Send("synthesize-chunk", map[string]any{"text": "We met the WHO today."})
			c.Send("synthesize-stop", nil)
		} else {
			c.Send("synthesize", map[string]any{"text": "We met the WHO today.", "voice": voice})
		}
		pcm, _, _ := c.Audio()
		return pcm
	}
	plain := speak(false)
	l := testserver.CreateLexicon(t, e, e.Key, "", testserver.WhoPLS)
	res := e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	_, spelled, _ := testserver.SpeechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the World Health Organization today.","response_format":"pcm"}`)
	for _, stream := range []bool{false, true} {
		pcm := speak(stream)
		if !testserver.SameLength(pcm, 22050, spelled) || testserver.Near(len(pcm), len(plain)) {
			t.Errorf("stream %v: %d bytes with the default lexicon, %d without; want the alias's length", stream, len(pcm), len(plain))
		}
	}
}
