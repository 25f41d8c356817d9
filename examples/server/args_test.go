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
