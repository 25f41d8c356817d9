package wyoming_test

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/server/servertest"
)

// wyomingFloodBound is the most the process's peak resident memory may
// grow while 250 Wyoming connections each send most of a 4 MiB payload
// (docs/server.md, Wyoming).
const wyomingFloodBound = 200 << 20

// TestWyomingPayloadFlood: 250 connections each announce a 4 MiB payload
// and send all of it but the last byte; once all have, each sends the
// last byte and a describe, and is answered. The server holds none of
// the payloads (no event it reads carries one), so its peak resident
// memory stays within wyomingFloodBound, and a new connection is
// answered.
func TestWyomingPayloadFlood(t *testing.T) {
	testserver.MeasuresMemory(t, "sends 1 GB over loopback")
	e := testserver.New(t, testserver.Options{WyomingPeer: -1}) // all 250 from one address
	addr := testserver.StartWyoming(t, e)
	const conns = 250
	payload := make([]byte, wyoming.MaxPayload-1)
	header := `{"type":"audio-chunk","data":{"rate":22050,"width":2,"channels":1},"payload_length":` +
		strconv.Itoa(wyoming.MaxPayload) + "}\n"
	growth := servertest.PeakRSSGrowth(t)
	flood := make([]*testserver.WyomingClient, conns)
	var wg sync.WaitGroup
	for i := range flood {
		c := testserver.DialWyoming(t, addr)
		flood[i] = c
		wg.Go(func() {
			if _, err := io.WriteString(c.C, header); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.C.Write(payload); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, c := range flood {
		wg.Go(func() {
			c.C.Write([]byte{0})
			if err := wyoming.Write(c.C, "describe", nil, nil); err != nil {
				t.Error(err)
				return
			}
			if ev, err := wyoming.ReadSkippingPayload(c.R); err != nil || ev.Type != "info" {
				t.Errorf("describe after the payload: %s %v", ev.Type, err)
			}
		})
	}
	wg.Wait()
	d := testserver.DialWyoming(t, addr)
	d.Send("describe", nil)
	if ev := d.Next(); ev.Type != "info" {
		t.Errorf("a new connection after the flood: %s %v", ev.Type, ev.Data)
	}
	grew := growth()
	t.Logf("%d connections × %d MiB announced: peak RSS +%.0f MB", conns, wyoming.MaxPayload>>20, float64(grew)/1e6)
	if grew > wyomingFloodBound {
		t.Errorf("peak RSS grew by %d MB, the bound is %d MB", grew>>20, wyomingFloodBound>>20)
	}
}

// TestWyomingPayloadSkipped: a payload on an event the server reads is
// skipped, and the event served; a payload over the limit is still an
// error.
func TestWyomingPayloadSkipped(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	if err := wyoming.Write(c.C, "describe", nil, bytes.Repeat([]byte{1}, 100000)); err != nil {
		t.Fatal(err)
	}
	if ev := c.Next(); ev.Type != "info" {
		t.Fatalf("describe with a payload: %s %v", ev.Type, ev.Data)
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "fake"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("after the payload: no audio")
	}
	io.WriteString(c.C, `{"type":"describe","payload_length":`+strconv.Itoa(wyoming.MaxPayload+1)+"}\n")
	if ev := c.Next(); ev.Type != "error" || ev.String("code") != "too_large" {
		t.Errorf("a payload over the limit: %s %v", ev.Type, ev.Data)
	}
}

// TestWyomingConnectionLimit: past Options.WyomingMaxConns a connection
// gets a server_busy error event and is closed; the limit is logged once
// for the burst, and a connection is answered again once one has closed.
func TestWyomingConnectionLimit(t *testing.T) {
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{WyomingConns: 4, WyomingPeer: -1, Log: &log})
	addr := testserver.StartWyoming(t, e)
	var held []*testserver.WyomingClient
	for range 4 {
		c := testserver.DialWyoming(t, addr)
		c.Send("describe", nil)
		if ev := c.Next(); ev.Type != "info" {
			t.Fatalf("connection %d: %s", len(held), ev.Type)
		}
		held = append(held, c)
	}
	for i := range 20 {
		c := testserver.DialWyoming(t, addr)
		ev, err := wyoming.Read(c.R)
		if err != nil || ev.Type != "error" || ev.String("code") != "server_busy" || !strings.Contains(ev.String("text"), "4") {
			t.Fatalf("connection %d over the limit: %s %v %v", i, ev.Type, ev.Data, err)
		}
		if _, err := wyoming.Read(c.R); !errors.Is(err, io.EOF) {
			t.Errorf("connection %d over the limit stayed open: %v", i, err)
		}
	}
	if n := strings.Count(log.String(), "connection limit reached"); n != 1 {
		t.Errorf("the limit was logged %d times for one burst, want once:\n%s", n, log.String())
	}
	held[0].C.Close()
	// Busy until the server has seen the close.
	answered := wait.For(30*time.Second, func() bool {
		c := testserver.DialWyoming(t, addr)
		c.Send("describe", nil)
		ev, err := wyoming.Read(c.R)
		if err == nil && ev.Type == "info" {
			return true
		}
		if err != nil || ev.String("code") != "server_busy" {
			t.Fatalf("after a connection closed: %s %v %v", ev.Type, ev.Data, err)
		}
		return false
	})
	if !answered {
		t.Fatal("still busy 30 s after a connection closed")
	}
}

// TestWyomingEventTimeout: an event begun and not finished within the
// event timeout is an error event and the connection closes; a
// connection that waits longer than that before an event is served.
func TestWyomingEventTimeout(t *testing.T) {
	e := testserver.New(t, testserver.Options{WyomingEvent: 200 * time.Millisecond})
	addr := testserver.StartWyoming(t, e)
	idle := testserver.DialWyoming(t, addr)
	half := testserver.DialWyoming(t, addr)
	io.WriteString(half.C, `{"type":"describe","data_length":10}`+"\n{")
	ev, err := wyoming.Read(half.R)
	if err != nil || ev.Type != "error" || ev.String("code") != "timeout" {
		t.Fatalf("a half-sent event: %s %v %v", ev.Type, ev.Data, err)
	}
	if _, err := wyoming.Read(half.R); !errors.Is(err, io.EOF) {
		t.Errorf("the connection stayed open after a half-sent event: %v", err)
	}
	// idle has waited longer than the event timeout.
	idle.Send("describe", nil)
	if ev := idle.Next(); ev.Type != "info" {
		t.Errorf("after waiting: %s %v", ev.Type, ev.Data)
	}
}

// TestWyomingErrorsEchoLittle: an error event repeats at most
// wyoming.MaxEcho bytes of a voice name or text_format, and never names a
// Go type, whatever the client sent.
func TestWyomingErrorsEchoLittle(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	long := strings.Repeat("v", 100000)
	goNames := []string{"Go ", "server.", "wyomingVoice", "json:", "map[", "struct"}
	check := func(what string, ev wyoming.Event) {
		t.Helper()
		text := ev.String("text")
		if ev.Type != "error" || ev.String("code") == "" || len(text) > 200 {
			t.Errorf("%s: %s %v (%d bytes of text)", what, ev.Type, ev.String("code"), len(text))
		}
		for _, name := range goNames {
			if strings.Contains(text, name) {
				t.Errorf("%s: the error names Go's %q: %s", what, name, text)
			}
		}
	}
	for what, data := range map[string]map[string]any{
		"long voice name":   {"text": "Hi.", "voice": map[string]any{"name": long}},
		"long speaker":      {"text": "Hi.", "voice": map[string]any{"name": "en-us", "speaker": long}},
		"long text_format":  {"text": "Hi.", "text_format": long},
		"voice as a string": {"text": "Hi.", "voice": "en-us"},
		"name as a number":  {"text": "Hi.", "voice": map[string]any{"name": 5}},
	} {
		c.Send("synthesize", data)
		check(what, c.Next())
	}
	c.Send("synthesize", map[string]any{"text": "Still here.", "voice": map[string]any{"name": "fake"}})
	if pcm, _, _ := c.Audio(); len(pcm) == 0 {
		t.Error("after the errors: no audio")
	}
	// A malformed header is an error event too, then the connection ends.
	for what, line := range map[string]string{
		"type as a number": `{"type":5}`,
		"data as a list":   `{"type":"describe","data":[1]}`,
		"not JSON":         `hello`,
	} {
		d := testserver.DialWyoming(t, c.C.RemoteAddr().String())
		io.WriteString(d.C, line+"\n")
		check(what, d.Next())
		if _, err := wyoming.Read(d.R); err == nil {
			t.Errorf("%s: the connection stayed open", what)
		}
	}
}
