package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/fault"
)

// TestSampleField: voice_sample is read only for a voice that names its
// SHA-256, in standard base64.
func TestSampleField(t *testing.T) {
	voice := SampleVoice([]byte("a sample"))
	if !IsSampleVoice(voice) || IsSampleVoice(strings.ToUpper(voice)) || IsSampleVoice(voice[:len(voice)-1]) || IsSampleVoice("en-us") {
		t.Errorf("IsSampleVoice is wrong about %q or its variants", voice)
	}
	for _, tc := range []struct {
		name, body, code, param string
	}{
		{"good", `{"voice":"` + voice + `","input":"Hi.","voice_sample":"YSBzYW1wbGU="}`, "", ""},
		{"absent", `{"voice":"` + voice + `","input":"Hi."}`, "", ""},
		{"another voice", `{"voice":"en-us","input":"Hi.","voice_sample":"YSBzYW1wbGU="}`, fault.CodeInvalidValue, "voice"},
		{"another hash", `{"voice":"` + SampleVoice([]byte("other")) + `","input":"Hi.","voice_sample":"YSBzYW1wbGU="}`, fault.CodeBadSample, "voice_sample"},
		{"not base64", `{"voice":"` + voice + `","input":"Hi.","voice_sample":"%%%"}`, fault.CodeBadSample, "voice_sample"},
		{"empty", `{"voice":"` + voice + `","input":"Hi.","voice_sample":""}`, fault.CodeBadSample, "voice_sample"},
		{"not a string", `{"voice":"` + voice + `","input":"Hi.","voice_sample":7}`, fault.CodeInvalidType, "voice_sample"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSpeech([]byte(tc.body), "")
			var we *Error
			switch {
			case tc.code == "" && err != nil:
				t.Errorf("%v", err)
			case tc.code == "" && strings.Contains(tc.body, "voice_sample") && string(s.VoiceSample) != "a sample":
				t.Errorf("sample %q", s.VoiceSample)
			case tc.code != "" && (!errors.As(err, &we) || we.Code != tc.code || we.Param != tc.param || we.Status != 400):
				t.Errorf("%v, want 400 %s on %s", err, tc.code, tc.param)
			}
		})
	}
}
