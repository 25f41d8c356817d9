// Command embed shows voxkit's API mounted inside an existing application:
// the speech server lives under /tts/ of a mux that has routes of its own.
//
//	go run ./examples/embed -addr 127.0.0.1:8081 -data data
//	curl http://127.0.0.1:8081/healthz
//	curl http://127.0.0.1:8081/tts/v1/models -H "Authorization: Bearer sk_..."
//
// The OpenAI SDKs then use the base URL http://127.0.0.1:8081/tts/v1. Keys
// are made with the example server's subcommands on the same -data.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"
	// Serve mp3 and opus too (they need cgo): the OpenAI SDKs send no
	// response_format (wav) unless set, but clients often ask for mp3 or opus.

	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	data := flag.String("data", "data", "data directory of the key store")
	flag.Parse()
	if err := run(*addr, *data); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// newMux is the application's own router with the speech API mounted
// under /tts/.
func newMux(api http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "my application; the speech API is under /tts/v1, its playground at /tts/")
	})
	mux.Handle("/tts/", http.StripPrefix("/tts", api))
	return mux
}

func run(addr, data string) error {
	ctx := context.Background()
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	st, err := sqlite.Open(ctx, filepath.Join(data, sqlite.FileName))
	if err != nil {
		return err
	}
	defer st.Close()
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		return err
	}
	defer synth.Close()
	api, err := server.New(server.Options{Synthesizer: synth, Store: st})
	if err != nil {
		return err
	}
	slog.Info("listening", "addr", "http://"+addr, "api", "http://"+addr+"/tts/v1")
	hs := &http.Server{Addr: addr, Handler: newMux(api), ReadHeaderTimeout: 10 * time.Second}
	return hs.ListenAndServe()
}
