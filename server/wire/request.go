package wire

import (
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/tts"
)

// Request turns a parsed speech request (a POST body or a socket's
// speech.create) of account into the request to synthesize, in voice (sp's
// voice as the door resolved it: an alias mapped to its voice). The
// OpenAI door's conversion, as the vendors' api packages have theirs: the
// core takes the tts.Request, and checks its speed, which the door hands
// it as the speed the client sent (core.Job.Speed: 0 is out of range
// there, not the default), and its input's having text (tts.ErrEmptyInput).
func (sp Speech) Request(account, voice string) tts.Request {
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
	return req
}
