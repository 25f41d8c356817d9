package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"net/http/httptest"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server/servertest"
)

func TestClientAgainstServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, key := servertest.New(t, "espeak", es, map[string]string{"alloy": "en-us"})
	ts := httptest.NewServer(api)
	defer ts.Close()
	for _, format := range encode.DefaultRegistry.Names() {
		out := filepath.Join(dir, "speech."+format)
		var stdout, stderr bytes.Buffer
		if err := run(ctx, []string{"-base", ts.URL + "/v1/", "-key", key, "-o", out, "Hello from the client."}, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v %s", format, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "en-us") || !strings.Contains(stdout.String(), "saved") {
			t.Errorf("output %q", stdout.String())
		}
		if format == "pcm" {
			continue
		}
		if b, err := exec.Command("ffprobe", "-v", "error", out).CombinedOutput(); err != nil {
			t.Errorf("%s does not decode: %v %s", format, err, b)
		}
	}
	if err := run(ctx, []string{"-base", ts.URL + "/v1/", "-key", "sk_bad", "-o", filepath.Join(dir, "x.wav")}, os.Stdout, os.Stderr); err == nil ||
		!strings.Contains(err.Error(), "invalid_api_key") {
		t.Errorf("bad key: %v", err)
	}
}
