package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShutdownEndsJobEvents: SIGTERM with a long-form job's event stream
// open (the audiobook CLI keeps one open for the whole job) ends the
// stream and stops in good order, where the stream held the HTTP drain
// until -shutdown-timeout and the stop failed with "context deadline
// exceeded".
func TestShutdownEndsJobEvents(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut)
	addr, cancel, done := serve(t, a, &errOut, "-data", t.TempDir(), "-shutdown-timeout", "8s", "-job-workers", "1")
	key := keyOf(out.String())
	// A book that takes far longer to render than this test waits.
	book, _ := json.Marshal(map[string]string{"voice": "alloy", "response_format": "mp3",
		"input": strings.Repeat("The long book goes on and on, one sentence after another. ", 1500)})
	st, body := callAPI(t, addr, key, "POST", "/v1/audio/jobs", string(book))
	var job struct{ ID string }
	if json.Unmarshal([]byte(body), &job); st/100 != 2 || job.ID == "" {
		t.Fatalf("submit: %d %s", st, body)
	}
	req, _ := http.NewRequest("GET", "http://"+addr.String()+"/v1/audio/jobs/"+job.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)
	if !events.Scan() || !strings.HasPrefix(events.Text(), "event: progress") {
		t.Fatalf("events: %d %q", res.StatusCode, events.Text())
	}
	cancel()
	streamEnded := make(chan struct{})
	go func() {
		for events.Scan() {
		}
		close(streamEnded)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown with an event stream open: %v", err)
		}
	case <-time.After(startTimeout):
		t.Fatal("server did not stop")
	}
	select {
	case <-streamEnded:
	case <-time.After(startTimeout):
		t.Fatal("the event stream outlived the server")
	}
}
