package main

import (
	"context"
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
	startMemoryWithClones(t, bin, "gateway ", "-data", t.TempDir(), "-upstream", worker.url, "-upstream-key", gatewayKey)
}
