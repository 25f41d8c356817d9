package upstream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
)

// TestPoolForwardsSeed: a piece's seed (engine.Request.Seed) goes to the
// worker as the request's seed, so a voice that samples says it there as
// it would on the gateway; a piece without one sends none.
func TestPoolForwardsSeed(t *testing.T) {
	got := make(chan wire.Speech, 1)
	p := boundedPool(t, upstream.Options{}, speechWorker(t, got).URL)
	for _, want := range []int64{42, 0} {
		err := p.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: "Hello.", Seed: want}, func(engine.Chunk) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if sp := <-got; sp.Seed != want {
			t.Errorf("the worker got seed %d, want %d", sp.Seed, want)
		}
	}
}

// speechWorker is a fake worker of oneVoice that sends each speech
// request it gets to got and answers 10 ms of silence.
func speechWorker(t *testing.T, got chan<- wire.Speech) *httptest.Server {
	return fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sp, err := wire.ParseSpeech(body, "")
		if err != nil {
			t.Errorf("the worker's request %s: %v", body, err)
		}
		got <- sp
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 480))
	})
}
