package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server"
)

// TestMaxVoicesFlag: -max-voices bounds the clones an account holds (one
// more is 400 voice_limit_reached) and 0 lifts the bound.
func TestMaxVoicesFlag(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	for _, tc := range []struct {
		flag   string
		clones int // made before the one that must be refused; -1: none is
	}{{"2", 2}, {"0", -1}} {
		t.Run("max-voices="+tc.flag, func(t *testing.T) {
			var out, errOut bytes.Buffer
			a := newApp(&out, &errOut)
			addr, cancel, done := serve(t, a, &errOut, "-data", t.TempDir(), "-max-voices", tc.flag)
			key := keyOf(out.String())
			n := tc.clones
			if n < 0 {
				n = server.DefaultMaxVoicesPerAccount + 1 // past the default bound
			}
			for i := range n {
				if st, body := callAPI(t, addr, key, "POST", "/v1/voices", fmt.Sprintf(`{"id":"v%d","name":"v","base_voice":"en-us"}`, i)); st != 201 {
					t.Fatalf("clone %d: %d %s", i, st, body)
				}
			}
			if tc.clones >= 0 {
				st, body := callAPI(t, addr, key, "POST", "/v1/voices", `{"id":"more","name":"v","base_voice":"en-us"}`)
				if st != 400 || !strings.Contains(body, "voice_limit_reached") {
					t.Errorf("one clone more than %s: %d %s", tc.flag, st, body)
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
