package collectives

import "github.com/acemu/acemu/torus"

// Axis is one dimension the NPUs are arranged along: groups of Size NPUs
// whose ids differ by multiples of Stride (a mixed-radix digit of the id).
// When Ring is set, a group's members are a ring of links, Plus and Minus
// the ports from a member to its next and its previous; otherwise messages
// between members are routed by the network. The torus's three dimensions
// are axes (TorusAxes); a topology that is not a torus offers its own
// (topology.Spec.Axes), at least one axis of all its NPUs.
type Axis struct {
	Name, Short string
	Size        int
	Stride      int
	Ring        bool
	Plus, Minus int8
}

// TorusAxes are the torus's local, vertical and horizontal dimensions, in
// that order, each a ring of links.
func TorusAxes(s torus.Shape) []Axis {
	out := make([]Axis, torus.NumDims)
	stride := 1
	for d := torus.Dim(0); d < torus.NumDims; d++ {
		name := d.String()
		out[d] = Axis{Name: name, Short: name[:1], Size: s.Size(d), Stride: stride, Ring: true,
			Plus: int8(torus.Port{Dim: d, Dir: torus.Plus}.Index()), Minus: int8(torus.Port{Dim: d, Dir: torus.Minus}.Index())}
		stride *= s.Size(d)
	}
	return out
}

// axes are the configuration's axes: Axes, or the torus's.
func (c Config) axes() []Axis {
	if c.Axes != nil {
		return c.Axes
	}
	return TorusAxes(c.Shape)
}

// AxisTier is the tier whose groups are the axis's.
func AxisTier(a Axis) Tier {
	return Tier{Name: a.Name, Size: a.Size, OnRing: a.Ring, Plus: a.Plus, Minus: a.Minus, stride: a.Stride}
}
