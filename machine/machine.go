// Package machine is what the layers above the network know of a machine:
// its NPUs, how an endpoint routes toward another NPU, whether one NPU can
// stand for all (folding), and the dimensions collectives are built over,
// each an explicit partition of the NPUs into groups with every member's
// ports. The 3D torus (package torus), the DGX-1 and switch fabrics
// (package topology) are implementations; collectives, the endpoints and
// ACE take a Machine and never a torus.
package machine

import (
	"errors"
	"fmt"

	"github.com/acemu/acemu/fabric"
)

// Topology is the network's shape as endpoints use it.
type Topology interface {
	// N is the number of NPUs.
	N() int
	// String names the topology for messages.
	String() string
	// NextPort is the port NPU cur sends on toward NPU dst under the
	// topology's routing; ok is false when cur == dst.
	NextPort(cur, dst int) (port int, ok bool)
	// Arrived is packet p as the node it reached over link l sees it (on a
	// folded network, with the hop's displacement added to its frame).
	Arrived(net *fabric.Network, l *fabric.Link, p fabric.Packet) fabric.Packet
	// PacketDst is the node p is for, in the frame of the node holding it.
	// On a full network every frame is the same: Arrived returns p as it
	// is and PacketDst is p.Msg.Dst (endpoints rely on it on their hot
	// path).
	PacketDst(p fabric.Packet) int
}

// Folder is a topology one NPU can stand for: a translation takes any NPU
// to any other and maps the network onto itself (the torus). Folding is
// this capability, not an assumption: a machine without it is never
// folded.
type Folder interface {
	Topology
	// Displacement is the translation that takes NPU a to NPU b (a folded
	// network's frames).
	Displacement(a, b int) int
	// Displace is NPU id moved by the translation that takes NPU 0 to NPU
	// d.
	Displace(id, d int) int
}

// MaxFullNPUs bounds a network simulated NPU by NPU (not folded): each
// NPU's endpoint, links, buffers and chunks in flight are built, so memory
// grows with it. It is the largest power of two of NPUs whose most
// memory-hungry run inside the other limits stays under acemu's 2 GB bound
// (measured: an ACE all-reduce that keeps every NPU's SRAM full, some
// 1.5 MB an NPU as run; docs/bad-input.md, "Limits", gives the rule, the
// runs and their commands). A folded run (one NPU for all) is not bound
// by it.
const MaxFullNPUs = 1 << 10

// MaxFullAllToAllNPUs bounds an all-to-all simulated NPU by NPU, under
// MaxFullNPUs: its messages pass through the NPUs between their source
// and destination, and what a run holds grows with the packets on their
// way, faster than the NPUs (ACE's on 256 NPUs held 0.27 GB, on 512
// 0.90 GB, on 1024 past 1.65 GB before it ended; docs/bad-input.md,
// "Limits", gives the rule and the runs).
const MaxFullAllToAllNPUs = 1 << 9

// CheckFullAllToAll refuses an all-to-all on machine name of n NPUs
// simulated one by one when n is more than MaxFullAllToAllNPUs; its error
// wraps ErrTooManyNPUs and says why.
func CheckFullAllToAll(name string, n int) error {
	if n <= MaxFullAllToAllNPUs {
		return nil
	}
	return fmt.Errorf("topology %s: an all-to-all on %d NPUs simulated one by one; a run simulates an all-to-all on at most %d NPUs one by one, so that it stays under 2 GB of memory (its packets pass through the NPUs on their way and what a run holds grows faster than the NPUs: docs/bad-input.md, \"Limits\"); fold it (a torus without --full or --check-data) or run it on at most %d NPUs, and it is %w",
		name, n, MaxFullAllToAllNPUs, MaxFullAllToAllNPUs, ErrTooManyNPUs)
}

// ErrTooManyNPUs is what a machine's error wraps when it is refused for
// needing more than MaxFullNPUs NPUs simulated one by one: a caller that
// knows why the run is not folded can add it.
var ErrTooManyNPUs = errors.New("refused")

// CheckFull refuses a machine named name of n NPUs simulated one by one
// when n is more than MaxFullNPUs; its error wraps ErrTooManyNPUs and says
// why.
func CheckFull(name string, n int) error {
	if n <= MaxFullNPUs {
		return nil
	}
	return fmt.Errorf("topology %s: %d NPUs to simulate one by one; a run simulates at most %d NPUs one by one, so that it stays under 2 GB of memory (an NPU with its chunks in flight takes up to some 1.5 MB: docs/bad-input.md, \"Limits\"), and this one is %w",
		name, n, MaxFullNPUs, ErrTooManyNPUs)
}

// Machine is a machine as collectives and endpoints see it.
type Machine struct {
	// Name is its canonical --topo spelling (4x8x4, dgx1, switch:4x4, a
	// file's path).
	Name string
	// Topology routes between its NPUs.
	Topology Topology
	// Dims are the dimensions collectives are built over, in order (the
	// torus's local, vertical, horizontal); at least one.
	Dims []Dim
	// Ports, when not nil, says where each NPU's ports lead.
	Ports Ports
	// PortLabels, when not nil, groups an NPU's links by port for
	// reports (the torus's: each port's dimension); nil: one group.
	PortLabels []string
	// Trees, when not nil, are the trees the tree all-reduces embed on
	// this machine, in order (the double tree takes the first two; dgx1's
	// are the C-Cube paper's, docs/topology.md): each the parent of every
	// NPU, -1 for its root. Nil: NCCL's trees on NPU ids.
	Trees [][]int
}

// Lanes is what a machine's Ports has where NPUs may be joined by
// several parallel links (a topology file's lanes).
type Lanes interface {
	// PortsTo lists npu a's ports to NPU b that carry its messages to b,
	// in port order (none when they are not neighbours).
	PortsTo(a, b int) []int
}

// New checks a machine's dimensions against its NPU count.
func New(name string, top Topology, dims []Dim) (*Machine, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("machine %s: no dimensions; give at least one group of all its NPUs", name)
	}
	for i := range dims {
		if dims[i].n != top.N() {
			return nil, fmt.Errorf("machine %s: dimension %s covers %d NPUs; the machine has %d", name, dims[i].Name, dims[i].n, top.N())
		}
	}
	return &Machine{Name: name, Topology: top, Dims: dims}, nil
}

// N is the number of NPUs.
func (m *Machine) N() int { return m.Topology.N() }

// String is the machine's name.
func (m *Machine) String() string { return m.Name }

// Folder is the machine's topology when one NPU can stand for all.
func (m *Machine) Folder() (Folder, bool) {
	f, ok := m.Topology.(Folder)
	return f, ok
}

// Same reports whether a and b are one machine: the same name and NPUs
// (plans and engines built from two parses of one --topo agree).
func Same(a, b *Machine) bool {
	return a == b || (a != nil && b != nil && a.Name == b.Name && a.N() == b.N())
}

// Ports says where an NPU's ports lead, for checking programs that name
// ports (microcode): a machine whose collectives only route messages has
// none.
type Ports interface {
	// Neighbor is the NPU that npu's port leads to; ok is false when npu
	// has no such port or it does not lead straight to an NPU, and why
	// then says so.
	Neighbor(npu, port int) (nb int, ok bool, why string)
}
