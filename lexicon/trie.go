package lexicon

import (
	"slices"
	"strings"
	"unsafe"
)

// trie is the graphemes of a lexicon in a radix tree over their bytes:
// each node is reached from its parent by a label, a run of bytes of the
// graphemes below it, and a grapheme ends at a node. The graphemes are
// kept once, in pool, which the labels (and the lexemes' Graphemes) are
// slices of; the nodes are a flat array in which each node's children
// follow one another, in the order of their labels' first bytes.
type trie struct {
	pool  string
	nodes []node
}

// node is one node of a trie: 24 bytes.
type node struct {
	off    uint32 // the label is pool[off : off+n]
	n      uint16
	keyLen uint16 // when a grapheme ends here: the length of its key (see key)
	minKey uint16 // the least keyLen of the graphemes that end here or below
	nkids  uint16
	kids   int32 // the first child, in nodes
	lexeme int32 // the lexeme of the grapheme that ends here; -1: none ends here
	order  int32 // that grapheme's rank in the lexicon: of two as long, the first wins
}

// grapheme is a grapheme of a lexicon being indexed.
type grapheme struct {
	g             string
	lexeme, order int32
}

// buildIndex files every grapheme of the lexicon in its trie, and points
// the lexemes' Graphemes at the trie's pool. A grapheme two lexemes share
// goes to the first.
func (l *Lexicon) buildIndex() {
	seen := make(map[string]bool)
	var gs []grapheme
	for i, x := range l.Lexemes {
		for _, g := range x.Graphemes {
			if !seen[g] {
				seen[g] = true
				gs = append(gs, grapheme{g, int32(i), int32(len(gs))})
			}
		}
	}
	slices.SortFunc(gs, func(a, b grapheme) int { return strings.Compare(a.g, b.g) })
	var b strings.Builder
	total := 0
	for _, g := range gs {
		total += len(g.g)
	}
	b.Grow(total) // the pool holds as many bytes as the graphemes, no more
	offs := make([]uint32, len(gs))
	for i, g := range gs {
		offs[i] = uint32(b.Len())
		b.WriteString(g.g)
	}
	t := &l.trie
	t.pool = b.String()
	pooled := make(map[string]string, len(gs))
	for i, g := range gs {
		pooled[g.g] = t.pool[offs[i] : int(offs[i])+len(g.g)]
	}
	for _, x := range l.Lexemes {
		for k, g := range x.Graphemes {
			x.Graphemes[k] = pooled[g]
		}
	}
	t.nodes = append(make([]node, 0, 2*len(gs)+1), node{lexeme: -1, minKey: noKey})
	t.fill(0, gs, offs, 0)
	t.nodes = slices.Clone(t.nodes) // as many as it holds, no more
	l.size = l.measure()
}

// noKey is the minKey of a node with no grapheme at or below it.
const noKey = 1<<16 - 1

// fill makes the subtree of node id from gs, sorted graphemes whose first
// depth bytes are the node's path (offs are where they are in the pool).
func (t *trie) fill(id int, gs []grapheme, offs []uint32, depth int) {
	if len(gs) > 0 && len(gs[0].g) == depth {
		nd := &t.nodes[id]
		nd.lexeme, nd.order = gs[0].lexeme, gs[0].order
		nd.keyLen = uint16(len(key(gs[0].g, 0)))
		nd.minKey = nd.keyLen
		gs, offs = gs[1:], offs[1:]
	}
	type group struct{ a, b, lcp int }
	var groups []group
	for a := 0; a < len(gs); {
		b := a + 1
		for b < len(gs) && gs[b].g[depth] == gs[a].g[depth] {
			b++
		}
		first, last := gs[a].g, gs[b-1].g
		lcp := depth + 1
		for lcp < len(first) && lcp < len(last) && first[lcp] == last[lcp] {
			lcp++
		}
		groups = append(groups, group{a, b, lcp})
		a = b
	}
	if len(groups) == 0 {
		return
	}
	kids := len(t.nodes)
	t.nodes[id].kids, t.nodes[id].nkids = int32(kids), uint16(len(groups))
	for _, g := range groups {
		t.nodes = append(t.nodes, node{off: offs[g.a] + uint32(depth), n: uint16(g.lcp - depth), lexeme: -1, minKey: noKey})
	}
	for k, g := range groups {
		t.fill(kids+k, gs[g.a:g.b], offs[g.a:g.b], g.lcp)
		t.nodes[id].minKey = min(t.nodes[id].minKey, t.nodes[kids+k].minKey)
	}
}

// child returns the child of node id whose label begins with byte c, or
// -1.
func (t *trie) child(id int, c byte) int {
	nd := t.nodes[id]
	lo, hi := int(nd.kids), int(nd.kids)+int(nd.nkids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.pool[t.nodes[m].off] < c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < int(nd.kids)+int(nd.nkids) && t.pool[t.nodes[lo].off] == c {
		return lo
	}
	return -1
}

// label returns the label of node id.
func (t *trie) label(id int) string {
	nd := t.nodes[id]
	return t.pool[nd.off : nd.off+uint32(nd.n)]
}

// Size estimates the memory the lexicon holds, in bytes: its lexemes,
// their strings and its index. A cache of lexicons can be bounded by it.
func (l *Lexicon) Size() int { return l.size }

// measure is what Size returns: what the lexicon's parts take, and the
// allocator's overhead of about 16 bytes for each of its allocations.
func (l *Lexicon) measure() int {
	const overhead = 16
	n := int(unsafe.Sizeof(*l)) + len(l.Name) + len(l.Language) + len(l.trie.pool) +
		cap(l.trie.nodes)*int(unsafe.Sizeof(node{})) + cap(l.Lexemes)*int(unsafe.Sizeof(Lexeme{})) + 4*overhead
	for _, x := range l.Lexemes {
		n += cap(x.Graphemes)*int(unsafe.Sizeof("")) + len(x.Phonemes) + len(x.Alias) + 2*overhead
	}
	return n
}
