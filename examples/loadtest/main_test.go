package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/server/servertest"
)

func TestLoadAgainstServer(t *testing.T) {
	ctx := context.Background()
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"v"}, LetterDuration: 10 * time.Millisecond})
	api, key := servertest.New(t, "fake", fake, map[string]string{"alloy": "v"})
	ts := httptest.NewServer(api)
	defer ts.Close()

	var out bytes.Buffer
	if err := run(ctx, []string{"-url", ts.URL, "-key", key, "-c", "3", "-d", "1s"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"latency pcm", "latency wav", "pcm time to first byte", "gateway overhead", "errors: none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	run(ctx, []string{"-url", ts.URL, "-key", "sk_wrong", "-c", "2", "-d", "300ms"}, &out, &out)
	if !strings.Contains(out.String(), "401 invalid_request_error×") {
		t.Errorf("errors by status and type missing:\n%s", out.String())
	}
}

func TestQuantiles(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i)
	}
	if q := quantiles(xs); q != [4]float64{51, 96, 100, 100} {
		t.Errorf("quantiles = %v", q)
	}
}
