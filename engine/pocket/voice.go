package pocket

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/voxkit/voxkit/engine"
)

// Sampling defaults, sherpa-onnx's.
const (
	DefaultTemperature = 0.7
	DefaultSteps       = 5
)

// MaxSteps bounds Settings.Steps. Each step is one run of lm_flow per
// frame, so a voice's steps set the cost of all its speech (100 steps
// cost 4.5 times what 5 do with a model of the released size); the flow
// is made for few steps (sherpa-onnx speaks with DefaultSteps, 5),
// and 10 leaves room to try more without making a voice a cost multiplier.
const MaxSteps = 10

// Settings are the sampling settings a voice speaks with.
type Settings struct {
	// Temperature scales the noise each frame's flow starts from: normal
	// with standard deviation √Temperature. 0 gives the same audio for
	// the same text every time; DefaultTemperature is livelier.
	Temperature float64 `json:"temperature"`
	// Steps is the number of Euler steps of the flow per frame; 0 means
	// DefaultSteps.
	Steps int `json:"steps"`
	// Seed seeds the noise: with the same seed, text and voice a call
	// gives the same audio. 0 means a new seed for every call. (The
	// noise is voxkit's own: a seed gives other audio than the same seed
	// gives in sherpa-onnx, whose generator is C++'s.)
	Seed int64 `json:"seed"`
}

// DefaultSettings returns the settings sherpa-onnx speaks with by default:
// DefaultTemperature, DefaultSteps and a new seed for every call.
func DefaultSettings() Settings {
	return Settings{Temperature: DefaultTemperature, Steps: DefaultSteps}
}

// ErrSettings is returned (wrapped) for sampling settings out of range:
// engine.ErrCloneSettings.
var ErrSettings = engine.ErrCloneSettings

func (s Settings) validate() error {
	if math.IsNaN(s.Temperature) || s.Temperature < 0 || s.Temperature > 10 {
		return fmt.Errorf("%w: temperature %v is not in [0, 10]", ErrSettings, s.Temperature)
	}
	if s.Steps < 0 || s.Steps > MaxSteps {
		return fmt.Errorf("%w: steps %d is not in [1, %d]", ErrSettings, s.Steps, MaxSteps)
	}
	return nil
}

// Voice is a voice cloned from a recording: the encoder's output for it
// (Frames latents of Dim values, 12.5 per second of the recording) and
// the settings it speaks with. Its model must be loaded to speak it.
type Voice struct {
	// Model is the id of the model whose encoder made Latents.
	Model   string
	Frames  int
	Dim     int
	Latents []float32
	Settings
}

func (v *Voice) validate() error {
	if v == nil || v.Frames <= 0 || v.Dim <= 0 || len(v.Latents) != v.Frames*v.Dim {
		return errors.New("pocket: voice without latents")
	}
	for i, x := range v.Latents {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("pocket: voice latent %d is %v, not a number the model can take", i, x)
		}
	}
	return v.Settings.validate()
}

// voiceMagic starts a stored voice; the digit is the format's version.
const voiceMagic = "voxkit-pocket-voice 1\n"

// voiceHeader is the JSON line after voiceMagic; the latents follow as
// little-endian float32.
type voiceHeader struct {
	Model  string `json:"model"`
	Frames int    `json:"frames"`
	Dim    int    `json:"dim"`
	Settings
}

// MarshalBinary encodes the voice for storage: a line naming the format,
// a line of JSON (model, frames, dim, settings), then the latents as
// little-endian float32.
func (v *Voice) MarshalBinary() ([]byte, error) {
	if err := v.validate(); err != nil {
		return nil, err
	}
	h, err := json.Marshal(voiceHeader{Model: v.Model, Frames: v.Frames, Dim: v.Dim, Settings: v.Settings})
	if err != nil {
		return nil, fmt.Errorf("pocket: %w", err)
	}
	var b bytes.Buffer
	b.Grow(len(voiceMagic) + len(h) + 1 + 4*len(v.Latents))
	b.WriteString(voiceMagic)
	b.Write(h)
	b.WriteByte('\n')
	if err := binary.Write(&b, binary.LittleEndian, v.Latents); err != nil {
		return nil, fmt.Errorf("pocket: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes a voice encoded by MarshalBinary. A voice
// stored with more than MaxSteps steps (when the bound was higher) is
// decoded with MaxSteps: stored voices keep working, at a bounded cost.
func (v *Voice) UnmarshalBinary(data []byte) error {
	rest, ok := bytes.CutPrefix(data, []byte(voiceMagic))
	if !ok {
		return errors.New("pocket: not a stored PocketTTS voice")
	}
	line, body, ok := bytes.Cut(rest, []byte("\n"))
	var h voiceHeader
	if !ok || json.Unmarshal(line, &h) != nil {
		return errors.New("pocket: stored voice: bad header")
	}
	if h.Frames <= 0 || h.Dim <= 0 || int64(len(body)) != 4*int64(h.Frames)*int64(h.Dim) {
		return fmt.Errorf("pocket: stored voice: %d bytes of latents for %d frames of %d", len(body), h.Frames, h.Dim)
	}
	lat := make([]float32, h.Frames*h.Dim)
	if err := binary.Read(bytes.NewReader(body), binary.LittleEndian, lat); err != nil {
		return fmt.Errorf("pocket: stored voice: %w", err)
	}
	nv := Voice{Model: h.Model, Frames: h.Frames, Dim: h.Dim, Latents: lat, Settings: h.Settings}
	nv.Steps = min(nv.Steps, MaxSteps)
	if err := nv.validate(); err != nil {
		return err
	}
	*v = nv
	return nil
}
