package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// slowResponse is a ResponseWriter whose every write and flush takes
// delay, as a client that reads slowly makes them.
type slowResponse struct {
	*httptest.ResponseRecorder
	delay time.Duration
}

func (s slowResponse) Write(p []byte) (int, error) {
	time.Sleep(s.delay)
	return s.ResponseRecorder.Write(p)
}

func (s slowResponse) Flush() {
	time.Sleep(s.delay)
	s.ResponseRecorder.Flush()
}

// TestGatewayLeavesOutSending checks that x-gateway-ms leaves out the time
// writes to the client take, for a stream (pcm, SSE) as for a clip, so
// that x-gateway-ms − x-upstream-ms is the server's own overhead.
func TestGatewayLeavesOutSending(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	const delay = 30 * time.Millisecond
	for _, c := range []struct {
		name, body string
		slow       int // writes or flushes at least, each of delay
	}{
		{"pcm", `"response_format":"pcm"`, 3}, // one per sentence
		{"sse", `"response_format":"pcm","stream_format":"sse"`, 3},
		{"wav", `"response_format":"wav"`, 1}, // sent after the headers
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"voice":"fake","input":"One. Two. Three.",` + c.body + `}`
			req := httptest.NewRequest(http.MethodPost, "/v1/audio/speech", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+e.Key)
			w := slowResponse{httptest.NewRecorder(), delay}
			start := time.Now()
			e.Server.ServeHTTP(w, req)
			total := time.Since(start)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			// Headers of a clip, trailers (set after the body) of a stream.
			gw, err := strconv.ParseFloat(w.Header().Get("x-gateway-ms"), 64)
			if err != nil {
				t.Fatal(err)
			}
			up, _ := strconv.ParseFloat(w.Header().Get("x-upstream-ms"), 64)
			if sending := total - time.Duration(gw*float64(time.Millisecond)); sending < time.Duration(c.slow)*delay {
				t.Errorf("x-gateway-ms %.3f of %v in all: it counts the sending", gw, total)
			}
			if gw < up {
				t.Errorf("x-gateway-ms %.3f below x-upstream-ms %.3f", gw, up)
			}
		})
	}
}
