package admin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/admin"
	"github.com/voxkit/voxkit/server/internal/testserver"
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
			// one behind the same proxy. Here an address may make 5
			// attempts, refilled once an hour: guesses are hashed slowly
			// under the race detector on a busy machine, and with the real
			// bucket (30, one more every 2 s) they may never empty it.
			const allowed = 5
			defer admin.SetAddressAttempts(allowed, time.Hour)()
			for i := 0; ; i++ {
				if i == allowed+5 {
					t.Fatalf("%d failed sign-ins from one address, none refused: want 429", i)
				}
				if signIn(fmt.Sprintf("nobody%d", i), "wrong password here", "203.0.113.7").StatusCode == http.StatusTooManyRequests {
					if i < allowed {
						t.Fatalf("refused after %d failed sign-ins, the address may make %d", i, allowed)
					}
					break
				}
			}
			other := signIn("nobody-else", "wrong password here", "203.0.113.8").StatusCode
			if want := map[bool]int{false: 429, true: 401}[trusted]; other != want {
				t.Errorf("another client behind the proxy: %d, want %d", other, want)
			}
		})
	}
}
