package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// TestGatewayStartMemoryWithClones is TestStartMemoryWithClones for a
// gateway (-upstream): 200 clones of 10 s recordings in the gateway's
// store add at most startBound to its resident memory at start (it reads
// a sample when a worker needs it), and one of them speaks through the
// worker after the restart.
func TestGatewayStartMemoryWithClones(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and starts it five times")
	}
	if raceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless")
	}
	bin := serverBinary(t)
	voicesDir := t.TempDir()
	generatePocket(t, filepath.Join(voicesDir, "pocket-gen"))
	ctx := context.Background()

	// A worker, and a key of the gateway scope there.
	workerData := t.TempDir()
	workerArgs := []string{"-data", workerData, "-voices", voicesDir}
	startChild(t, bin, true, workerArgs...).stop()
	st, err := sqlite.Open(ctx, filepath.Join(workerData, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CreateAccount(ctx, "gateway")
	var gatewayKey string
	if err == nil {
		_, gatewayKey, err = st.CreateKey(ctx, store.NewKey{Account: "gateway", Scope: store.ScopeGateway})
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	worker := startChild(t, bin, false, workerArgs...)
	defer worker.stop()

	// A clone made through the gateway; its store then holds the sample
	// 200 times.
	data := t.TempDir()
	args := []string{"-data", data, "-upstream", worker.url, "-upstream-key", gatewayKey}
	s := startChild(t, bin, true, args...)
	key := s.key
	if st, body := s.upload(t, "seed", voiceWAV(10, 140)); st != 201 {
		s.stop()
		t.Fatalf("cloning through the gateway: %d %s", st, body)
	}
	s.stop()
	if st, err = sqlite.Open(ctx, filepath.Join(data, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	seed, err := st.DeleteVoice(ctx, "local", "seed")
	st.Close()
	if err != nil || len(seed.Sample) < 100_000 {
		t.Fatalf("the seed clone: %d bytes of sample, %v", len(seed.Sample), err)
	}

	none := startChild(t, bin, false, args...)
	rss0 := settledRSS(t, none)
	none.stop()

	if st, err = sqlite.Open(ctx, filepath.Join(data, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		v := seed
		v.ID, v.Name = fmt.Sprintf("c%03d", i), fmt.Sprintf("Clone %d", i)
		if _, err := st.CreateVoice(ctx, v, 0); err != nil {
			st.Close()
			t.Fatal(err)
		}
	}
	st.Close()

	many := startChild(t, bin, false, args...)
	many.key = key
	rss200 := settledRSS(t, many)
	status, body := many.call(t, "POST", "/v1/audio/speech", `{"voice":"c123","input":"Hello there.","response_format":"pcm"}`)
	many.stop()
	t.Logf("gateway start RSS: %.0f MiB with no clone stored, %.0f MiB with 200 of %d kB (+%.0f MiB)", rss0, rss200, len(seed.Sample)/1000, rss200-rss0)
	if status != 200 {
		t.Errorf("a stored clone through the gateway after its restart: %d %s", status, body)
	}
	if grew := (rss200 - rss0) * (1 << 20); grew > startBound {
		t.Errorf("200 stored clones grew the gateway's start RSS by %.0f MiB, the bound is %d MiB", rss200-rss0, startBound>>20)
	}
}
