package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// scripted is a store.VoiceWatcher whose changes the test sends one at a
// time, as a shared store would report the writes of other servers.
type scripted struct {
	*sqlite.Store
	changes  chan [2]string // account, id
	applied  chan struct{}  // a change's callback has returned
	returned chan struct{}  // WatchVoices has returned
}

var _ store.VoiceWatcher = (*scripted)(nil)

func (s *scripted) WatchVoices(ctx context.Context, changed func(account, id string)) {
	defer close(s.returned)
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-s.changes:
			changed(c[0], c[1])
			s.applied <- struct{}{}
		}
	}
}

// send reports a change and waits until the server has applied it.
func (s *scripted) send(t *testing.T, account, id string) {
	t.Helper()
	for _, step := range []func(){func() { s.changes <- [2]string{account, id} }, func() { <-s.applied }} {
		done := make(chan struct{})
		go func() { step(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("change (%q, %q) not taken or applied", account, id)
		}
	}
}

// TestVoiceWatcher: a server whose store is a store.VoiceWatcher brings
// its catalog in line with clones other servers wrote — one clone for a
// change with ids, all of them for ("", "") — and Shutdown stops the
// watch.
func TestVoiceWatcher(t *testing.T) {
	w := &scripted{changes: make(chan [2]string), applied: make(chan struct{}), returned: make(chan struct{})}
	e := testserver.New(t, testserver.Options{Wrap: func(st *sqlite.Store) store.Store { w.Store = st; return w }})
	ctx := context.Background()
	behind := func(id string) {
		t.Helper()
		if _, err := e.Store.CreateVoice(ctx, store.Voice{ID: id, Account: "local", Base: "en-us", Speed: 1.5, Range: 1, Volume: 1}, 0); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want map[string]bool) {
		t.Helper()
		models := e.Models(e.Key)
		for id, listed := range want {
			st, _ := e.Speak(e.Key, id)
			if (models[id] == "user") != listed || (st == 200) != listed {
				t.Errorf("%s: %s listed as %q, speech %d; want it there: %v", when, id, models[id], st, listed)
			}
		}
	}

	// Written behind the server's back: not served until a change says so.
	behind("anna")
	check("before the change", map[string]bool{"anna": false})
	w.send(t, "local", "anna")
	check("after (local, anna)", map[string]bool{"anna": true})

	// Changes that were missed: ("", "") reloads every clone.
	behind("bert")
	if _, err := e.Store.DeleteVoice(ctx, "local", "anna"); err != nil {
		t.Fatal(err)
	}
	check("before the reload", map[string]bool{"anna": true, "bert": false})
	w.send(t, "", "")
	check("after the reload", map[string]bool{"anna": false, "bert": true})

	// A deletion reported with its ids; a change of a clone that is not
	// there (made and deleted meanwhile) is nothing.
	if _, err := e.Store.DeleteVoice(ctx, "local", "bert"); err != nil {
		t.Fatal(err)
	}
	w.send(t, "local", "bert")
	w.send(t, "other", "never")
	check("after (local, bert)", map[string]bool{"anna": false, "bert": false})

	// The server's own writes still reach its catalog at once.
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"carl","name":"Carl","base_voice":"en-gb"}`, nil); st != 201 {
		t.Fatalf("create over HTTP: %d", st)
	}
	check("made over HTTP", map[string]bool{"carl": true})
	w.send(t, "local", "carl") // its own notification: no change
	check("its own change reported", map[string]bool{"carl": true})

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := e.Server.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.returned:
	default:
		t.Error("Shutdown returned while WatchVoices ran")
	}
}
