package socket_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// ctxMsg is a message of a concurrent context.
type ctxMsg struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Audio     []byte         `json:"audio"` // speech.audio's, from base64
	Sentences int            `json:"sentences"`
	Error     map[string]any `json:"error"`
	// ContentType is speech.started's.
	ContentType string `json:"content_type"`
}

// ended reports whether m ends its context.
func (m ctxMsg) ended() bool {
	return m.Type == "speech.done" || m.Type == "speech.cancelled" || m.Type == "error"
}

// readContexts reads messages into got, by id, until each of ids has
// ended (speech.done, speech.cancelled or an error). A binary message
// fails the test: the audio of concurrent contexts is tagged.
func readContexts(t *testing.T, c *websocket.Conn, got map[string][]ctxMsg, ids ...string) {
	t.Helper()
	open := func() bool {
		for _, id := range ids {
			if msgs := got[id]; len(msgs) == 0 || !msgs[len(msgs)-1].ended() {
				return true
			}
		}
		return false
	}
	for open() {
		readOne(t, c, got)
	}
}

// readOne reads one message into got, by id.
func readOne(t *testing.T, c *websocket.Conn, got map[string][]ctxMsg) ctxMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	typ, data, err := c.Read(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("a binary message of %d bytes among concurrent contexts", len(data))
	}
	var m ctxMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	got[m.ID] = append(got[m.ID], m)
	return m
}

// audioOf checks that msgs are a whole context: speech.started, then
// speech.audio messages, then speech.done. It returns their audio.
func audioOf(t *testing.T, id string, msgs []ctxMsg) []byte {
	t.Helper()
	if len(msgs) < 2 || msgs[0].Type != "speech.started" || msgs[len(msgs)-1].Type != "speech.done" {
		t.Fatalf("%s: %+v, want speech.started … speech.done", id, msgs)
	}
	var audio []byte
	for _, m := range msgs[1 : len(msgs)-1] {
		if m.Type != "speech.audio" || len(m.Audio) == 0 {
			t.Fatalf("%s: %+v among its audio", id, m)
		}
		audio = append(audio, m.Audio...)
	}
	return audio
}

// appendWords sends the texts of contexts word by word, one word of each
// in turn, so that their input interleaves on the connection.
func appendWords(t *testing.T, c *websocket.Conn, texts map[string]string) {
	t.Helper()
	words := map[string][]string{}
	for id, text := range texts {
		words[id] = strings.SplitAfter(text, " ")
	}
	for more := true; more; {
		more = false
		for id := range texts {
			if w := words[id]; len(w) > 0 {
				testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": id, "text": w[0]})
				words[id], more = w[1:], true
			}
		}
	}
}

func createConcurrent(t *testing.T, c *websocket.Conn, id, voice string) {
	t.Helper()
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": id, "voice": voice, "input_stream": true, "concurrent": true})
}

// Two concurrent input streams on one connection, their text interleaved
// word by word: each gets its own audio, tagged with its id, as long as
// its text spoken alone over HTTP. The second ends while the first is
// still open, which a queue (one context at a time) could not do.
func TestWSConcurrentContexts(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := testserver.New(t, testserver.Options{})
	texts := map[string]string{
		"a": "The morning was quiet. Dr. Lee opened the door and stepped outside. It was colder than she expected!",
		"b": "Was the bus late again? She hoped not. The street was empty, the shops still closed.",
	}
	voices := map[string]string{"a": "en-us", "b": "en-gb"}
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	createConcurrent(t, c, "a", voices["a"])
	createConcurrent(t, c, "b", voices["b"])
	appendWords(t, c, texts)
	got := map[string][]ctxMsg{}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "b"})
	readContexts(t, c, got, "b")
	if msgs := got["a"]; len(msgs) > 0 && msgs[len(msgs)-1].ended() {
		t.Fatalf("a ended before its input.done: %+v", msgs[len(msgs)-1])
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "a"})
	readContexts(t, c, got, "a")
	for _, id := range []string{"a", "b"} {
		audio := audioOf(t, id, got[id])
		want := e.OpenAIPCM(voices[id], texts[id])
		t.Logf("%s: %d bytes of audio, %d for its text alone", id, len(audio), len(want))
		if !testserver.CloseTo(len(audio), len(want), 0.03) {
			t.Errorf("%s: %d bytes of audio, %d for its text alone", id, len(audio), len(want))
		}
		if done := got[id][len(got[id])-1]; done.Sentences != 3 {
			t.Errorf("%s: %d sentences, want 3", id, done.Sentences)
		}
	}
}

// speech.cancel with a concurrent context's id stops that one alone: the
// other goes on to its speech.done with all its audio, and the id is free
// again at once.
func TestWSConcurrentCancelOne(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	createConcurrent(t, c, "long", "slow")
	createConcurrent(t, c, "kept", "en-us")
	kept := "Was the bus late again? She hoped not. The street was empty."
	appendWords(t, c, map[string]string{"long": testserver.Sentences10, "kept": kept})
	got := map[string][]ctxMsg{}
	// Once the long one has audio out, cancel it.
	for len(got["long"]) < 2 {
		readOne(t, c, got)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.cancel", "id": "long"})
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "kept"})
	readContexts(t, c, got, "long", "kept")
	if last := got["long"][len(got["long"])-1]; last.Type != "speech.cancelled" {
		t.Errorf("the cancelled context ended with %+v", last)
	}
	if n := len(e.Slow.Requests()); n >= 10 {
		t.Errorf("%d sentences of the cancelled context synthesized", n)
	}
	audio := audioOf(t, "kept", got["kept"])
	if want := e.OpenAIPCM("en-us", kept); !testserver.CloseTo(len(audio), len(want), 0.03) {
		t.Errorf("the other context: %d bytes of audio, %d for its text alone", len(audio), len(want))
	}
	// The cancelled context's id may name a new one.
	createConcurrent(t, c, "long", "en-us")
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "long", "text": "Again."})
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "long"})
	got = map[string][]ctxMsg{}
	readContexts(t, c, got, "long")
	if len(audioOf(t, "long", got["long"])) == 0 {
		t.Error("no audio for the reopened context")
	}
}

// At most five concurrent contexts are open on a connection: a sixth is
// refused with too_many_contexts and the connection goes on (a queued
// request still runs beside them); once one ends, a new one may open.
// Other misuses are refused at once.
func TestWSConcurrentLimit(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	for _, id := range []string{"c0", "c1", "c2", "c3", "c4"} {
		createConcurrent(t, c, id, "en-us")
	}
	for _, tc := range []struct {
		msg         map[string]any
		code, param string
	}{
		{map[string]any{"type": "speech.create", "id": "c5", "voice": "en-us", "input_stream": true, "concurrent": true}, "too_many_contexts", ""},
		{map[string]any{"type": "speech.create", "id": "whole", "voice": "en-us", "input": "Hi.", "concurrent": true}, "invalid_value", "concurrent"},
		{map[string]any{"type": "speech.create", "id": "bad", "voice": "en-us", "input_stream": true, "concurrent": 1}, "invalid_type", "concurrent"},
	} {
		testserver.SendWS(t, c, tc.msg)
		m := testserver.Next(t, c)
		if m.Type != "error" || m.ID != tc.msg["id"] || m.Error["code"] != tc.code || tc.param != "" && m.Error["param"] != tc.param {
			t.Errorf("%v: %+v, want error %s", tc.msg, m, tc.code)
		}
	}
	// A request of the queue is answered as ever, untagged binary audio.
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "q", "voice": "en-us", "input": "Still here."})
	if m := testserver.Next(t, c); m.Type != "speech.started" || m.ID != "q" {
		t.Fatalf("queued request: %+v", m)
	}
	m := testserver.Next(t, c)
	for m.Type == "binary" {
		m = testserver.Next(t, c)
	}
	if m.Type != "speech.done" || m.ID != "q" {
		t.Fatalf("queued request: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "c0"})
	got := map[string][]ctxMsg{}
	readContexts(t, c, got, "c0")
	if last := got["c0"][len(got["c0"])-1]; last.Type != "speech.done" {
		t.Fatalf("c0 ended with %+v", last)
	}
	createConcurrent(t, c, "c5", "en-us")
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "c5", "text": "Room again."})
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "c5"})
	readContexts(t, c, got, "c5")
	audioOf(t, "c5", got["c5"])
}

// The session's idle timeout does not close a session whose concurrent
// context is at work (200 sentences of 40 ms of the slow voice outlast the
// 6 s), and counts from when it ended: a request sent then is answered
// (the 6 s leave room for a loaded machine: 2 s were once too few under
// the race detector at load 25).
func TestWSConcurrentKeepsSessionBusy(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	const sentences = 200
	e := testserver.New(t, testserver.Options{WSIdle: 6 * time.Second})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	createConcurrent(t, c, "busy", "slow")
	text := strings.Repeat("One more sentence. ", sentences)
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "busy", "text": text})
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "busy"})
	got := map[string][]ctxMsg{}
	readContexts(t, c, got, "busy")
	audioOf(t, "busy", got["busy"])
	if n := got["busy"][len(got["busy"])-1].Sentences; n != sentences {
		t.Errorf("%d sentences, want %d", n, sentences)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "after", "voice": "fake", "input": "Then this."})
	if m := testserver.Next(t, c); m.Type != "speech.started" || m.ID != "after" {
		t.Fatalf("a request right after the concurrent context: %+v", m)
	}
	for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
		if m.Type != "binary" {
			t.Fatalf("a request right after the concurrent context: %+v", m)
		}
	}
	_, _, err := c.Read(t.Context())
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || !strings.Contains(ce.Reason, "idle") {
		t.Errorf("got %v, want a normal closure for being idle", err)
	}
}

// At shutdown each concurrent context speaks what it has, its unfinished
// tail included, and ends with speech.done before the session closes with
// 1001.
func TestWSConcurrentShutdown(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	texts := map[string]string{"s1": "One. Two. Three more", "s2": "Four. Five. Six more"}
	for id := range texts {
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": id, "voice": "slow", "input_stream": true, "concurrent": true,
			"max_buffer_delay_ms": 10000})
	}
	appendWords(t, c, texts)
	// The error for an unknown id follows the input before it.
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "sync", "text": "x"})
	got := map[string][]ctxMsg{}
	for readOne(t, c, got).ID != "sync" {
	}
	done := make(chan error, 1)
	go func() { done <- e.Server.Shutdown(context.Background()) }()
	readContexts(t, c, got, "s1", "s2")
	for id := range texts {
		audioOf(t, id, got[id])
		if n := got[id][len(got[id])-1].Sentences; n != 3 {
			t.Errorf("%s: %d sentences at shutdown, want 3: %+v", id, n, got[id])
		}
	}
	_, _, err := c.Read(context.Background())
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("close: %v", err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// BenchmarkWSConcurrentFirstAudio: how long until the first audio of each
// of n concurrent input streams opened at once on one connection, each
// given a sentence and input.done (p50 and p99 over the streams).
func BenchmarkWSConcurrentFirstAudio(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(strconv.Itoa(n)+"-contexts", func(b *testing.B) {
			e := testserver.New(b, testserver.Options{})
			c := testserver.DialWS(b, e, e.Key)
			ctx := context.Background()
			var m ctxMsg
			if err := wsjson.Read(ctx, c, &m); err != nil { // ready
				b.Fatal(err)
			}
			var samples []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				for k := range n {
					id := fmt.Sprintf("c%d-%d", i, k)
					for _, msg := range []map[string]any{
						{"type": "speech.create", "id": id, "voice": "en-us", "input_stream": true, "concurrent": true},
						{"type": "input.append", "id": id, "text": "The quick brown fox jumps over the lazy dog. "},
						{"type": "input.done", "id": id},
					} {
						if err := wsjson.Write(ctx, c, msg); err != nil {
							b.Fatal(err)
						}
					}
				}
				first := map[string]bool{}
				for done := 0; done < n; {
					m = ctxMsg{}
					if err := wsjson.Read(ctx, c, &m); err != nil {
						b.Fatal(err)
					}
					// if, not switch: go1.26.8's compiler crashes (internal
					// compiler error) on the switch form of this.
					if m.ended() {
						done++
					} else if m.Type == "speech.audio" && !first[m.ID] {
						first[m.ID] = true
						samples = append(samples, time.Since(start))
					}
				}
			}
			testserver.ReportPercentiles(b, "", samples)
		})
	}
}

// A concurrent stream's speech.started names its content type, as a
// queued stream's does (it was "" for concurrent streams).
func TestWSConcurrentStartedContentType(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	for _, f := range []struct{ format, want string }{{"pcm", "audio/pcm"}, {"mp3", "audio/mpeg"}} {
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": f.format, "voice": "en-us", "input_stream": true,
			"concurrent": true, "response_format": f.format, "input": "Hello there."})
		testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": f.format})
		got := map[string][]ctxMsg{}
		for {
			m := readOne(t, c, got)
			if m.Type == "speech.started" && m.ContentType != f.want {
				t.Errorf("%s: speech.started content_type %q, want %q", f.format, m.ContentType, f.want)
			}
			if m.Type == "speech.done" || m.Type == "error" {
				break
			}
		}
	}
}
