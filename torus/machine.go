package torus

import (
	"fmt"

	"github.com/acemu/acemu/machine"
)

// Machine is the torus as collectives and endpoints see it: its table
// (routing, and the translations folding needs), its local, vertical and
// horizontal dimensions, in that order, each a ring of links reached by
// the ports of that dimension (every NPU's the same), and its ports.
func (s Shape) Machine() *machine.Machine {
	dims := make([]machine.Dim, NumDims)
	labels := make([]string, NumPorts)
	for i := range labels {
		labels[i] = PortFromIndex(i).Dim.String()
	}
	stride := 1
	for d := Dim(0); d < NumDims; d++ {
		name := d.String()
		plus, minus := Port{Dim: d, Dir: Plus}.Index(), Port{Dim: d, Dir: Minus}.Index()
		dims[d] = machine.Strided(name, name[:1], s.N(), s.Size(d), stride, true, int8(plus), int8(minus))
		stride *= s.Size(d)
	}
	return &machine.Machine{Name: s.String(), Topology: s.Table(), Dims: dims, Ports: ports{s}, PortLabels: labels}
}

// ports answers machine.Ports for a torus.
type ports struct{ s Shape }

// Neighbor is the NPU npu's port leads to: ports of a dimension of size 1
// lead nowhere.
func (p ports) Neighbor(npu, port int) (int, bool, string) {
	if port < 0 || port >= NumPorts {
		return 0, false, fmt.Sprintf("a torus has ports 0 to %d", NumPorts-1)
	}
	pt := PortFromIndex(port)
	if !p.s.HasPort(pt) {
		var names string
		for i, q := range p.s.Ports() {
			if i > 0 {
				names += ", "
			}
			names += q.String()
		}
		return 0, false, fmt.Sprintf("port %s does not exist on %s (the %s dimension has size 1); want a port of %s or xyz", pt, p.s, pt.Dim, names)
	}
	return p.s.Neighbor(npu, pt), true, ""
}

// ShapeOf is the shape of a torus machine (Shape.Machine); the zero Shape
// for any other machine.
func ShapeOf(m *machine.Machine) Shape {
	if t, ok := m.Topology.(*Table); ok {
		return t.Shape
	}
	return Shape{}
}
