package wire

import (
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// Request turns a parsed speech request (a POST body or a socket's
// speech.create) of account into the request to synthesize, in voice (sp's
// voice as the door resolved it: an alias mapped to its voice). The
// OpenAI door's conversion, as the vendors' api packages have theirs: the
// core takes the tts.Request.
func (sp Speech) Request(account, voice string) (tts.Request, *Error) {
	if err := tts.CheckSpeed(sp.Speed); err != nil { // a speed the client sent: 0 is out of range, not the default
		return tts.Request{}, fault.ToError(err, "")
	}
	req := tts.Request{
		Voice:        voice,
		Input:        sp.Input,
		Format:       encode.Format{Name: sp.Format},
		Speed:        sp.Speed,
		Account:      account,
		StrictTags:   sp.StrictTags,
		Seed:         sp.Seed,
		Instructions: sp.Instructions,
	}
	if !sp.Normalize {
		req.Normalize = tts.NormalizeOff
	}
	switch sp.InputFormat {
	case InputText:
		req.InputFormat = tts.InputText
	case InputSSML:
		req.InputFormat = tts.InputSSML
	}
	return req, nil
}
