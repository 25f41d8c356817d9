// Command client uses the official OpenAI Go SDK, unmodified, against a
// voxkit server: it lists the voices and saves speech to a file.
//
//	VOXKIT_API_KEY=sk_... go run ./examples/client -o hello.mp3 "Hello from voxkit."
//
// -base is the server's /v1 address (default http://127.0.0.1:8080/v1/).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: not a failure, as with flag.ExitOnError
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "http://127.0.0.1:8080/v1/", "base URL of the server's API")
	key := fs.String("key", os.Getenv("VOXKIT_API_KEY"), "API key ($VOXKIT_API_KEY)")
	voice := fs.String("voice", "alloy", "voice: an id from the list, or an OpenAI voice name")
	out := fs.String("o", "speech.mp3", "output file; its extension picks the format (mp3, wav, opus, flac, pcm)")
	list := fs.Bool("list", true, "list the voices first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *key == "" {
		return errors.New("no API key: pass -key or set $VOXKIT_API_KEY")
	}
	text := strings.Join(fs.Args(), " ")
	if text == "" {
		text = "Hello from voxkit, speaking through the official OpenAI SDK."
	}
	client := openai.NewClient(option.WithBaseURL(*base), option.WithAPIKey(*key))

	if *list {
		page, err := client.Models.List(ctx)
		if err != nil {
			return describe(err)
		}
		for _, m := range page.Data {
			fmt.Fprintf(stdout, "%-20s %s\n", m.ID, m.OwnedBy)
		}
	}

	format := strings.TrimPrefix(filepath.Ext(*out), ".")
	res, err := client.Audio.Speech.New(ctx, openai.AudioSpeechNewParams{
		Model:          openai.SpeechModelGPT4oMiniTTS,
		Voice:          openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String(*voice)},
		Input:          text,
		ResponseFormat: openai.AudioSpeechNewParamsResponseFormat(format),
	})
	if err != nil {
		return describe(err)
	}
	defer res.Body.Close()
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, res.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %d bytes of %s to %s (engine %s ms, total %s ms)\n", n,
		res.Header.Get("Content-Type"), *out, timing(res, "x-upstream-ms"), timing(res, "x-gateway-ms"))
	return nil
}

// describe spells out an API error: status, type, code and message.
func describe(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%d %s (%s): %s", apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message)
	}
	return err
}

// timing reads a timing value from the headers or, for streamed pcm, the
// trailers (available once the body is read).
func timing(res *http.Response, name string) string {
	if v := res.Header.Get(name); v != "" {
		return v
	}
	return res.Trailer.Get(name)
}
