package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// TestCrashCooldown: an account's CrashesPerMinute-th crash within a
// minute starts its cooldown, crashes spread wider do not, and another
// account is never refused for it.
func TestCrashCooldown(t *testing.T) {
	var cs crashes
	t0 := time.Unix(1700000000, 0)
	cooldown := 30 * time.Second
	// Spread over more than a minute: never CrashesPerMinute at once.
	for i := range 3 * CrashesPerMinute {
		at := t0.Add(time.Duration(i) * 61 * time.Second / (CrashesPerMinute - 1))
		cs.crashed("spread", at, cooldown)
		if left := cs.coolingDown("spread", at); left != 0 {
			t.Fatalf("crash %d, %d a minute: cooling down %v", i, CrashesPerMinute-1, left)
		}
	}
	t1 := t0.Add(time.Hour)
	for i := range CrashesPerMinute {
		at := t1.Add(time.Duration(i) * time.Second)
		cs.crashed("storm", at, cooldown)
		left := cs.coolingDown("storm", at)
		if last := i == CrashesPerMinute-1; last != (left == cooldown) {
			t.Fatalf("crash %d of %d: cooling down %v", i+1, CrashesPerMinute, left)
		}
	}
	end := t1.Add(time.Duration(CrashesPerMinute-1)*time.Second + cooldown)
	if left := cs.coolingDown("storm", end.Add(-time.Second)); left != time.Second {
		t.Errorf("a second before the end: %v left", left)
	}
	if left := cs.coolingDown("storm", end); left != 0 {
		t.Errorf("at the end: %v left", left)
	}
	if left := cs.coolingDown("other", t1.Add(CrashesPerMinute*time.Second)); left != 0 {
		t.Errorf("another account: %v", left)
	}
	var never crashes
	for i := range 10 * CrashesPerMinute {
		never.crashed("a", t0.Add(time.Duration(i)*time.Millisecond), 0)
	}
	if left := never.coolingDown("a", t0.Add(time.Second)); left != 0 {
		t.Errorf("no cooldown configured: %v", left)
	}
}

// TestCrashLogLimited: one crash log line per crashLogEvery, the next
// counting the crashes left out.
func TestCrashLogLimited(t *testing.T) {
	var cs crashes
	t0 := time.Unix(1700000000, 0)
	logged := 0
	for i := range 100 { // ten a second for ten seconds
		if ok, _ := cs.crashed("a", t0.Add(time.Duration(i)*100*time.Millisecond), 0); ok {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("%d lines for 100 crashes within %v, want 1", logged, crashLogEvery)
	}
	ok, suppressed := cs.crashed("b", t0.Add(crashLogEvery), 0)
	if !ok || suppressed != 99 {
		t.Errorf("after %v: logged %v, suppressed %d, want true, 99", crashLogEvery, ok, suppressed)
	}
}

// TestCrashesCounted: what failed counts as a crash — an engine's
// ErrCrashed, and on a gateway a worker's engine_crashed answer — and
// that a gateway's own key (its account carries all of the gateway's)
// is neither counted nor refused on a worker.
func TestCrashesCounted(t *testing.T) {
	c := &Core{Config: Config{CrashCooldown: time.Minute, Log: slog.New(slog.DiscardHandler)}}
	worker := &fault.Error{Status: http.StatusInternalServerError, Type: fault.TypeServer, Code: fault.CodeEngineCrashed, Message: "crashed"}
	gateway := route.With(context.Background(), &route.Request{Scope: store.ScopeGateway})
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		err     error
		refused bool
	}{
		{"engine", context.Background(), fmt.Errorf("tts: %w", engine.ErrCrashed), true},
		{"worker's answer", context.Background(), worker, true},
		{"gateway's key", gateway, fmt.Errorf("tts: %w", engine.ErrCrashed), false},
		{"another failure", context.Background(), errors.New("tts: broken"), false},
	} {
		account := tc.name
		for range CrashesPerMinute {
			job := Job{Request: tts.Request{Account: account}}
			if werr := c.failed(tc.ctx, &job, tc.err); werr == nil {
				t.Fatalf("%s: no error", tc.name)
			}
		}
		if werr := c.crashCooldown(context.Background(), account); (werr != nil) != tc.refused {
			t.Errorf("%s: after %d, refused: %v", tc.name, CrashesPerMinute, werr)
		}
	}
	for range CrashesPerMinute {
		c.crashes.crashed("gw", time.Now(), time.Minute)
	}
	if werr := c.crashCooldown(gateway, "gw"); werr != nil {
		t.Errorf("a gateway's key refused: %v", werr)
	}
}
