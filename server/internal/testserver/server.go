package testserver

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/voxkit/voxkit/internal/audiotest"
)

const Sentences10 = "One is first. Two comes next. Three is here. Four follows. Five is half. " +
	"Six is more. Seven goes on. Eight is late. Nine is near. Ten is the end."

// probe decodes audio with ffprobe and returns the codec, rate and
// duration in seconds.
func Probe(t *testing.T, audio []byte, format string) (codec string, rate int, dur float64) {
	t.Helper()
	p := audiotest.ProbeBytes(t, audio, format)
	return p.Codec, p.SampleRate, p.Duration
}

func CheckAPIError(t *testing.T, err error, status int, typ, code, param string) {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an *openai.Error", err)
	}
	if apiErr.StatusCode != status || apiErr.Type != typ || apiErr.Code != code || apiErr.Param != param || apiErr.Message == "" {
		t.Errorf("got %d type=%q code=%q param=%q msg=%q; want %d %q %q %q",
			apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message, status, typ, code, param)
	}
}
