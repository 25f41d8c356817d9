package route

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// Proxies are the trusted reverse proxies (server's
// Options.TrustedProxies): a request a trusted proxy passed on is the
// client's by its X-Forwarded-For and X-Forwarded-Proto.
type Proxies []netip.Prefix

// ClientAddress is the address sign-ins are throttled by: the client's IP
// (see Client), an IPv6 one cut to its /64 (one host's share).
func (p Proxies) ClientAddress(r *http.Request) string {
	ip := p.Client(r)
	if !ip.IsValid() {
		return r.RemoteAddr
	}
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

// peer is the address of the connection's other end.
func peer(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// trusted reports whether ip is one of the proxies.
func (p Proxies) trusted(ip netip.Addr) bool {
	return ip.IsValid() && slices.ContainsFunc(p, func(n netip.Prefix) bool { return n.Contains(ip) })
}

// Client is the client's IP: the peer's, or, when the peer is a trusted
// proxy, the last address of X-Forwarded-For that is not a trusted proxy
// (the one the trusted chain received the request from).
func (p Proxies) Client(r *http.Request) netip.Addr {
	ip := peer(r)
	if !p.trusted(ip) {
		return ip
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return ip // a hop the proxies wrote wrong: the last good one
		}
		ip = hop.Unmap()
		if !p.trusted(ip) {
			return ip
		}
	}
	return ip
}

// Secure reports whether the client reached the server over TLS: this
// connection's, or a trusted proxy's (X-Forwarded-Proto: https).
func (p Proxies) Secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !p.trusted(peer(r)) {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}
