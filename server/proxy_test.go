package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server"
)

// TestTrustedProxies: behind a trusted proxy the session cookie is Secure
// when the proxy says https, and sign-ins are throttled by the client
// X-Forwarded-For names; from any other peer both headers are ignored.
func TestTrustedProxies(t *testing.T) {
	testserver.Long(t)
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			o := testserver.Options{}
			if trusted {
				o.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
			}
			e := testserver.New(t, o)
			e.SetPassword("local", "a long enough password")
			signIn := func(account, password, client string) *http.Response {
				body, _ := json.Marshal(map[string]string{"account": account, "password": password})
				req, _ := http.NewRequest("POST", e.TS.URL+"/v1/session", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Forwarded-For", "198.51.100.1, "+client) // the last hop is the proxy's client
				req.Header.Set("X-Forwarded-Proto", "https")
				res, err := e.TS.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res
			}
			res := signIn("local", "a long enough password", "203.0.113.9")
			secure := false
			for _, c := range res.Cookies() {
				if c.Name == server.SessionCookie {
					secure = c.Secure
				}
			}
			if res.StatusCode != 200 || secure != trusted {
				t.Errorf("sign-in: %d, cookie Secure %v, want %v", res.StatusCode, secure, trusted)
			}
			// One client's failures throttle that client, not the next
			// one behind the same proxy.
			// The address's bucket holds 30 and gains one every 2 s. On a
			// busy machine a sign-in's hashing can take longer than that, so
			// guesses one at a time might never empty it: 8 at once do
			// (each takes from the bucket before it waits to hash).
			var tries, throttled atomic.Int32
			var guessers sync.WaitGroup
			for range 8 {
				guessers.Go(func() {
					for throttled.Load() == 0 {
						i := tries.Add(1)
						if i > 400 {
							return
						}
						if signIn(fmt.Sprintf("nobody%d", i), "wrong password here", "203.0.113.7").StatusCode == http.StatusTooManyRequests {
							throttled.Add(1)
						}
					}
				})
			}
			guessers.Wait()
			if throttled.Load() == 0 {
				t.Fatalf("400 failed sign-ins from one address, none refused: want 429")
			}
			// The guesses still hashing when the first was refused took
			// their time: the bucket may have gained one since. Refused
			// again, it is empty for the next sign-in, which comes at once.
			for i := 0; signIn("nobody", "wrong password here", "203.0.113.7").StatusCode != http.StatusTooManyRequests; i++ {
				if i == 20 {
					t.Fatal("the address is no longer refused")
				}
			}
			other := signIn("nobody", "wrong password here", "203.0.113.8").StatusCode
			if want := map[bool]int{false: 429, true: 401}[trusted]; other != want {
				t.Errorf("another client behind the proxy: %d, want %d", other, want)
			}
		})
	}
}
