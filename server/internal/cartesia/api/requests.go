// Package api holds the shapes of Cartesia's API that the Cartesia door
// translates: its generation requests, and its pronunciation dictionaries
// as voxkit's lexicons and back. Pure data and translation: no part of a
// request's lifecycle is here.
package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/voxkit/voxkit/tags"
)

// Voice is a request's voice: an id, or {"mode":"id","id":...}, with
// the older API's __experimental_controls.
type Voice struct {
	ID       string
	Mode     string
	Controls *Controls
}

// Controls are a voice's __experimental_controls (Cartesia's API before
// generation_config): speed as a word or a number, and emotions as
// "name" or "name:level" ("positivity:high", "sadness").
type Controls struct {
	Speed   json.RawMessage `json:"speed"`
	Emotion []string        `json:"emotion"`
}

func (v *Voice) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &v.ID); err == nil {
		return nil
	}
	var o struct {
		Mode     string    `json:"mode"`
		ID       string    `json:"id"`
		Controls *Controls `json:"__experimental_controls"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("voice is an id or an object with an id")
	}
	v.ID, v.Mode, v.Controls = o.ID, o.Mode, o.Controls
	return nil
}

// experimentalStyles are the older API's emotions and speeds as words of
// the instructions vocabulary; a level below "high" ("positivity:low")
// is no style voxkit renders.
var experimentalStyles = map[string]string{
	"anger": "angry", "sadness": "sad", "positivity": "excited",
	"slowest": "slow", "slow": "slow", "fast": "fast", "fastest": "fast", "normal": "",
}

// Experimental reads the voice's __experimental_controls onto the
// instructions vocabulary as Emotion reads generation_config.emotion: it
// returns the style words, and whether all of it was understood (a
// numeric speed, "surprise", "curiosity" and low levels are not).
func (v Voice) Experimental() (style string, whole bool) {
	c := v.Controls
	if c == nil {
		return "", true
	}
	whole = true
	var words []string
	add := func(w string) {
		style, ok := experimentalStyles[w]
		switch {
		case !ok:
			whole = false
		case style != "":
			words = append(words, style)
		}
	}
	var speed string
	if len(c.Speed) > 0 && json.Unmarshal(c.Speed, &speed) != nil {
		whole = false // a number from -1 to 1
	} else if speed != "" {
		add(speed)
	}
	for _, e := range c.Emotion {
		name, level, _ := strings.Cut(e, ":")
		if level != "" && level != "high" && level != "highest" {
			whole = false
			continue
		}
		add(name)
	}
	return strings.Join(words, " "), whole
}

// OutputFormat is a request's output_format.
type OutputFormat struct {
	Container  string `json:"container"`
	Encoding   string `json:"encoding"`
	SampleRate int    `json:"sample_rate"`
	BitRate    int    `json:"bit_rate"`
}

// Generation is a generation request: the body of /tts/bytes and
// /tts/sse, and a message of the WebSocket.
type Generation struct {
	ModelID          string        `json:"model_id"`
	Transcript       *string       `json:"transcript"`
	Voice            *Voice        `json:"voice"`
	OutputFormat     *OutputFormat `json:"output_format"`
	Language         string        `json:"language"`
	Locale           string        `json:"locale"`
	GenerationConfig *struct {
		Speed   *float64        `json:"speed"`
		Volume  *float64        `json:"volume"`
		Emotion json.RawMessage `json:"emotion"`
	} `json:"generation_config"`
	Speed                   string `json:"speed"` // deprecated: slow, normal, fast
	Normalization           string `json:"normalization"`
	PronunciationDictID     string `json:"pronunciation_dict_id"`
	AddTimestamps           bool   `json:"add_timestamps"`
	AddPhonemeTimestamps    bool   `json:"add_phoneme_timestamps"`
	UseNormalizedTimestamps bool   `json:"use_normalized_timestamps"`
	// The WebSocket's own (and /tts/sse echoes the context).
	Context          string `json:"context_id"`
	Continue         bool   `json:"continue"`
	Flush            bool   `json:"flush"`
	MaxBufferDelayMS *int   `json:"max_buffer_delay_ms"`
	Cancel           bool   `json:"cancel"`
}

// ContextID is the context the message names (core.Message).
func (g Generation) ContextID() string { return g.Context }

// Emotion reads generation_config.emotion, a word such as "excited" or
// "calm", as voxkit reads a request's instructions (tags.ReadInstructions):
// it returns the style words it names, and whether all of it was
// understood (absent, null and "neutral" are; the older list form,
// ["positivity:high"], is not).
func (g Generation) Emotion() (style string, whole bool) {
	var raw json.RawMessage
	if g.GenerationConfig != nil {
		raw = g.GenerationConfig.Emotion
	}
	var word string
	if len(raw) == 0 || json.Unmarshal(raw, &word) != nil {
		return "", len(raw) == 0
	}
	in := tags.ReadInstructions(word)
	return strings.Join(in.Tags, " "), len(in.Unknown) == 0
}

// Styles reads the request's emotion (generation_config's) and the
// voice's __experimental_controls onto voxkit's instructions vocabulary,
// generation_config's emotion winning, and names the fields it could not
// act on wholly: the volume, and the emotions and controls with no style.
func (g Generation) Styles() (instructions string, ignored []string) {
	if c := g.GenerationConfig; c != nil {
		if c.Volume != nil {
			ignored = append(ignored, "generation_config.volume")
		}
		style, whole := g.Emotion()
		if instructions = style; !whole {
			ignored = append(ignored, "generation_config.emotion")
		}
	}
	if style, whole := g.Voice.Experimental(); g.Voice.Controls != nil {
		instructions = strings.TrimSpace(style + " " + instructions)
		if !whole {
			ignored = append(ignored, "voice.__experimental_controls")
		}
	}
	return instructions, ignored
}
