package upstream_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
)

// TestPoolForwardsSeed: a piece's seed (engine.Request.Seed) goes to the
// worker as the request's seed, so a voice that samples says it there as
// it would on the gateway; a piece without one sends none.
func TestPoolForwardsSeed(t *testing.T) {
	seeds := make(chan int64, 2)
	w := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sp, err := wire.ParseSpeech(body, "")
		if err != nil {
			t.Errorf("the worker's request %s: %v", body, err)
		}
		seeds <- sp.Seed
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 480))
	})
	p := boundedPool(t, upstream.Options{}, w.URL)
	for _, want := range []int64{42, 0} {
		err := p.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: "Hello.", Seed: want}, func(engine.Chunk) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if got := <-seeds; got != want {
			t.Errorf("the worker got seed %d, want %d", got, want)
		}
	}
}
