package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/wire"
)

// The rules a speech request meets before it speaks, each owned by one
// place below the doors: its input must hold text (tts.ErrEmptyInput),
// its speed must lie in tts's range (tts.CheckSpeed), its voice must be
// one the account may use (looked up once, catalog.Catalog.Voice). The
// table asks every door each rule's failure, and combinations whose
// precedence a door could reorder, and compares the answers with
// testdata/rules_doors.json (regenerate with -update): a door that
// checks a rule again on its own, with other words or in another order,
// shows as a changed body.

// ruleAsk is what a rule's request sends: speed is the door's speed
// field, absent when nil.
type ruleAsk struct {
	voice, text string
	speed       any
}

// ruleDoor sends a door a request of a rule; nil where the door has no
// such field (Wyoming's speed) or reads it otherwise (an empty text ends
// ElevenLabs' input stream).
type ruleDoor struct {
	name  string
	empty bool // the door refuses an empty input
	speed bool // the door takes a speed
	ask   func(t *testing.T, e *conformEnv, a ruleAsk) talk
}

func withSpeed(m map[string]any, key string, speed any, wrap func(any) any) map[string]any {
	if speed != nil {
		m[key] = wrap(speed)
	}
	return m
}

func plain(v any) any { return v }

func speedIn(v any) any { return map[string]any{"speed": v} }

func openAIRule(name, format string, sse bool) ruleDoor {
	return ruleDoor{name: name, empty: true, speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		body := withSpeed(map[string]any{"voice": a.voice, "input": a.text, "response_format": format}, "speed", a.speed, plain)
		event := openAISSE
		if sse {
			body["stream_format"] = "sse"
		} else {
			event = nil
		}
		return e.post(t, "/v1/audio/speech", http.Header{"Authorization": {"Bearer " + e.Key}}, body, openAIShape, event)
	}}
}

func elevenRule(name, suffix string) ruleDoor {
	return ruleDoor{name: name, empty: true, speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		body := withSpeed(map[string]any{"text": a.text}, "voice_settings", a.speed, speedIn)
		return e.post(t, "/elevenlabs/v1/text-to-speech/"+a.voice+suffix+"?output_format=pcm_24000",
			http.Header{"Xi-Api-Key": {e.Key}}, body, elevenShape, nil)
	}}
}

func elevenSocketRule(name string, multi bool) ruleDoor {
	return ruleDoor{name: name, speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		path := "/elevenlabs/v1/text-to-speech/" + a.voice + "/stream-input?output_format=pcm_24000"
		if multi {
			path = strings.Replace(path, "/stream-input", "/multi-stream-input", 1)
		}
		c, refused := e.dial(t, path, http.Header{"Xi-Api-Key": {e.Key}}, elevenShape)
		if refused != nil {
			return &refusedTalk{refused}
		}
		end := map[string]any{"text": ""} // the conformance table's messages, the first with the speed
		if multi {
			end = map[string]any{"close_context": true}
		}
		msgs := []map[string]any{withSpeed(map[string]any{"text": " "}, "voice_settings", a.speed, speedIn), {"text": a.text + " ", "flush": true}, end}
		for _, m := range msgs {
			if multi {
				m["context_id"] = "c"
			}
		}
		send(t, c, msgs...)
		return &socketTalk{c: c, event: elevenPiece}
	}}
}

func cartesiaRule(name, path string, sse bool) ruleDoor {
	return ruleDoor{name: name, empty: true, speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		body := withSpeed(cartesiaRequestOf(a.voice, a.text), "generation_config", a.speed, speedIn)
		event := cartesiaPiece
		if !sse {
			event = nil
		}
		return e.post(t, path, http.Header{"X-Api-Key": {e.Key}}, body, cartesiaShape, event)
	}}
}

var ruleDoors = []ruleDoor{
	openAIRule("openai-clip", "wav", false),
	openAIRule("openai-pcm", "pcm", false),
	openAIRule("openai-sse", "pcm", true),
	elevenRule("elevenlabs", ""),
	elevenRule("elevenlabs-stream", "/stream"),
	cartesiaRule("cartesia-bytes", "/cartesia/tts/bytes", false),
	cartesiaRule("cartesia-sse", "/cartesia/tts/sse", true),
	{name: "openai-ws", empty: true, speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		c, refused := e.dial(t, "/v1/audio/speech/ws", http.Header{"Authorization": {"Bearer " + e.Key}}, openAIShape)
		if refused != nil {
			return &refusedTalk{refused}
		}
		if m := testserver.Next(t, c); m.Type != wire.WSReady {
			t.Fatalf("first message %+v", m)
		}
		send(t, c, withSpeed(map[string]any{"type": "speech.create", "id": "c", "voice": a.voice, "input": a.text, "response_format": "pcm"},
			"speed", a.speed, plain))
		return &socketTalk{c: c, event: openAIWSEvent}
	}},
	elevenSocketRule("elevenlabs-stream-input", false),
	elevenSocketRule("elevenlabs-multi-stream-input", true),
	// An empty transcript on Cartesia's socket ends its context: no
	// empty rule there.
	{name: "cartesia-websocket", speed: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		c, refused := e.dial(t, "/cartesia/tts/websocket", http.Header{"X-Api-Key": {e.Key}}, cartesiaShape)
		if refused != nil {
			return &refusedTalk{refused}
		}
		m := withSpeed(cartesiaRequestOf(a.voice, a.text), "generation_config", a.speed, speedIn)
		m["context_id"], m["continue"] = "c", false
		send(t, c, m)
		return &socketTalk{c: c, event: cartesiaPiece}
	}},
	{name: "wyoming", empty: true, ask: func(t *testing.T, e *conformEnv, a ruleAsk) talk {
		c := testserver.DialWyoming(t, e.wyomingAddr(t, "local"))
		c.Send("synthesize", map[string]any{"text": a.text, "voice": map[string]any{"name": a.voice}})
		return &wyomingTalk{c}
	}},
}

// rules are the table's rows: needs names the rule a door must check
// for the row to apply ("empty", "speed").
var rules = []struct {
	name  string
	needs string
	ask   ruleAsk
}{
	{"empty input", "empty", ruleAsk{voice: "en-us", text: ""}},
	{"blank input", "empty", ruleAsk{voice: "en-us", text: " \n\t "}},
	{"empty input, unknown voice", "empty", ruleAsk{voice: "nobody", text: ""}},
	{"empty input, speed out of range", "empty+speed", ruleAsk{voice: "en-us", text: "", speed: 9}},
	{"speed out of range", "speed", ruleAsk{voice: "en-us", text: hello, speed: 9}},
	{"speed zero", "speed", ruleAsk{voice: "en-us", text: hello, speed: 0}},
	{"speed not a number", "speed", ruleAsk{voice: "en-us", text: hello, speed: "fast"}},
	{"speed out of range, unknown voice", "speed", ruleAsk{voice: "nobody", text: hello, speed: 9}},
	{"alias speaks", "", ruleAsk{voice: "alloy", text: hello}},
	{"alias, speed out of range", "speed", ruleAsk{voice: "alloy", text: hello, speed: 0.1}},
}

// TestDoorRules asks every door each rule's failure; every answer is an
// error in the door's shape before any audio, and the bodies are golden.
func TestDoorRules(t *testing.T) {
	t.Parallel()
	e := newConformEnv(t, testserver.Options{})
	e.wyomingAddr(t, "local") // its listener lives as long as the test
	got := map[string]string{}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			for _, d := range ruleDoors {
				t.Run(d.name, func(t *testing.T) {
					if strings.Contains(r.needs, "empty") && !d.empty || strings.Contains(r.needs, "speed") && !d.speed {
						t.Skip("the door has no such rule")
					}
					h := hear(t, d.ask(t, e, r.ask))
					if r.needs == "" {
						if !h.done || h.fail != nil {
							t.Fatalf("did not speak: %+v", h)
						}
						return
					}
					if h.fail == nil {
						t.Fatalf("no error: %+v", h)
					}
					if h.audio > 0 {
						t.Errorf("%d bytes of audio before the error", h.audio)
					}
					got[d.name+"/"+r.name] = h.fail.body
				})
			}
		})
	}
	if t.Failed() {
		return
	}
	testserver.CheckGolden(t, "testdata/rules_doors.json", got)
}
