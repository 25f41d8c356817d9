package sockets

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
)

// CheckUpgrade returns, to be answered as JSON, what websocket.Accept
// would refuse in plain text: no Upgrade (426), a WebSocket version other
// than 13 or no key (400), an origin other than the server's own and the
// allowed patterns (403). It sets the response headers RFC 7231 and RFC
// 6455 ask for with the first two.
func CheckUpgrade(rt *Runtime, h http.Header, r *http.Request) *fault.Error {
	c := rt.c
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		return fault.UpgradeRequired()
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		h.Set("Sec-WebSocket-Version", "13")
		return fault.BadWebSocketVersion(v)
	}
	switch keys := r.Header.Values("Sec-WebSocket-Key"); {
	case len(keys) == 0 || keys[0] == "":
		return fault.MissingWebSocketKey()
	case len(keys) > 1 || !validWebSocketKey(keys[0]):
		return fault.BadWebSocketKey()
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(c.Origins, origin, r.Host) {
		return fault.OriginNotAllowed(origin)
	}
	return nil
}

// validWebSocketKey reports whether key is what RFC 6455 asks of a
// Sec-WebSocket-Key: 16 bytes in base64, around spaces.
func validWebSocketKey(key string) bool {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(key))
	return err == nil && len(b) == 16
}

// originAllowed reports whether a page of origin may open the WebSocket:
// the server's own host, or one that patterns (Options.WebSocketOrigins)
// matches, as websocket.Accept matches them.
func originAllowed(patterns []string, origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return true
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header holds token,
// case-insensitively.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// accept upgrades r to a WebSocket that outlives the server's read
// deadline, reads messages of at most the body limit, and counts among
// the sessions shutdown waits for (the caller calls c.Sessions.Done when
// it ends). With no connection it returns the error to answer, or nil
// when Accept has answered (a refused upgrade).
func accept(c *core.Core, w http.ResponseWriter, r *http.Request) (*websocket.Conn, *fault.Error) {
	if c.Closing().Err() != nil {
		return nil, fault.Unavailable()
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: c.Origins})
	if err != nil {
		c.Log.Info("server: websocket upgrade refused", "request_id", core.RequestID(r.Context()), "err", err)
		return nil, nil
	}
	c.Sessions.Add(1)
	conn.SetReadLimit(c.MaxBody)
	return conn, nil
}
