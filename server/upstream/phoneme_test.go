package upstream_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// TestPoolForwardsPhonemes: a piece said as IPA (engine.Request.Phonemes)
// reaches the worker as a phoneme tag around its text, a "|" left out
// of the IPA; a piece without phonemes goes as its text.
func TestPoolForwardsPhonemes(t *testing.T) {
	got := make(chan wire.Speech, 1)
	p := boundedPool(t, upstream.Options{}, speechWorker(t, got).URL)
	if !engine.Renders(p, engine.FeaturePhonemes) {
		t.Fatal("the pool does not take phonemes")
	}
	for _, tc := range []struct{ text, phonemes, want string }{
		{"tomato", "təˈmɑːtoʊ", "<|phoneme:təˈmɑːtoʊ|>tomato<|/phoneme|>"},
		{"tomato", "tə|ˈmɑː|>toʊ", "<|phoneme:təˈmɑː>toʊ|>tomato<|/phoneme|>"},
		{"Hello.", "", "Hello."},
	} {
		err := p.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: tc.text, Phonemes: tc.phonemes}, func(engine.Chunk) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if sp := <-got; sp.Input != tc.want {
			t.Errorf("%q as %q: the worker got %q, want %q", tc.text, tc.phonemes, sp.Input, tc.want)
		}
	}
}

// TestGatewaySpeaksPhonemes: through a gateway in front of a real worker
// (espeak-ng), a phoneme tag is spoken as its IPA, not read as its text,
// and is not reported ignored: two pronunciations of one word differ.
func TestGatewaySpeaksPhonemes(t *testing.T) {
	w := worker(t)
	ts := gateway(t, newPool(t, w.URL), tts.Options{MaxParallel: 4})
	say := func(ipa string) []byte {
		t.Helper()
		res, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(
			`{"model":"tts-1","voice":"en-us","input":"I say <|phoneme:`+ipa+`|>tomato<|/phoneme|>.","response_format":"pcm"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || len(b) < 10000 {
			t.Fatalf("%s: %d, %d bytes", ipa, res.StatusCode, len(b))
		}
		if ignored := res.Header.Get("x-ignored-tags") + res.Trailer.Get("x-ignored-tags"); strings.Contains(ignored, "phoneme") {
			t.Errorf("%s: phoneme reported ignored (%q)", ipa, ignored)
		}
		return b
	}
	if a, b := say("təˈmɑːtoʊ"), say("təˈmeɪtoʊ"); string(a) == string(b) {
		t.Error("təˈmɑːtoʊ and təˈmeɪtoʊ gave the same audio through the gateway")
	}
}
