package core

import (
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// SpeechRequest turns a parsed speech request (a POST body or a speech.create)
// into the request to synthesize.
func (c *Core) SpeechRequest(sp wire.Speech, account string) (tts.Request, *wire.Error) {
	if err := tts.CheckSpeed(sp.Speed); err != nil { // a speed the client sent: 0 is out of range, not the default
		return tts.Request{}, wire.ToError(err, "")
	}
	req := tts.Request{
		Voice:        c.Catalog.Resolve(account, sp.Voice),
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
	case wire.InputText:
		req.InputFormat = tts.InputText
	case wire.InputSSML:
		req.InputFormat = tts.InputSSML
	}
	return req, nil
}
