package admin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// TestSignInConcurrentGuesses: guesses sent at once take their attempts
// before any is hashed, so no more than the account's allowance (10) is
// checked, whichever of them holds the right password; the rest get 429
// at once, and the wait they are told is at most one refill (30 s), not
// a lockout that grows with every refused guess.
func TestSignInConcurrentGuesses(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	const n = 100
	statuses := make(chan *http.Response, n)
	start := make(chan struct{})
	for i := range n {
		go func() {
			<-start
			password := fmt.Sprintf("guess %d", i)
			if i == n/2 {
				password = testserver.TestPassword
			}
			body, _ := json.Marshal(map[string]string{"account": "local", "password": password})
			req, _ := http.NewRequest("POST", e.TS.URL+"/v1/session", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Error(err)
				statuses <- nil
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			statuses <- res
		}()
	}
	close(start)
	count := map[int]int{}
	for range n {
		res := <-statuses
		if res == nil {
			continue
		}
		count[res.StatusCode]++
		if res.StatusCode == http.StatusTooManyRequests {
			if ra, err := time.ParseDuration(res.Header.Get("Retry-After") + "s"); err != nil || ra > 30*time.Second {
				t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
			}
		}
	}
	if checked := count[200] + count[401]; checked > 10 || count[429] < n-10 {
		t.Errorf("of %d concurrent guesses %d were checked (%v); want at most 10", n, checked, count)
	}
	// The right password, if it was among those checked, refunded its
	// attempt: one more guess may be checked, and then none.
	res, _ := e.SignIn("local", "one more guess")
	if count[200] == 1 && res.StatusCode == http.StatusUnauthorized {
		res.Body.Close()
		res, _ = e.SignIn("local", "and one more")
	}
	if ra, err := time.ParseDuration(res.Header.Get("Retry-After") + "s"); res.StatusCode != 429 || err != nil || ra > 30*time.Second {
		t.Errorf("after the burst: %d, Retry-After %q; want 429 within 30 s", res.StatusCode, res.Header.Get("Retry-After"))
	}
	res.Body.Close()
}

// TestSignupThrottled: sign-ups from one address are throttled like
// sign-ins (5, then one a minute).
func TestSignupThrottled(t *testing.T) {
	e := testserver.New(t, testserver.Options{Signup: true})
	for i := range 6 {
		res := e.Do("POST", "/v1/accounts", "", "application/json",
			strings.NewReader(fmt.Sprintf(`{"name":"user-%d","password":"%s"}`, i, testserver.TestPassword)))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		want := http.StatusCreated
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Errorf("sign-up %d: %d, want %d", i, res.StatusCode, want)
		}
	}
	if _, err := e.Store.Account(t.Context(), "user-5"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a throttled sign-up made its account: %v", err)
	}
}
