package throttle

import "sync"

// Conns bounds the connections held at once: in all, and from one peer
// address, so that one client cannot take every connection. Its bounds
// are set before use; 0 bounds nothing.
type Conns struct {
	Max, PerPeer int
	mu           sync.Mutex
	n            int
	peers        map[string]int // connections per peer address
}

// Take takes a slot for a connection from peer. When there is none it
// reports which bound is reached: all the server's (peerFull false) or
// peer's share.
func (c *Conns) Take(peer string) (ok, peerFull bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.Max > 0 && c.n >= c.Max:
		return false, false
	case c.PerPeer > 0 && c.peers[peer] >= c.PerPeer:
		return false, true
	}
	if c.peers == nil {
		c.peers = make(map[string]int)
	}
	c.n++
	c.peers[peer]++
	return true, false
}

// Release gives back the slot of a connection from peer that ended.
func (c *Conns) Release(peer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.peers[peer]--; c.peers[peer] <= 0 {
		delete(c.peers, peer)
	}
}
