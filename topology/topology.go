// Package topology is what an endpoint needs to know of the network's
// shape: how many nodes, which port leads toward a destination, and, on a
// folded network (one node standing for all, docs/architecture.md
// "Folding"), how a packet's frame moves as it travels. The 3D torus
// (torus.Shape) is one implementation; an endpoint holds a Topology, not a
// torus.
package topology

import "github.com/acemu/acemu/fabric"

// Topology is the network's shape as endpoints use it.
type Topology interface {
	// N is the number of nodes.
	N() int
	// String names the topology for messages.
	String() string
	// NextPort is the port node cur sends on toward dst under the
	// topology's routing; ok is false when cur == dst.
	NextPort(cur, dst int) (port int, ok bool)
	// Arrived is packet p as the node it reached over link l sees it (on a
	// folded network, with the hop's displacement added to its frame).
	Arrived(net *fabric.Network, l *fabric.Link, p fabric.Packet) fabric.Packet
	// PacketDst is the node p is for, in the frame of the node holding it.
	PacketDst(p fabric.Packet) int
}

// Folder is a topology one node can stand for: a translation takes any
// node to any other and maps the network onto itself (the torus). Folding
// is this capability, not an assumption: a topology without it is never
// folded.
type Folder interface {
	Topology
	// Displacement is the translation that takes node a to node b (a
	// folded network's frames).
	Displacement(a, b int) int
}
