package torus

import "fmt"

// A Port is one outgoing link of an NPU: the ring dimension and direction.
// Every NPU has one port per direction of each ring it sits on, so up to
// NumPorts ports; a dimension of size 1 has none (see HasPort).
//
// On a dimension of size 2 both the Plus and the Minus port lead to the same
// neighbour, but they are two distinct links: a bidirectional ring algorithm
// still has one link of its own in each direction.
type Port struct {
	Dim Dim
	Dir Dir
}

// NumPorts is the most ports an NPU can have: two per dimension.
const NumPorts = 2 * NumDims

// Index numbers the port int(Dim)*2 + int(Dir), in [0, NumPorts), for
// indexing per-port arrays.
func (p Port) Index() int { return int(p.Dim)*2 + int(p.Dir) }

// PortFromIndex is the inverse of Index. It panics if i is not in
// [0, NumPorts).
func PortFromIndex(i int) Port {
	if i < 0 || i >= NumPorts {
		panic(fmt.Sprintf("torus: port index %d out of range [0,%d)", i, NumPorts))
	}
	return Port{Dim: Dim(i / 2), Dir: Dir(i % 2)}
}

// String is the dimension followed by the direction, e.g. "vertical+".
func (p Port) String() string { return p.Dim.String() + p.Dir.String() }

// Opposite is the port of the same dimension in the other direction. The
// link out of port p of NPU a arrives at Neighbor(a, p), whose own port
// p.Opposite() leads back to a.
func (p Port) Opposite() Port { return Port{Dim: p.Dim, Dir: p.Dir.Opposite()} }

// HasPort reports whether NPUs of this shape have port p: false when
// Size(p.Dim) == 1, as a ring of one NPU has no links.
func (s Shape) HasPort(p Port) bool { return s.Size(p.Dim) > 1 }

// Ports lists the ports every NPU of this shape has, in Index order.
func (s Shape) Ports() []Port {
	ports := make([]Port, 0, NumPorts)
	for i := range NumPorts {
		if p := PortFromIndex(i); s.HasPort(p) {
			ports = append(ports, p)
		}
	}
	return ports
}

// Neighbor is the NPU the link out of port p of NPU id leads to: one step
// along p.Dim in direction p.Dir, wrapping round the ring. On a dimension of
// size 2 both directions lead to the same NPU.
//
// It panics if !s.HasPort(p) (the dimension has size 1, so there is no link)
// or if id is out of range.
func (s Shape) Neighbor(id int, p Port) int {
	if !s.HasPort(p) {
		panic(fmt.Sprintf("torus: topology %s has no port %s: dimension %s has size 1", s, p, p.Dim))
	}
	c := s.Coord(id)
	n := s.Size(p.Dim)
	switch p.Dir {
	case Plus:
		c[p.Dim] = (c[p.Dim] + 1) % n
	case Minus:
		c[p.Dim] = (c[p.Dim] + n - 1) % n
	default:
		panic(fmt.Sprintf("torus: invalid direction %d", int(p.Dir)))
	}
	return s.ID(c)
}

// LinkClass is the kind of physical link a port drives.
type LinkClass int

// The link classes.
const (
	// Intra is an intra-package link, on the Local ring.
	Intra LinkClass = iota
	// Inter is an inter-package link, on a Vertical or Horizontal ring.
	Inter
)

// String is "intra" or "inter".
func (c LinkClass) String() string {
	switch c {
	case Intra:
		return "intra"
	case Inter:
		return "inter"
	}
	return fmt.Sprintf("LinkClass(%d)", int(c))
}

// Class is Intra for a Local port and Inter for a Vertical or Horizontal one.
func (p Port) Class() LinkClass {
	if p.Dim == Local {
		return Intra
	}
	return Inter
}
