// Command say speaks text into an audio file with voxkit.
//
//	go run ./examples/say -voice en-us -format wav -o hello.wav "Hello world"
//	go run ./examples/say -o hello.mp3 "Hello world"   # the format from the name
//	go run ./examples/say -list
//
// It uses the embedded espeak-ng engine, plus the Piper voices found in
// -voices (ONNX Runtime is then needed: see engine/onnx). Text comes from the arguments, or from standard input when there
// are none.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/tts"

	// Write mp3 and opus too (they need cgo).
	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
)

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: not a failure, as with flag.ExitOnError
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "say:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	flag := flag.NewFlagSet("say", flag.ContinueOnError)
	flag.SetOutput(stderr)
	voice := flag.String("voice", "en-us", "voice id (see -list)")
	format := flag.String("format", "wav", "output format: "+strings.Join(encode.DefaultRegistry.Names(), ", ")+" (default: the -o file's extension, else wav)")
	rate := flag.Int("rate", 0, "output sample rate in Hz (0: 24000)")
	speed := flag.Float64("speed", 1, "speaking speed, 0.25 to 4")
	out := flag.String("o", "", "output file (default: standard output)")
	voicesDir := flag.String("voices", "", "directory of Piper voices (NAME.onnx + NAME.onnx.json) to add; needs ONNX Runtime ($ONNXRUNTIME_LIB)")
	list := flag.Bool("list", false, "list the voices and exit")
	if err := flag.Parse(args); err != nil {
		return err
	}
	if *out != "" && !flagSet(flag, "format") {
		*format = formatOf(*out, *format)
	}

	ctx := context.Background()
	esp, err := espeak.New(espeak.Options{})
	if err != nil {
		return err
	}
	engines := map[string]engine.Engine{"espeak": esp}
	if *voicesDir != "" {
		piper, err := onnx.Load(ctx, onnx.Options{
			LibraryPath: os.Getenv("ONNXRUNTIME_LIB"),
			Phonemizer:  esp,
			VoicesDir:   *voicesDir,
			Logger:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		})
		if err != nil {
			esp.Close()
			return err
		}
		engines["onnx"] = piper
	}
	// The Synthesizer lists the engines' voices, and closes the engines.
	synth, err := tts.New(tts.Options{Engines: engines, CloseEngines: true})
	if err != nil {
		for _, e := range engines {
			e.Close()
		}
		return err
	}
	defer synth.Close()
	cat := synth.Voices()
	if *list {
		for _, v := range cat.List("") {
			fmt.Fprintf(stdout, "%-24s %-10s %s\n", v.ID, v.Language, v.Description)
		}
		return nil
	}

	text := strings.Join(flag.Args(), " ")
	if text == "" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	req := tts.Request{
		Voice:  *voice,
		Input:  text,
		Format: encode.Format{Name: *format, SampleRate: *rate},
		Speed:  *speed,
	}
	prepared, err := synth.Prepare(req)
	if err != nil {
		return err // before creating the output file
	}
	if *out == "" {
		_, err := prepared.Stream(ctx, stdout)
		return err
	}
	// A file takes a complete clip, written through as it is made.
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	res, err := prepared.WriteClip(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(*out) // not a whole clip
		return err
	}
	fmt.Fprintf(stderr, "say: wrote %v of audio to %s (engine time %v)\n", res.Audio.Round(time.Millisecond), *out, res.EngineTime.Round(time.Millisecond))
	return nil
}

// flagSet reports whether the command line gave the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// formatOf returns the format whose codec's extension the file name has
// (hello.mp3 is mp3), else def.
func formatOf(name, def string) string {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	for _, f := range encode.DefaultRegistry.Names() {
		if c, err := encode.Lookup(f); err == nil && c.Extension == ext {
			return f
		}
	}
	return def
}
