package socket_test

import (
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/wire"
)

// TestSocketLexicons: voxkit's WebSocket applies the lexicons a
// speech.create names (whole input and input streams alike), and another
// account's lexicon is as unknown to it as one that does not exist.
func TestSocketLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := testserver.CreateLexicon(t, e, e.Key, "", testserver.WhoPLS)
	// bytesOf is the audio of one speech.create, or its error's code.
	bytesOf := func(key string, create map[string]any, inputs ...map[string]any) (int, string) {
		c := testserver.DialWS(t, e, key)
		if m := testserver.Next(t, c); m.Type != "ready" {
			t.Fatalf("got %+v", m)
		}
		testserver.SendWS(t, c, create)
		for _, in := range inputs {
			testserver.SendWS(t, c, in)
		}
		n := 0
		for {
			switch m := testserver.Next(t, c); m.Type {
			case "binary":
				n += m.Binary
			case "speech.done":
				return n, ""
			case "error":
				code, _ := m.Error["code"].(string)
				return n, code
			}
		}
	}
	create := func(lexicons []string, stream bool) map[string]any {
		m := map[string]any{"type": "speech.create", "id": "r", "voice": "en-us", "input": "We met the WHO today.", "response_format": "pcm"}
		if lexicons != nil {
			m["lexicons"] = lexicons
		}
		if stream {
			m["input"], m["input_stream"] = "", true
		}
		return m
	}
	plain, _ := bytesOf(e.Key, create(nil, false))
	named, _ := bytesOf(e.Key, create([]string{l.ID}, false))
	streamed, _ := bytesOf(e.Key, create([]string{l.ID}, true),
		map[string]any{"type": "input.append", "id": "r", "text": "We met the WHO today."},
		map[string]any{"type": "input.done", "id": "r"})
	if testserver.Near(named, plain) || !testserver.Near(streamed, named) {
		t.Errorf("audio %d bytes without the lexicon, %d with it, %d streamed with it", plain, named, streamed)
	}
	if _, code := bytesOf(e.OtherKey, create([]string{l.ID}, false)); code != wire.CodeLexiconNotFound {
		t.Errorf("another account's lexicon: %q, want %s", code, wire.CodeLexiconNotFound)
	}
}
