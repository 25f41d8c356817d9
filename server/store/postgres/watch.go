package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

var _ store.VoiceWatcher = (*Store)(nil)

// voiceChannel is the NOTIFY channel of clone changes. A notification is
// sent in the transaction of the change, so it is delivered when (and
// only if) the change commits.
const voiceChannel = "voxkit_voices"

// voiceChange is a notification's payload.
type voiceChange struct {
	Account string `json:"account"`
	ID      string `json:"id"`
}

// notifyVoice is the statement that tells the watchers of a change of
// clone id of account (sqlstore.Dialect.VoiceChanged).
func notifyVoice(account, id string) (string, []any) {
	payload, _ := json.Marshal(voiceChange{Account: account, ID: id})
	return "SELECT pg_notify(?, ?)", []any{voiceChannel, string(payload)}
}

// WatchVoices implements store.VoiceWatcher with LISTEN on a connection
// of its own (taken out of the pool). When the connection is lost it
// reconnects, waiting up to 5 s between attempts, and reports ("", "")
// once it listens again: what changed meanwhile is not known. It returns
// when ctx ends or the store is closed.
func (s *Store) WatchVoices(ctx context.Context, changed func(account, id string)) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.watchers.Add(1)
	s.mu.Unlock()
	defer s.watchers.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(s.watchCtx, cancel)()
	defer cancel()

	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		if s.listen(ctx, changed) {
			wait = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// listen listens until its connection fails or ctx ends; it reports
// whether it got as far as listening.
func (s *Store) listen(ctx context.Context, changed func(account, id string)) bool {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return false
	}
	conn := pc.Hijack() // a listening connection never goes back to the pool
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+voiceChannel); err != nil {
		return false
	}
	changed("", "")
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true
		}
		var c voiceChange
		if json.Unmarshal([]byte(n.Payload), &c) == nil && c.Account != "" {
			changed(c.Account, c.ID)
		}
	}
}
