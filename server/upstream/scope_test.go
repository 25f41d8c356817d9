package upstream_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/upstream"
)

// TestPoolWarnsOfKeyScope: a gateway whose workers clone from recordings
// asks one what scope its key has (GET /v1/account) and warns once when
// it is not the gateway scope; a gateway key, or a worker that does not
// say, gets no warning.
func TestPoolWarnsOfKeyScope(t *testing.T) {
	for _, tc := range []struct {
		account string
		warn    bool
	}{
		{`{"object":"account","name":"fleet","scope":"speech"}`, true},
		{`{"object":"account","name":"fleet","scope":"gateway"}`, false},
		{`{"object":"account","name":"fleet"}`, false},
	} {
		asked := make(chan struct{}, 100)
		var checks atomic.Int64 // health checks answered
		w := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/readyz":
			case "/v1/models":
				checks.Add(1)
				io.WriteString(w, `{"object":"list","data":[],"clone_models":["m"]}`)
			case "/v1/account":
				asked <- struct{}{}
				io.WriteString(w, tc.account)
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(w.Close)
		var log syncBuffer
		p, err := upstream.New(context.Background(), upstream.Options{URLs: []string{w.URL}, Key: workerKey,
			CheckEvery: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-asked:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the worker was never asked for the key's scope", tc.account)
		}
		// Three more checks: the answer has been read and logged, and
		// the checks after it must not ask again.
		after := checks.Load()
		if !wait.For(5*time.Second, func() bool { return checks.Load() >= after+3 }) {
			t.Fatalf("%s: the health checks stopped", tc.account)
		}
		p.Close()
		warned := strings.Count(log.String(), "not of the gateway scope")
		if tc.warn && (warned != 1 || !strings.Contains(log.String(), "--account fleet --scope gateway")) || !tc.warn && warned != 0 {
			t.Errorf("%s: warned %d times: %s", tc.account, warned, log.String())
		}
		if n := len(asked); n != 0 {
			t.Errorf("%s: asked %d more times", tc.account, n)
		}
	}
}
