package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
)

// server.New with nothing but a Synthesizer and a Store answers the
// OpenAI voice names and takes the input limit of the Synthesizer.
func TestServerDefaults(t *testing.T) {
	ctx := context.Background()
	synth, err := espeak.NewSynthesizer(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	st, err := store.OpenSQLite(ctx, filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.CreateAccount(ctx, "a")
	_, key, _ := st.CreateKey(ctx, store.NewKey{Account: "a", Scope: store.ScopeAdmin})
	api, err := server.New(server.Options{Synthesizer: synth, Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	defer ts.Close()
	e := &env{t: t, ts: ts}
	for _, voice := range server.OpenAIVoiceNames() {
		res := e.do("POST", "/v1/audio/speech", key, "application/json",
			strings.NewReader(`{"model":"tts-1","voice":"`+voice+`","input":"Hi.","response_format":"wav"}`))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("voice %s: %d", voice, res.StatusCode)
		}
	}
	long := strings.Repeat("a", synth.MaxInput()+1)
	res := e.do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(`{"voice":"alloy","input":"`+long+`"}`))
	apiError(t, res, 400, "string_above_max_length")
}
