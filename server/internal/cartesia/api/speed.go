package api

import (
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// Speed. Cartesia documents generation_config.speed as 0.6 to 1.5 times
// the normal rate, which is what voxkit's speed is: it maps onto
// voxkit's speed one to one, and the range is voxkit's alone
// (tts.CheckSpeed, 0.25 to 4; Cartesia's documented 0.6–1.5 lies within
// it), so that the door never holds a second range that could drift
// from it. The deprecated speed words are points of Cartesia's range.
var speeds = map[string]float64{"slowest": 0.6, "slow": 0.8, "normal": 1, "fast": 1.25, "fastest": 1.5}

// Speed is the voxkit speed g asks for, nil for the voice's own. The
// core checks generation_config.speed against voxkit's range (core.Job.Speed);
// FromFault words its error. A speed word the door does not know is
// refused here.
func Speed(g *Generation) (*float64, *Error) {
	var speed *float64
	if c := g.GenerationConfig; c != nil && c.Speed != nil {
		speed = c.Speed
	}
	if g.Speed != "" {
		word, ok := speeds[g.Speed]
		if !ok {
			return nil, BadRequest(fault.CodeInvalidValue, "speed %q is not slow, normal or fast.", g.Speed)
		}
		if speed == nil { // generation_config.speed wins
			speed = &word
		}
	}
	return speed, nil
}

// speedError is the error of a generation_config.speed outside voxkit's
// range, as Cartesia's door words it.
func speedError(bad *tts.SpeedError) *Error {
	return BadRequest(fault.CodeInvalidValue, "generation_config.speed %g is not between %g and %g.", bad.Speed, bad.Min, bad.Max)
}
