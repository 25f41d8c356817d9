package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/mdns"
)

// TestWyomingFlag: -wyoming-addr starts a Wyoming listener beside the
// HTTP one, which describes the voices of the local account and speaks;
// -wyoming-max-conns 1 refuses a second connection while it is open.
func TestWyomingFlag(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wyomingAddr := l.Addr().String()
	l.Close()
	var out, errOut bytes.Buffer
	_, stop, done := serve(t, newApp(&out, &errOut), &errOut, "-data", t.TempDir(), "-wyoming-addr", wyomingAddr, "-wyoming-max-conns", "1")
	defer func() { stop(); <-done }()
	c, err := net.Dial("tcp", wyomingAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	// read returns an event's type, its data and its payload's length.
	read := func() (string, map[string]any, int) {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Type          string `json:"type"`
			DataLength    int    `json:"data_length"`
			PayloadLength int    `json:"payload_length"`
		}
		json.Unmarshal(line, &h)
		data := map[string]any{}
		if h.DataLength > 0 {
			b := make([]byte, h.DataLength)
			io.ReadFull(r, b)
			json.Unmarshal(b, &data)
		}
		io.CopyN(io.Discard, r, int64(h.PayloadLength))
		return h.Type, data, h.PayloadLength
	}
	io.WriteString(c, `{"type":"describe"}`+"\n")
	typ, data, _ := read()
	if b, _ := json.Marshal(data); typ != "info" || !strings.Contains(string(b), `"en-us"`) {
		t.Fatalf("describe: %s %s", typ, b)
	}
	body := `{"text":"Hello there.","voice":{"name":"en-us"}}`
	io.WriteString(c, `{"type":"synthesize","data_length":`+itoa(len(body))+"}\n"+body)
	audio := 0
	for typ, _, n := read(); typ != "audio-stop"; typ, _, n = read() {
		if typ != "audio-start" && typ != "audio-chunk" {
			t.Fatalf("event %s", typ)
		}
		audio += n
	}
	if audio < 24000 {
		t.Errorf("%d bytes of audio", audio)
	}
	second, err := net.Dial("tcp", wyomingAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetDeadline(time.Now().Add(30 * time.Second))
	if line, _ := bufio.NewReader(second).ReadString('\n'); !strings.Contains(line, `"error"`) {
		t.Errorf("a second connection over -wyoming-max-conns 1: %q", line)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestWyomingZeroconf: -wyoming-zeroconf announces the listener over
// mDNS, where a query for _wyoming._tcp finds it at its port.
func TestWyomingZeroconf(t *testing.T) {
	if !multicastInterface() {
		t.Skip("no multicast interface is up")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var out, errOut bytes.Buffer
	_, stop, done := serve(t, newApp(&out, &errOut), &errOut, "-data", t.TempDir(),
		"-wyoming-addr", "127.0.0.1:"+itoa(port), "-wyoming-zeroconf")
	defer func() { stop(); <-done }()
	entries := make(chan *mdns.ServiceEntry, 16)
	p := mdns.DefaultParams("_wyoming._tcp")
	p.Entries, p.Timeout, p.DisableIPv6 = entries, 3*time.Second, true
	p.Logger = log.New(io.Discard, "", 0)
	go func() { mdns.Query(p); close(entries) }()
	found := false
	for e := range entries {
		found = found || e.Port == port && strings.HasPrefix(e.Name, "voxkit.")
	}
	if !found {
		t.Errorf("no _wyoming._tcp service at port %d answered", port)
	}
}

// multicastInterface reports an interface, besides loopback, that is up
// and does multicast.
func multicastInterface() bool {
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagUp != 0 && i.Flags&net.FlagMulticast != 0 && i.Flags&net.FlagLoopback == 0 {
			return true
		}
	}
	return false
}
