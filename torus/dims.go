package torus

import "fmt"

// Dim is one dimension of the torus.
type Dim int

// The three dimensions, in routing order.
const (
	// Local is the intra-package ring of L NPUs.
	Local Dim = iota
	// Vertical is the ring of V packages (one NPU per package) in the
	// vertical direction of the package torus.
	Vertical
	// Horizontal is the ring of H packages (one NPU per package) in the
	// horizontal direction of the package torus.
	Horizontal
)

// NumDims is the number of dimensions.
const NumDims = 3

// String names the dimension: "local", "vertical" or "horizontal".
func (d Dim) String() string {
	switch d {
	case Local:
		return "local"
	case Vertical:
		return "vertical"
	case Horizontal:
		return "horizontal"
	}
	return fmt.Sprintf("Dim(%d)", int(d))
}

// letter is the dimension's letter in "LxVxH".
func (d Dim) letter() string {
	switch d {
	case Local:
		return "L"
	case Vertical:
		return "V"
	case Horizontal:
		return "H"
	}
	return d.String()
}

// Dir is a direction round a ring.
type Dir int

// The two directions round a ring.
const (
	// Plus goes to coordinate+1, wrapping from n-1 to 0.
	Plus Dir = iota
	// Minus goes to coordinate-1, wrapping from 0 to n-1.
	Minus
)

// String is "+" or "-".
func (d Dir) String() string {
	switch d {
	case Plus:
		return "+"
	case Minus:
		return "-"
	}
	return fmt.Sprintf("Dir(%d)", int(d))
}

// Opposite is the other direction.
func (d Dir) Opposite() Dir { return 1 - d }

// Coord is the position of an NPU, indexed by Dim: c[Local] in [0,L),
// c[Vertical] in [0,V), c[Horizontal] in [0,H).
type Coord [NumDims]int

// Coord returns the coordinates of NPU id, where id = l + L*(v + V*h).
// It panics if id is not in [0, N()).
func (s Shape) Coord(id int) Coord {
	if id < 0 || id >= s.N() {
		panic(fmt.Sprintf("torus: NPU %d out of range [0,%d) for topology %s", id, s.N(), s))
	}
	return Coord{id % s.L, id / s.L % s.V, id / (s.L * s.V)}
}

// ID returns the NPU id at c: l + L*(v + V*h). It panics if a coordinate is
// out of range.
func (s Shape) ID(c Coord) int {
	for d := range Dim(NumDims) {
		if c[d] < 0 || c[d] >= s.Size(d) {
			panic(fmt.Sprintf("torus: %s coordinate %d out of range [0,%d) for topology %s",
				d, c[d], s.Size(d), s))
		}
	}
	return c[Local] + s.L*(c[Vertical]+s.V*c[Horizontal])
}

// RingPos is the position of NPU id on its ring along d: s.Coord(id)[d].
func (s Shape) RingPos(id int, d Dim) int { return s.Coord(id)[d] }

// Ring returns the ids of the Size(d) NPUs on the ring through id along d,
// ordered by their coordinate in d from 0 to Size(d)-1. The other two
// coordinates are those of id. For a dimension of size 1 it is just [id].
func (s Shape) Ring(id int, d Dim) []int {
	c := s.Coord(id)
	n := s.Size(d)
	ring := make([]int, n)
	for i := range n {
		c[d] = i
		ring[i] = s.ID(c)
	}
	return ring
}

// Displace returns the NPU reached from id by the displacement d, an NPU id
// read as a vector (its coordinates): coordinate-wise addition round the
// rings. Displacements form the torus's translation group, under which
// every NPU looks the same; Displace(id, 0) == id.
func (s Shape) Displace(id, d int) int {
	a, b := s.Coord(id), s.Coord(d)
	for dim := range Dim(NumDims) {
		a[dim] = (a[dim] + b[dim]) % s.Size(dim)
	}
	return s.ID(a)
}

// Displacement returns the displacement from a to b, so that
// Displace(a, Displacement(a, b)) == b.
func (s Shape) Displacement(a, b int) int {
	ca, cb := s.Coord(a), s.Coord(b)
	for dim := range Dim(NumDims) {
		n := s.Size(dim)
		cb[dim] = (cb[dim] - ca[dim] + n) % n
	}
	return s.ID(cb)
}
