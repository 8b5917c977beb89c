package torus

import "fmt"

// Hop is one link of a route: from NPU From out of Port to NPU To, where
// To == Neighbor(From, Port).
type Hop struct {
	From int
	Port Port
	To   int
}

// String is e.g. "3->2 via local-".
func (h Hop) String() string { return fmt.Sprintf("%d->%d via %s", h.From, h.To, h.Port) }

// ringStep returns the direction and the number of hops of the shortest way
// round a ring of n NPUs from position a to position b. When both ways are
// equally long (b-a == n/2 for even n) it takes Plus. steps is 0 when a == b.
func ringStep(a, b, n int) (dir Dir, steps int) {
	plus := ((b-a)%n + n) % n // hops going Plus
	if minus := n - plus; plus != 0 && minus < plus {
		return Minus, minus
	}
	return Plus, plus
}

// NextHop is the port NPU cur sends on toward dst under dimension-order
// (XYZ) routing: the first dimension in the order Local, Vertical,
// Horizontal where cur and dst differ, the shortest way round that ring,
// Plus on a tie. ok is false when cur == dst. It panics if cur or dst is out
// of range.
func (s Shape) NextHop(cur, dst int) (Port, bool) {
	c, d := s.Coord(cur), s.Coord(dst)
	for dim := range Dim(NumDims) {
		if c[dim] != d[dim] {
			dir, _ := ringStep(c[dim], d[dim], s.Size(dim))
			return Port{Dim: dim, Dir: dir}, true
		}
	}
	return Port{}, false
}

// Route lists the hops NextHop takes from src to dst, in order. It is empty
// (nil) when src == dst.
func (s Shape) Route(src, dst int) []Hop {
	var hops []Hop
	if n := s.Distance(src, dst); n > 0 {
		hops = make([]Hop, 0, n)
	}
	for cur := src; ; {
		p, ok := s.NextHop(cur, dst)
		if !ok {
			return hops
		}
		next := s.Neighbor(cur, p)
		hops = append(hops, Hop{From: cur, Port: p, To: next})
		cur = next
	}
}

// Distance is the number of hops of Route(src, dst): the sum over the
// dimensions of min(diff, n-diff), where diff is the coordinate difference
// modulo the ring size n.
func (s Shape) Distance(src, dst int) int {
	c, d := s.Coord(src), s.Coord(dst)
	total := 0
	for dim := range Dim(NumDims) {
		_, steps := ringStep(c[dim], d[dim], s.Size(dim))
		total += steps
	}
	return total
}

// NextPort is NextHop's port as an index (machine.Topology).
func (s Shape) NextPort(cur, dst int) (int, bool) {
	p, ok := s.NextHop(cur, dst)
	return p.Index(), ok
}
