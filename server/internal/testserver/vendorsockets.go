package testserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// vendorDial opens a vendor socket at path (after the server's URL) with
// header h.
func (e *Env) VendorDial(t *testing.T, path string, h http.Header) *websocket.Conn {
	t.Helper()
	c, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+path,
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial %s: %v %v", path, err, res)
	}
	c.SetReadLimit(16 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}
