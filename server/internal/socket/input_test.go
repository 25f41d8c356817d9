package socket_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// streamText is ten sentences with tags inside and between them.
const streamText = `<|calm|>The morning was quiet.<|/calm|> Dr. Lee opened the door <|pause:300ms|>and stepped outside. ` +
	`It was 7.5 degrees, colder than she expected! Was the bus late again? <|whisper|>She hoped not.<|/whisper|> ` +
	`The street was empty, the shops still closed; <|emphasis|>nobody<|/emphasis|> else was awake. ` +
	`She walked to the corner and waited. <|breath|>A bird sang somewhere above her. ` +
	`Then the bus came around the bend, right on time. <|rate:1.2|>She smiled and got on.<|/rate|>`

// sentencesOf returns the audio messages' durations at 24 kHz pcm and the
// words of the timestamps messages.
func sentencesOf(events []testserver.WSEvent) (durations []time.Duration, words []testserver.WSWord) {
	for _, e := range events {
		switch e.Typ {
		case "binary":
			durations = append(durations, time.Duration(len(e.Audio)/2)*time.Second/24000)
		case "speech.timestamps":
			words = append(words, e.Words...)
		}
	}
	return durations, words
}

func wordList(words []testserver.WSWord) string {
	var w []string
	for _, x := range words {
		w = append(w, x.Word)
	}
	return strings.Join(w, " ")
}

// The same text, sent whole and sent as fragments of 1 to 5 characters
// (tags split between them), gives the same sentences in order, each as
// long within 2%, the same words, and no tag read aloud; the timestamps
// of the fragments slice the text as sent back to each word.
func TestWSInputStreamSameAsWhole(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "whole", "voice": "en-us", "input": streamText, "timestamps": "word"})
	whole := testserver.ReadContext(t, c)
	wantDur, wantWords := sentencesOf(whole)
	if whole[len(whole)-1].Typ != "speech.done" || len(wantDur) < 10 {
		t.Fatalf("whole: %d audio messages, last %+v", len(wantDur), whole[len(whole)-1])
	}

	rng := rand.New(rand.NewPCG(7, 7))
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "s1", "voice": "en-us", "input_stream": true, "timestamps": "word"})
	sent := streamText
	for rest := sent; rest != ""; {
		n := min(len(rest), 1+rng.IntN(5))
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n++
		}
		testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s1", "text": rest[:n]})
		rest = rest[n:]
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "s1"})
	streamed := testserver.ReadContext(t, c)
	if last := streamed[len(streamed)-1]; last.Typ != "speech.done" || last.Raw["sentences"] != float64(10) {
		t.Fatalf("streamed: last message %+v", last.Raw)
	}
	gotDur, gotWords := sentencesOf(streamed)
	if len(gotDur) != len(wantDur) {
		t.Fatalf("%d audio messages streamed, %d whole", len(gotDur), len(wantDur))
	}
	for i := range gotDur {
		if d := (gotDur[i] - wantDur[i]).Abs(); float64(d) > 0.02*float64(wantDur[i]) {
			t.Errorf("sentence %d: %v streamed, %v whole", i, gotDur[i], wantDur[i])
		}
	}
	if g, w := wordList(gotWords), wordList(wantWords); g != w {
		t.Errorf("words streamed\n%s\nwhole\n%s", g, w)
	}
	if strings.Contains(wordList(gotWords), "pause") || strings.Contains(wordList(gotWords), "whisper") {
		t.Errorf("a tag was read aloud: %s", wordList(gotWords))
	}
	checkTimestamps(t, sent, streamed)
}

// checkTimestamps checks that each timestamps message follows its
// sentence's audio, that its words are in order, do not overlap and lie
// inside that audio, and that char_start and char_end slice the text as
// sent back to each word.
func checkTimestamps(t *testing.T, sent string, events []testserver.WSEvent) {
	t.Helper()
	runes := []rune(sent)
	var audioEnd time.Duration // the end of the audio so far
	var sentenceStart time.Duration
	var prevEnd float64
	index := 0
	for _, e := range events {
		switch e.Typ {
		case "binary":
			audioEnd += time.Duration(len(e.Audio)/2) * time.Second / 24000
		case "speech.timestamps":
			if e.Index != index {
				t.Errorf("timestamps index %d, want %d", e.Index, index)
			}
			index++
			for _, w := range e.Words {
				start, end := time.Duration(w.StartMS*1e6), time.Duration(w.EndMS*1e6)
				if w.StartMS < prevEnd || end <= start || start < sentenceStart-time.Millisecond || end > audioEnd+time.Millisecond {
					t.Errorf("%q at %v–%v: after %vms, sentence audio %v–%v", w.Word, start, end, prevEnd, sentenceStart, audioEnd)
				}
				prevEnd = w.EndMS
				if w.CharStart < 0 || w.CharEnd > len(runes) || w.CharStart >= w.CharEnd || string(runes[w.CharStart:w.CharEnd]) != w.Word {
					t.Errorf("%q: characters [%d,%d) of the text sent are not the word", w.Word, w.CharStart, w.CharEnd)
				}
			}
			sentenceStart = audioEnd
		}
	}
	if index == 0 {
		t.Error("no speech.timestamps message")
	}
}

// A flush in the middle of a sentence speaks the text before it, and
// flush.done follows exactly that text's audio; max_buffer_delay_ms
// speaks an unfinished tail by itself.
func TestWSInputStreamFlush(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "f", "voice": "en-us", "input_stream": true, "timestamps": "word", "input": "Hello there,"})
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "f", "text": " my"})
	testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "f", "flush_id": "f1"})
	var got []testserver.WSEvent
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		typ, data, err := c.Read(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if typ == websocket.MessageBinary {
			got = append(got, testserver.WSEvent{Typ: "binary", Audio: data})
			continue
		}
		var m testserver.WSEvent
		var raw struct {
			Type    string              `json:"type"`
			FlushID string              `json:"flush_id"`
			Words   []testserver.WSWord `json:"words"`
		}
		json.Unmarshal(data, &raw)
		m.Typ, m.FlushID, m.Words = raw.Type, raw.FlushID, raw.Words
		got = append(got, m)
		if m.Typ == "flush.done" || m.Typ == "error" {
			break
		}
	}
	if last := got[len(got)-1]; last.Typ != "flush.done" || last.FlushID != "f1" {
		t.Fatalf("flush answered with %+v", last)
	}
	durs, words := sentencesOf(got)
	if len(durs) != 1 || wordList(words) != "Hello there my" {
		t.Fatalf("before flush.done: %d audio messages, words %q; want the audio of %q", len(durs), wordList(words), "Hello there my")
	}

	// A tail without a sentence end is spoken after max_buffer_delay_ms.
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "d", "voice": "en-us", "input_stream": true, "max_buffer_delay_ms": 100})
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "d", "text": "Waiting for nothing"})
	// f is still open: close it, then d's tail comes by itself.
	testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "f", "text": " friend."})
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "f"})
	rest := testserver.ReadContext(t, c)
	if last := rest[len(rest)-1]; last.Typ != "speech.done" {
		t.Fatalf("f ended with %+v", last.Raw)
	}
	if m := testserver.Next(t, c); m.Type != "speech.started" || m.ID != "d" {
		t.Fatalf("d: %+v", m)
	}
	if m := testserver.Next(t, c); m.Type != "binary" {
		t.Fatalf("d's tail was not spoken by itself: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "d"})
	if m := testserver.Next(t, c); m.Type != "speech.done" || m.ID != "d" {
		t.Fatalf("d: %+v", m)
	}
}

// speech.cancel with an id stops that input stream: speech.cancelled, and
// no audio of it after.
func TestWSInputStreamCancel(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "c1", "voice": "slow", "input_stream": true})
	for range 10 {
		testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "c1", "text": "One more sentence here. "})
	}
	if m := testserver.Next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	if m := testserver.Next(t, c); m.Type != "binary" {
		t.Fatalf("%+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.cancel", "id": "c1"})
	m := testserver.Next(t, c)
	for m.Type == "binary" {
		m = testserver.Next(t, c)
	}
	if m.Type != "speech.cancelled" || m.ID != "c1" {
		t.Fatalf("after cancel: %+v", m)
	}
	// Nothing of c1 follows: the next message answers the next request.
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "after", "voice": "en-us", "input": "Done."})
	if m := testserver.Next(t, c); m.Type != "speech.started" || m.ID != "after" {
		t.Fatalf("after the cancel: %+v", m)
	}
	if n := len(e.Slow.Requests()); n >= 10 {
		t.Errorf("%d sentences synthesized: the cancel did not stop the stream", n)
	}
}

// Bad input-stream messages get errors that say what is wrong, and the
// session goes on; an input stream with no input closes after the idle
// timeout with a message saying why.
func TestWSInputStreamErrors(t *testing.T) {
	e := testserver.New(t, testserver.Options{WSIdle: 400 * time.Millisecond})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	for _, tc := range []struct {
		msg  map[string]any
		code string
	}{
		{map[string]any{"type": "input.append", "id": "nope", "text": "Hi."}, "invalid_value"},
		{map[string]any{"type": "speech.create", "voice": "en-us", "input_stream": true}, "missing_required_parameter"},
		{map[string]any{"type": "speech.create", "id": "x", "voice": "en-us", "input_stream": "yes"}, "invalid_type"},
		{map[string]any{"type": "speech.create", "id": "x", "voice": "en-us", "input_stream": true, "max_buffer_delay_ms": -5}, "invalid_value"},
		{map[string]any{"type": "speech.create", "id": "x", "voice": "en-us", "input": "Hi.", "timestamps": "phoneme"}, "invalid_value"},
	} {
		testserver.SendWS(t, c, tc.msg)
		if m := testserver.Next(t, c); m.Type != "error" || m.Error["code"] != tc.code {
			t.Errorf("%v: %+v, want error %s", tc.msg, m, tc.code)
		}
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "idle", "voice": "en-us", "input_stream": true, "input": "Said. "})
	events := testserver.ReadContext(t, c)
	if last := events[len(events)-1]; last.Typ != "error" || last.Raw["error"].(map[string]any)["code"] != "idle_timeout" {
		t.Fatalf("idle stream ended with %+v", last.Raw)
	}
	if durs, _ := sentencesOf(events); len(durs) != 1 {
		t.Errorf("%d audio messages before the idle timeout, want the text so far", len(durs))
	}

	// Over HTTP, input_stream is refused, and timestamps need SSE.
	for _, body := range []string{
		`{"voice":"en-us","input":"Hi.","input_stream":true}`,
		`{"voice":"en-us","input":"Hi.","timestamps":"word"}`,
	} {
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d", body, res.StatusCode)
		}
		res.Body.Close()
	}
}

// A client that stops reading stalls synthesis: the server holds a few
// sentences for it (its outbox, and what the sockets buffer) and
// synthesizes no further until the client reads again.
func TestWSInputStreamStallsForSlowReader(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	// Each sentence is about 15 s of audio, 720 KB of pcm.
	sentence := strings.Repeat("word ", 50) + "end. "
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "s", "voice": "slow", "input_stream": true})
	const n = 40
	for range n {
		testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": sentence})
	}
	// Unblocked, the 40 sentences take about 2 s (40 ms each, and the
	// audio); wait longer without reading.
	if !wait.Never(3*time.Second, func() bool { return len(e.Slow.Requests()) >= n*3/4 }) {
		t.Fatalf("%d of %d sentences synthesized for a client that reads nothing", len(e.Slow.Requests()), n)
	}
	stalled := len(e.Slow.Requests())
	// Reading again lets it go on to the end.
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "s"})
	events := testserver.ReadContext(t, c)
	// All of the text is spoken: n times one sentence's audio (appends
	// that waited together are split as one text, so the number of
	// sentences may differ).
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "one", "voice": "slow", "input": sentence})
	one := testserver.ReadContext(t, c)
	last, want := events[len(events)-1], n*one[len(one)-1].Raw["audio_ms"].(float64)
	if got, _ := last.Raw["audio_ms"].(float64); last.Typ != "speech.done" || math.Abs(got-want) > want/50 {
		t.Fatalf("after reading: %+v; want %.0f ms of audio", last.Raw, want)
	}
	t.Logf("%d of %d sentences synthesized while the client did not read", stalled, n)
}

// Over HTTP, "stream_format": "sse" with "timestamps": "word" puts each
// sentence's speech.timestamps event after its audio delta.
func TestSSETimestamps(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	input := "Hello there. <|pause:200ms|>How are you?"
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"voice":"en-us","input":"Hello there. <|pause:200ms|>How are you?","stream_format":"sse","timestamps":"word","response_format":"pcm"}`))
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	body := new(strings.Builder)
	if _, err := io.Copy(body, res.Body); err != nil {
		t.Fatal(err)
	}
	var events []testserver.WSEvent
	for _, line := range strings.Split(body.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var m struct {
			Type  string              `json:"type"`
			Audio []byte              `json:"audio"`
			Index int                 `json:"index"`
			Words []testserver.WSWord `json:"words"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		switch m.Type {
		case "speech.audio.delta":
			events = append(events, testserver.WSEvent{Typ: "binary", Audio: m.Audio})
		case "speech.timestamps":
			events = append(events, testserver.WSEvent{Typ: m.Type, Index: m.Index, Words: m.Words})
		}
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev.Typ)
	}
	if got := strings.Join(kinds, " "); got != "binary speech.timestamps binary speech.timestamps" {
		t.Fatalf("events %s, want each sentence's audio then its timestamps", got)
	}
	checkTimestamps(t, input, events)
	if _, words := sentencesOf(events); wordList(words) != "Hello there How are you" {
		t.Errorf("words %q", wordList(words))
	}
}
