package openai_test

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/openaisdk"
	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/openai/openai-go/v3"
)

// zeroCrossings is the share of successive s16le samples that change
// sign: whispered (unvoiced) speech crosses far more often than voiced.
func zeroCrossings(pcm []byte) float64 {
	n, c := len(pcm)/2, 0
	for i := 1; i < n; i++ {
		a := int16(binary.LittleEndian.Uint16(pcm[2*i-2:]))
		b := int16(binary.LittleEndian.Uint16(pcm[2*i:]))
		if (a < 0) != (b < 0) {
			c++
		}
	}
	return float64(c) / float64(max(n, 1))
}

// TestInstructionsStyleSpeech: the words of the instructions vocabulary
// change the audio as their tags do, and what is not understood is
// reported, on the clip's header and the stream's trailer alike.
func TestInstructionsStyleSpeech(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	const text = "The quick brown fox jumps over the lazy dog, twice before noon."
	plain, ignored := e.SpeakPCM(t, text, "")
	if ignored != "" {
		t.Errorf("no instructions: ignored %q", ignored)
	}
	none, ignored := e.SpeakPCM(t, text, "None")
	if ignored != "" || math.Abs(float64(len(none)-len(plain))) > 0.02*float64(len(plain)) {
		t.Errorf(`"None": ignored %q, %d bytes against %d without`, ignored, len(none), len(plain))
	}
	slow, ignored := e.SpeakPCM(t, text, "Speak slowly.")
	t.Logf("plain %d bytes, slowly %d (×%.2f)", len(plain), len(slow), float64(len(slow))/float64(len(plain)))
	if ignored != "" || float64(len(slow)) < 1.2*float64(len(plain)) {
		t.Errorf(`"Speak slowly.": %d bytes against %d, ignored %q`, len(slow), len(plain), ignored)
	}
	fast, _ := e.SpeakPCM(t, text, "Talk quickly")
	if float64(len(fast)) > 0.9*float64(len(plain)) {
		t.Errorf(`"Talk quickly": %d bytes against %d`, len(fast), len(plain))
	}
	loud, _ := e.SpeakPCM(t, text, "say it loudly")
	soft, _ := e.SpeakPCM(t, text, "speak softly")
	t.Logf("level: plain %.4f, loudly %.4f, softly %.4f", testserver.PCMRMS(plain), testserver.PCMRMS(loud), testserver.PCMRMS(soft))
	if !(testserver.PCMRMS(loud) > 1.3*testserver.PCMRMS(plain) && testserver.PCMRMS(soft) < 0.7*testserver.PCMRMS(plain)) {
		t.Errorf("level: plain %.4f, loudly %.4f, softly %.4f", testserver.PCMRMS(plain), testserver.PCMRMS(loud), testserver.PCMRMS(soft))
	}
	whisper, _ := e.SpeakPCM(t, text, "whisper")
	tagged, _ := e.SpeakPCM(t, "<|whisper|>"+text, "")
	zp, zw, zt := zeroCrossings(plain), zeroCrossings(whisper), zeroCrossings(tagged)
	t.Logf("zero crossings: plain %.3f, whisper %.3f, <|whisper|> %.3f", zp, zw, zt)
	if zw < 1.5*zp || math.Abs(zw-zt) > 0.1*zt {
		t.Errorf("whisper: zero crossings %.3f, <|whisper|>'s %.3f, plain %.3f", zw, zt, zp)
	}
	_, ignored = e.SpeakPCM(t, text, "Speak slowly, like a pirate, and don't whisper.")
	if ignored != "instructions:pirate,instructions:not whisper" {
		t.Errorf("ignored %q", ignored)
	}
	// A clip names them in its header.
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"voice":"en-us","input":"Hi there.","instructions":"Voice: warm and husky."}`))
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if got := res.Header.Get("X-Ignored-Tags"); res.StatusCode != 200 || got != "instructions:warm,instructions:husky" {
		t.Errorf("clip: %d, ignored %q", res.StatusCode, got)
	}
}

// TestInstructionsHomeAssistant: the request Home Assistant's OpenAI
// integration makes, through the official SDK, speaks in the asked style.
func TestInstructionsHomeAssistant(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	for _, instructions := range []string{"Speak in a cheerful and calm tone.", "None"} {
		var raw *http.Response
		res, err := openaisdk.Client(e.TS, e.Key).Audio.Speech.New(context.Background(), openai.AudioSpeechNewParams{
			Model: openai.SpeechModelGPT4oMiniTTS, Voice: openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("marin")},
			Input: "The lights in the kitchen are on.", ResponseFormat: openai.AudioSpeechNewParamsResponseFormatMP3,
			Instructions: openai.String(instructions),
		})
		if err != nil {
			t.Fatalf("%q: %v", instructions, err)
		}
		raw = res
		audio, _ := io.ReadAll(raw.Body)
		raw.Body.Close()
		if len(audio) < 1000 || raw.Header.Get("X-Ignored-Tags") != "" {
			t.Errorf("%q: %d bytes, ignored %q", instructions, len(audio), raw.Header.Get("X-Ignored-Tags"))
		}
	}
}
