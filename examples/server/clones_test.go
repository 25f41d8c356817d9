package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// startBound is how much more resident memory a server may start with
// holding 200 stored clones than holding none (issue 40, point 7).
const startBound = 50 << 20

// TestStartMemoryWithClones: 200 voice clones cloned from 10 s
// recordings, stored in the store, add at most startBound to the
// server's resident memory at start (they load when spoken), and one of
// them speaks after the restart. The server runs in a process of its
// own, whose RSS is read from /proc.
func TestStartMemoryWithClones(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and starts it three times")
	}
	if raceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless")
	}
	bin := serverBinary(t)
	voicesDir := t.TempDir()
	generatePocket(t, filepath.Join(voicesDir, "pocket-gen"))
	startMemoryWithClones(t, bin, "", "-data", t.TempDir(), "-voices", voicesDir)
}

// startMemoryWithClones clones a voice through the server that args
// start (what names it in messages: "" or "gateway "), stores its sample
// 200 times in the server's store, and checks that they grow its start
// RSS by at most startBound and that one of them speaks after the
// restart.
func startMemoryWithClones(t *testing.T, bin, what string, args ...string) {
	t.Helper()
	data := args[slices.Index(args, "-data")+1]
	// A clone made the way a client makes one; the store then holds
	// its sample 200 times.
	s := startChild(t, bin, true, args...)
	key := s.key
	if st, body := s.upload(t, "seed", voiceWAV(10, 140)); st != 201 {
		s.stop()
		t.Fatalf("cloning through the %sserver: %d %s", what, st, body)
	}
	s.stop()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(data, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	seed, err := st.DeleteVoice(ctx, "local", "seed")
	st.Close()
	if err != nil || len(seed.Sample) < 100_000 {
		t.Fatalf("the seed clone: %d bytes of sample, %v", len(seed.Sample), err)
	}

	none := startChild(t, bin, false, args...)
	rss0 := settledRSS(t, none)
	none.stop()

	if st, err = sqlite.Open(ctx, filepath.Join(data, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		v := seed
		v.ID, v.Name = fmt.Sprintf("c%03d", i), fmt.Sprintf("Clone %d", i)
		if _, err := st.CreateVoice(ctx, v, 0); err != nil {
			st.Close()
			t.Fatal(err)
		}
	}
	st.Close()

	many := startChild(t, bin, false, args...)
	many.key = key
	rss200 := settledRSS(t, many)
	status, body := many.call(t, "POST", "/v1/audio/speech", `{"voice":"c123","input":"Hello there.","response_format":"pcm"}`)
	many.stop()
	t.Logf("%sstart RSS: %.0f MiB with no clone stored, %.0f MiB with 200 of %d kB (+%.0f MiB)", what, rss0, rss200, len(seed.Sample)/1000, rss200-rss0)
	if status != 200 {
		t.Errorf("a stored clone after the %sserver's restart: %d %s", what, status, body)
	}
	if grew := (rss200 - rss0) * (1 << 20); grew > startBound {
		t.Errorf("200 stored clones grew the %sserver's start RSS by %.0f MiB, the bound is %d MiB", what, rss200-rss0, startBound>>20)
	}
}

// TestAlternatingVoicesLoadLimit: under a -voice-memory that holds one
// clone, speaking one clone again and again loads it once and is never
// refused, but alternating two loads one each time, and past the
// account's voice loads a minute (the default -voice-loads) such a
// request is a 429 rate_limit_exceeded with Retry-After — while the
// clone in memory still speaks.
func TestAlternatingVoicesLoadLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("loads clones again and again, for seconds; make test runs it")
	}
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	voicesDir := t.TempDir()
	generatePocket(t, filepath.Join(voicesDir, "pocket-gen"))
	// A 2 s clone is 25 latents of 1024 floats: 100 kB. 150 kB holds one.
	addr, key, cancel, done := serveVoices(t, voicesDir, "-voice-memory", "150kB")
	defer func() { cancel(); <-done }()
	s := &childServer{url: "http://" + addr.String(), key: key}
	for _, id := range []string{"one", "two"} {
		if st, body := s.upload(t, id, voiceWAV(2, 150)); st != 201 {
			t.Fatalf("cloning %s: %d %s", id, st, body)
		}
	}
	speak := func(voice string) (*http.Response, string) {
		return s.post(t, `{"voice":"`+voice+`","input":"Hi.","response_format":"pcm"}`)
	}
	for i := range 40 {
		if res, body := speak("one"); res.StatusCode != 200 {
			t.Fatalf("the same clone, request %d: %s %s", i+1, res.Status, body)
		}
	}
	const most = 200 // far past the default -voice-loads, however slow the machine
	for i := range most {
		voice := []string{"two", "one"}[i%2]
		res, body := speak(voice)
		if res.StatusCode == 200 {
			continue
		}
		var e struct {
			Error struct{ Type, Code, Message string }
		}
		json.Unmarshal([]byte(body), &e)
		if res.StatusCode != 429 || e.Error.Code != "rate_limit_exceeded" || !strings.Contains(e.Error.Message, "voice loads") || res.Header.Get("Retry-After") == "" {
			t.Fatalf("alternating, request %d: %s Retry-After %q %s", i+1, res.Status, res.Header.Get("Retry-After"), body)
		}
		t.Logf("alternating clones: refused at request %d: %s", i+1, e.Error.Message)
		other := []string{"two", "one"}[(i+1)%2] // the clone in memory
		if res, body := speak(other); res.StatusCode != 200 {
			t.Errorf("the clone in memory after the refusal: %s %s", res.Status, body)
		}
		return
	}
	t.Fatalf("%d requests alternating two clones under a -voice-memory that holds one were all served: voice loads are not counted", most)
}

// voiceWAV is seconds of a voiced sound at pitch Hz (harmonics with a
// vibrato and a syllable rhythm) at 24 kHz, as a WAV file: a recording
// that clones.
func voiceWAV(seconds, pitch float64) []byte {
	n := int(seconds * 24000)
	wav := encode.WAVHeader(encode.WAVPCM, 24000, 16, uint32(2*n))
	for i := range n {
		t := float64(i) / 24000
		f := pitch * (1 + 0.04*math.Sin(2*math.Pi*5*t))
		x := 0.0
		for h := 1.0; h <= 6; h++ {
			x += math.Sin(2*math.Pi*f*h*t) / h
		}
		x *= 0.25 * (0.6 + 0.4*math.Sin(2*math.Pi*3*t))
		wav = binary.LittleEndian.AppendUint16(wav, uint16(int16(x*32000)))
	}
	return wav
}

// startChild runs the server binary with args on a free port until it
// answers /healthz; with firstStart it waits for the key it prints.
// started is the time from exec to that answer.
func startChild(t testing.TB, bin string, firstStart bool, args ...string) *childServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append(args, "-addr", addr, "-log", "off")...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	keyc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if k := keyOf(sc.Text()); k != "" {
				keyc <- k
			}
		}
	}()
	start := time.Now()
	s := &childServer{cmd: cmd, url: "http://" + addr}
	deadline := start.Add(time.Minute)
	for {
		if res, err := http.Get(s.url + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			t.Fatal("the server did not answer /healthz within a minute")
		}
		time.Sleep(2 * time.Millisecond)
	}
	s.started = time.Since(start)
	if firstStart {
		select {
		case s.key = <-keyc:
		case <-time.After(time.Minute):
			s.stop()
			t.Fatal("the server printed no API key")
		}
	}
	return s
}

// settledRSS is s's resident memory in MiB once its start's work is done:
// the lowest of a few readings a moment apart.
func settledRSS(t testing.TB, s *childServer) float64 {
	low := math.Inf(1)
	for range 5 {
		time.Sleep(300 * time.Millisecond)
		low = min(low, s.rss(t))
	}
	return low
}

// upload clones a voice of the WAV recording as id.
func (s *childServer) upload(t testing.TB, id string, wav []byte) (int, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("name", id)
	mw.WriteField("id", id)
	fw, _ := mw.CreateFormFile("audio", id+".wav")
	fw.Write(wav)
	mw.Close()
	req, _ := http.NewRequest("POST", s.url+"/v1/voices", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return s.do(t, req)
}

// call sends a JSON request to s.
func (s *childServer) call(t testing.TB, method, path, body string) (int, string) {
	req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.do(t, req)
}

// post sends a speech request and returns the response (its body read).
func (s *childServer) post(t testing.TB, body string) (*http.Response, string) {
	req, _ := http.NewRequest("POST", s.url+"/v1/audio/speech", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return s.send(t, req)
}

func (s *childServer) do(t testing.TB, req *http.Request) (int, string) {
	res, body := s.send(t, req)
	return res.StatusCode, body
}

// send sends req with s's key and returns the response, its body read.
func (s *childServer) send(t testing.TB, req *http.Request) (*http.Response, string) {
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return res, b.String()
}
