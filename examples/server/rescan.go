package main

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tts"
)

// rescanner is an engine that reads its voices directory again: onnx's
// (Piper and Kokoro voices), pocket's (PocketTTS models) and
// supertonic's.
type rescanner interface {
	Rescan(ctx context.Context) (changed bool, err error)
}

// rescanOnHangup rescans the voices directory at every SIGHUP until ctx
// ends: voices and PocketTTS models added to it appear, removed ones go,
// changed Piper and Kokoro voices reload. Voice clones made from a
// recording with a PocketTTS model that went stay stored and listed;
// speaking with them is refused (400) until the model is back.
func (a *app) rescanOnHangup(ctx context.Context, synth *tts.Synthesizer, engines map[string]engine.Engine) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cat := synth.Voices()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			var errs []error
			rescanned := 0
			for _, name := range slices.Sorted(maps.Keys(engines)) {
				r, ok := engines[name].(rescanner)
				if !ok {
					continue
				}
				rescanned++
				_, err := r.Rescan(ctx)
				// The voices that loaded are listed even if others failed.
				errs = append(errs, err, cat.AddEngine(ctx, name, engines[name], time.Now()))
			}
			if rescanned == 0 {
				a.log.Info("voices rescanned: no -voices directory")
				continue
			}
			for _, v := range cat.Shadowed() {
				a.log.Warn("voice clone left out: a global voice has its id", "voice", v.ID, "account", v.Owner)
			}
			if err := errors.Join(errs...); err != nil {
				a.log.Warn("voices rescanned with errors", "voices", len(cat.List("")), "err", err)
				continue
			}
			a.log.Info("voices rescanned", "voices", len(cat.List("")))
		}
	}
}
