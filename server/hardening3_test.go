package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/wire"
)

// TestMetricsMethodsBounded: methods a client makes up are counted as
// "other", so random methods cannot grow /metrics.
func TestMetricsMethodsBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg})
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := range 500 {
		m := make([]byte, 8+rand.IntN(16))
		for j := range m {
			m[j] = letters[rand.IntN(len(letters))]
		}
		res := e.Do(string(m), fmt.Sprintf("/v1/x%d", i), "", "", nil)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	mf := testserver.Gathered(t, reg, "voxkit_http_requests_total")
	methods := map[string]float64{}
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "method" {
				methods[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	if len(methods) != 1 || methods["other"] != 500 {
		t.Errorf("%d method labels, other: %v; want only other: 500", len(methods), methods["other"])
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if n := rec.Body.Len(); n > 200<<10 {
		t.Errorf("/metrics is %d bytes after 500 random methods", n)
	}
}

// TestKeyCheckDeadline: a known key whose check the store does not
// answer is refused with 503 when the check's deadline passes, and its
// work stops then; a request whose client leaves while its check is
// under way ends at once, holding nothing until the store answers.
func TestKeyCheckDeadline(t *testing.T) {
	t.Run("late", func(t *testing.T) {
		cs := new(checkingStore)
		e := testserver.New(t, testserver.Options{KeyCheck: 300 * time.Millisecond, Wrap: func(st *sqlite.Store) store.Store { cs.Store = st; return cs }})
		if res, _ := e.SpeechRequest(e.Key, `{"voice":"fake","input":"Known now."}`); res.StatusCode != http.StatusOK {
			t.Fatalf("status %d", res.StatusCode)
		}
		release := cs.holdChecks()
		defer release()
		before := len(e.Slow.Requests())
		res, body := e.SpeechRequest(e.Key, `{"voice":"slow","input":"`+strings.Repeat("One more slow sentence. ", 60)+`","response_format":"wav"}`)
		var we wire.Error
		if res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &we) != nil || we.Code != wire.CodeServiceUnavailable {
			t.Fatalf("status %d, body %.200q; want 503 service_unavailable", res.StatusCode, body)
		}
		if res.Header.Get("x-upstream-ms") != "" {
			t.Error("timing headers on a refusal")
		}
		if n := len(e.Slow.Requests()) - before; n >= 60 {
			t.Errorf("all %d sentences rendered past the check's deadline", n)
		}
	})
	t.Run("client gone", func(t *testing.T) {
		cs := new(checkingStore)
		e := testserver.New(t, testserver.Options{KeyCheck: time.Hour, Wrap: func(st *sqlite.Store) store.Store { cs.Store = st; return cs }})
		if res, _ := e.SpeechRequest(e.Key, `{"voice":"fake","input":"Known now."}`); res.StatusCode != http.StatusOK {
			t.Fatalf("status %d", res.StatusCode)
		}
		<-e.Done
		release := cs.holdChecks()
		defer release()
		ctx, cancel := context.WithCancel(t.Context())
		req, _ := http.NewRequestWithContext(ctx, "POST", e.TS.URL+"/v1/audio/speech",
			strings.NewReader(`{"voice":"fake","input":"Quick.","response_format":"wav"}`))
		req.Header.Set("Authorization", "Bearer "+e.Key)
		errc := make(chan error, 1)
		go func() {
			res, err := e.TS.Client().Do(req)
			if err == nil {
				res.Body.Close()
			}
			errc <- err
		}()
		<-cs.entered
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("request: %v", err)
		}
		select {
		case <-e.Done: // the handler returned while the store still holds the check
		case <-time.After(10 * time.Second):
			t.Fatal("the handler still waits for the key check after its client left")
		}
	})
}

// failingPing is the SQLite store whose Ping fails with an error that
// names a host and a user, as a database driver's does.
type failingPing struct{ *sqlite.Store }

func (failingPing) Ping(context.Context) error {
	return errors.New(`failed to connect to host=db.internal user=voxkit_admin database=voxkit: dial tcp 10.1.2.3:5432: connection refused`)
}

// TestReadyzGenericReason: /readyz on the API says that the store is
// unreachable, not where it is or as whom the server connects.
func TestReadyzGenericReason(t *testing.T) {
	e := testserver.New(t, testserver.Options{Wrap: func(st *sqlite.Store) store.Store { return failingPing{st} }})
	res := e.Do("GET", "/readyz", "", "", nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var h wire.Health
	if res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &h) != nil || h.Reason != "store unreachable" {
		t.Errorf("%d %q; want 503 with reason \"store unreachable\"", res.StatusCode, body)
	}
	for _, leak := range []string{"db.internal", "voxkit_admin", "10.1.2.3", "5432"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("/readyz tells %q: %s", leak, body)
		}
	}
	if err := e.Server.Ready(t.Context()); err == nil || !strings.Contains(err.Error(), "db.internal") {
		t.Errorf("Ready: %v; want the details", err)
	}
}
