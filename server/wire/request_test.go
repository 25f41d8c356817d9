package wire

import (
	"testing"

	"github.com/voxkit/voxkit/tts"
)

// TestSpeechRequest: the OpenAI shapes convert to the request the core
// takes, the voice as the door resolved it; a speed out of range is
// carried as sent, for the core to refuse (core.Job.Speed).
func TestSpeechRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		sp   Speech
		want tts.Request
	}{
		{"plain", Speech{Voice: "alloy", Input: "Hi.", Format: "mp3", Speed: 1, Normalize: true},
			tts.Request{Voice: "resolved", Input: "Hi.", Speed: 1, Account: "a"}},
		{"ssml, no normalization", Speech{Input: "<speak>Hi.</speak>", Speed: 2, InputFormat: InputSSML},
			tts.Request{Voice: "resolved", Input: "<speak>Hi.</speak>", Speed: 2, Account: "a", Normalize: tts.NormalizeOff, InputFormat: tts.InputSSML}},
		{"text", Speech{Input: "<b>", Speed: 1, Normalize: true, InputFormat: InputText},
			tts.Request{Voice: "resolved", Input: "<b>", Speed: 1, Account: "a", InputFormat: tts.InputText}},
		{"speed 0", Speech{Input: "Hi.", Speed: 0, Normalize: true}, tts.Request{Voice: "resolved", Input: "Hi.", Account: "a"}},
		{"speed 9", Speech{Input: "Hi.", Speed: 9, Normalize: true}, tts.Request{Voice: "resolved", Input: "Hi.", Speed: 9, Account: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.sp.Request("a", "resolved")
			got.Format = tc.want.Format // checked apart
			if got.Voice != tc.want.Voice || got.Input != tc.want.Input || got.Speed != tc.want.Speed || got.Account != tc.want.Account ||
				got.Normalize != tc.want.Normalize || got.InputFormat != tc.want.InputFormat {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if req := (Speech{Speed: 1, Format: "opus"}).Request("a", "v"); req.Format.Name != "opus" {
		t.Errorf("format %q, want opus", req.Format.Name)
	}
}
