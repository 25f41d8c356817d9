package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFlagsFirst(t *testing.T) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.String("data", "data", "")
	fs.Bool("signup", false, "")
	for _, c := range []struct{ in, want string }{
		{"init -data X", "-data X init"},
		{"init -data=X -account bob", "-data=X init -account bob"},
		{"-signup init --data X", "-signup --data X init"},
		{"keys create -account a -signup -data X", "-signup -data X keys create -account a"},
		{"-data X init", "-data X init"},
		{"init -- -data X", "init -- -data X"},
		{"-data", "-data"},
		{"", ""},
	} {
		if got := strings.Join(flagsFirst(fs, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestInitDataAfterSubcommand: "server init -data X" creates the store
// in X and nothing in the working directory's ./data; a wrong flag after
// init creates nothing anywhere.
func TestInitDataAfterSubcommand(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	dir := filepath.Join(t.TempDir(), "x")
	var out strings.Builder
	if err := newApp(&out, io.Discard).run(context.Background(), []string{"init", "-data", dir, "-log", "off"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "voxkit.db")); err != nil {
		t.Errorf("init -data %s: %v", dir, err)
	}
	if err := newApp(io.Discard, io.Discard).run(context.Background(), []string{"init", "-nonsense"}); err == nil {
		t.Error("init -nonsense succeeded")
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Errorf("the working directory holds %v", slices.Collect(func(yield func(string) bool) {
			for _, e := range entries {
				yield(e.Name())
			}
		}))
	}
}

// A setting that does not parse, from a flag or the environment, stops
// the server before it opens its store, naming the setting: a typo in
// $VOXKIT_RATE_LIMIT used to turn the limit off, in $VOXKIT_ELEVENLABS to
// turn the door off, and -voice-memory was read only with -voices.
func TestBadSettingsRefused(t *testing.T) {
	t.Parallel() // nothing starts; no timing bound
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{env: map[string]string{"VOXKIT_RATE_LIMIT": "60/min"}, want: "$VOXKIT_RATE_LIMIT"},
		{env: map[string]string{"VOXKIT_CONCURRENCY_LIMIT": "four"}, want: "$VOXKIT_CONCURRENCY_LIMIT"},
		{env: map[string]string{"VOXKIT_ELEVENLABS": "yes please"}, want: "$VOXKIT_ELEVENLABS"},
		{env: map[string]string{"VOXKIT_SIGNUP": "maybe"}, want: "$VOXKIT_SIGNUP"},
		{args: []string{"-rate-limit", "-1"}, want: "-rate-limit -1"},
		{args: []string{"-concurrency-limit", "-3"}, want: "-concurrency-limit -3"},
		{args: []string{"-max-voices", "-1"}, want: "-max-voices -1"},
		{args: []string{"-voice-loads", "-2"}, want: "-voice-loads -2"},
		{args: []string{"-max-jobs", "-1"}, want: "-max-jobs -1"},
		{args: []string{"-voice-memory", "abc"}, want: "-voice-memory"},
		{args: []string{"-lexicon-storage", "12XB"}, want: "-lexicon-storage"},
		{env: map[string]string{"VOXKIT_JOB_STORAGE": "lots"}, want: "-job-storage"},
		{args: []string{"-log", "xml"}, want: `-log "xml"`},
	} {
		dir := t.TempDir()
		a := newApp(io.Discard, io.Discard)
		a.getenv = func(k string) string { return c.env[k] }
		// Bounded, so that a setting taken starts a server that stops
		// again and the case fails instead of hanging.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := a.run(ctx, append([]string{"-data", dir, "-addr", "127.0.0.1:0"}, c.args...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want an error naming %s", c.env, c.args, err, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%v %v: the store was opened (%d entries in -data)", c.env, c.args, len(entries))
		}
		cancel()
	}
}
