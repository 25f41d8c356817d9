package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Mount the API under /tts/ of an application's own mux.
func Example_mount() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "voxkit-example")
	defer os.RemoveAll(dir)
	st, _ := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName))
	defer st.Close()
	st.CreateAccount(ctx, "app")
	_, key, _ := st.CreateKey(ctx, store.NewKey{Account: "app", Name: "example", Scope: store.ScopeAdmin})

	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"narrator"}})
	cat := new(voices.Catalog)
	cat.AddEngine(ctx, "fake", fake, time.Unix(1700000000, 0))
	synth, _ := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake}, Voices: cat})
	api, err := server.New(server.Options{
		Synthesizer: synth, Store: st,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.Handle("/tts/", http.StripPrefix("/tts", api))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	req, _ := http.NewRequest("POST", ts.URL+"/tts/v1/audio/speech",
		strings.NewReader(`{"model":"tts-1","voice":"narrator","input":"Hello.","response_format":"wav"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	audio, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.Status, res.Header.Get("Content-Type"), string(audio[:4]))

	res, _ = http.Get(ts.URL + "/tts/v1/models")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.Status, strings.Contains(string(body), "missing_api_key"))
	// Output:
	// 200 OK audio/wav RIFF
	// 401 Unauthorized true
}
