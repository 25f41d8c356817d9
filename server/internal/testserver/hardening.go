package testserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/wire"
)

// apiError reads an error response and checks its shape.
func APIError(t *testing.T, res *http.Response, status int, code string) wire.Error {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e wire.Error
	if err := json.Unmarshal(b, &e); err != nil || res.StatusCode != status || e.Code != code ||
		res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %s %q (%v); want %d JSON with code %q", res.StatusCode, res.Header.Get("Content-Type"), b, err, status, code)
	}
	return e
}

// syncBuffer is a log destination the server writes while a test reads.
type SyncBuffer struct {
	Mu sync.Mutex
	B  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.B.Write(p)
}

// requestLine waits for the access-log line of the request id and
// returns it.
func (s *SyncBuffer) RequestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s.Mu.Lock()
		sc := bufio.NewScanner(bytes.NewReader(s.B.Bytes()))
		s.Mu.Unlock()
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "request" && m["request_id"] == id {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no access-log line for request %s", id)
	return nil
}
