package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	wyomingAddr := "127.0.0.1:" + itoa(freePort(t, net.IPv4(127, 0, 0, 1)))
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

// TestWyomingZeroconf: -wyoming-zeroconf announces a listener on an
// interface's address over mDNS, where a query for _wyoming._tcp finds it
// at that address and port.
func TestWyomingZeroconf(t *testing.T) {
	ip := multicastAddress(t)
	port := freePort(t, ip)
	var out, errOut bytes.Buffer
	_, stop, done := serve(t, newApp(&out, &errOut), &errOut, "-data", t.TempDir(),
		"-wyoming-addr", net.JoinHostPort(ip.String(), itoa(port)), "-wyoming-zeroconf")
	defer func() { stop(); <-done }()
	if e := queryWyoming(t, port, answerWait); e == nil || !e.AddrV4.Equal(ip) {
		t.Errorf("no _wyoming._tcp service at %s port %d answered: %v", ip, port, e)
	}
}

// TestWyomingZeroconfLoopback: a listener on loopback is not announced on
// the network (no other host can reach it), and the log says why.
func TestWyomingZeroconfLoopback(t *testing.T) {
	t.Parallel() // it waits out a query, as TestMDNSOnItsInterfacesOnly does
	multicastAddress(t)
	port := freePort(t, net.IPv4(127, 0, 0, 1))
	addr := "127.0.0.1:" + itoa(port)
	_, log, err := start(t, "-data", t.TempDir(), "-addr", "127.0.0.1:0", "-wyoming-addr", addr, "-wyoming-zeroconf")
	if err != nil || !strings.Contains(log, "level=WARN") || !strings.Contains(log, "cannot reach") {
		t.Fatalf("no warning for a loopback listener (%v):\n%s", err, log)
	}
	var out, errOut bytes.Buffer
	_, stop, done := serve(t, newApp(&out, &errOut), &errOut, "-data", t.TempDir(), "-wyoming-addr", addr, "-wyoming-zeroconf")
	defer func() { stop(); <-done }()
	if e := queryWyoming(t, port, silenceWait()); e != nil {
		t.Errorf("a loopback listener was announced on the network: %v", e)
	}
}

// TestAnnounceOn: the interfaces and addresses a listener is announced
// with.
func TestAnnounceOn(t *testing.T) {
	eth := iface{Interface: net.Interface{Index: 2, Name: "eth0"}, ips: []net.IP{net.ParseIP("192.168.1.5"), net.ParseIP("fe80::1")}}
	wlan := iface{Interface: net.Interface{Index: 3, Name: "wlan0"}, ips: []net.IP{net.ParseIP("10.0.0.7")}}
	v6 := iface{Interface: net.Interface{Index: 4, Name: "v6only"}, ips: []net.IP{net.ParseIP("fd00::2")}}
	ifs := []iface{eth, wlan, v6}
	for _, c := range []struct {
		listen string
		want   string
	}{
		{"0.0.0.0", "eth0 [192.168.1.5] wlan0 [10.0.0.7]"},
		{"::", "eth0 [192.168.1.5] wlan0 [10.0.0.7]"},
		{"10.0.0.7", "wlan0 [10.0.0.7]"},
		{"fd00::2", "v6only [fd00::2]"},
		{"192.168.9.9", ""},
	} {
		var got []string
		for _, i := range announceOn(net.ParseIP(c.listen), ifs) {
			got = append(got, i.Name, fmt.Sprint(i.ips))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.listen, strings.Join(got, " "), c.want)
		}
	}
}

// TestMDNSOnItsInterfacesOnly: the responder answers a query that
// arrives on an interface it announces on, and not one that arrives on
// another.
func TestMDNSOnItsInterfacesOnly(t *testing.T) {
	t.Parallel() // it waits out a query, as TestWyomingZeroconfLoopback does
	ip := multicastAddress(t)
	ifs, _ := systemInterfaces()
	targets := announceOn(ip, ifs)
	svc, err := mdns.NewMDNSService("voxkit", "_wyoming._tcp", "", "test.local.", 10299, []net.IP{ip}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		index  int
		answer bool
	}{{targets[0].Index, true}, {targets[0].Index + 1000, false}} {
		stop, err := respondMDNS(targets, map[int]mdns.Zone{c.index: svc})
		if err != nil {
			t.Fatal(err)
		}
		wait := answerWait
		if !c.answer {
			wait = silenceWait()
		}
		found := queryWyoming(t, 10299, wait) != nil
		stop()
		if found != c.answer {
			t.Errorf("a zone for interface %d (the query's is %d): answered %v", c.index, targets[0].Index, found)
		}
	}
}

// answerWait is how long a query waits for an answer that should come
// (a responder on this host answers within milliseconds).
const answerWait = 3 * time.Second

// silenceWait is how long a query waits to be sure no answer comes: as
// long as for one that should come, but under -short a fraction of it,
// the rest of the wait left to make test.
func silenceWait() time.Duration {
	if testing.Short() {
		return answerWait / 6
	}
	return answerWait
}

// queryWyoming asks for _wyoming._tcp over mDNS, on IPv4, and returns
// voxkit's answer for port as soon as it arrives, or nil after wait.
func queryWyoming(t *testing.T, port int, wait time.Duration) *mdns.ServiceEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	// The query sends without blocking, and goes on until its timeout
	// even once ctx is done: nothing waits for it.
	entries := make(chan *mdns.ServiceEntry, 16)
	p := mdns.DefaultParams("_wyoming._tcp")
	p.Entries, p.Timeout, p.DisableIPv6 = entries, wait, true
	p.Logger = log.New(io.Discard, "", 0)
	go mdns.QueryContext(ctx, p)
	for {
		select {
		case e := <-entries:
			if strings.HasPrefix(e.Name, "voxkit.") && e.Port == port {
				return e
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// multicastAddress returns an IPv4 address of an interface, besides
// loopback, that is up and does multicast; it skips the test when there
// is none.
func multicastAddress(t *testing.T) net.IP {
	t.Helper()
	ifs, _ := systemInterfaces()
	for _, i := range ifs {
		for _, ip := range i.ips {
			if ip.To4() != nil {
				return ip
			}
		}
	}
	t.Skip("no multicast interface with an IPv4 address is up")
	return nil
}

// freePort returns a TCP port free on ip.
func freePort(t *testing.T, ip net.IP) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
