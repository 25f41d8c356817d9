//go:build cgo

package testserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/wyoming"
)

// WyomingClient speaks to a Wyoming listener as Home Assistant does.
type WyomingClient struct {
	T *testing.T
	C net.Conn
	R *bufio.Reader
}

func DialWyoming(t *testing.T, addr string) *WyomingClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	return &WyomingClient{T: t, C: c, R: bufio.NewReader(c)}
}

func (w *WyomingClient) Send(typ string, data any) {
	w.T.Helper()
	if err := wyoming.Write(w.C, typ, data, nil); err != nil {
		w.T.Fatal(err)
	}
}

func (w *WyomingClient) Next() wyoming.Event {
	w.T.Helper()
	e, err := wyoming.Read(w.R)
	if err != nil {
		w.T.Fatal(err)
	}
	return e
}

// Audio reads audio-start, the chunks and audio-stop, and returns the
// 16-bit PCM, its rate and how many chunks carried it.
func (w *WyomingClient) Audio() (pcm []byte, rate, chunks int) {
	w.T.Helper()
	e := w.Next()
	if e.Type != "audio-start" || string(e.Data["width"]) != "2" || string(e.Data["channels"]) != "1" {
		w.T.Fatalf("first event %s %v, want audio-start of 16-bit mono", e.Type, e.Data)
	}
	json.Unmarshal(e.Data["rate"], &rate)
	var buf bytes.Buffer
	for {
		e := w.Next()
		switch e.Type {
		case "audio-chunk":
			if string(e.Data["rate"]) != strconv.Itoa(rate) {
				w.T.Fatalf("audio-chunk at %s Hz after audio-start at %d Hz", e.Data["rate"], rate)
			}
			buf.Write(e.Payload)
			chunks++
		case "audio-stop":
			return buf.Bytes(), rate, chunks
		default:
			w.T.Fatalf("event %s %v during audio", e.Type, e.Data)
		}
	}
}

// SameLength reports whether 16-bit PCM at rate lasts as long as the
// HTTP API's 24 kHz PCM, within 1%.
func SameLength(pcm []byte, rate int, httpPCM []byte) bool {
	d := float64(len(pcm)) / float64(rate)
	want := float64(len(httpPCM)) / float64(encode.DefaultSampleRate)
	return math.Abs(d-want) <= 0.01*want
}

func StartWyoming(t *testing.T, e *Env) string {
	t.Helper()
	return StartWyomingAs(t, e, "local")
}

// StartWyomingAs serves Wyoming for account on a new local port, and
// returns its address.
func StartWyomingAs(t *testing.T, e *Env, account string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Server.ServeWyoming(l, account) }()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Addr().String()
}

// String returns what the server has logged so far.
func (s *SyncBuffer) String() string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.B.String()
}

// MeasuresMemory skips a test of resident memory that does heavy work
// (what it does, for the skip's reason) under -short, and under the race
// detector.
func MeasuresMemory(t *testing.T, heavy string) {
	t.Helper()
	if testing.Short() {
		t.Skip(heavy)
	}
	if RaceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless; make test runs this test without it")
	}
}
