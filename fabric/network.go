package fabric

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/acemu/acemu/rtl"
)

// Network is a set of links between NPUs, indexed by the sending NPU's port.
type Network struct {
	Links []*Link
	out   [][]*Link // [npu][port]
}

// NewNetwork returns an empty network of n NPUs with ports ports each.
func NewNetwork(n, ports int) *Network {
	out := make([][]*Link, n)
	for i := range out {
		out[i] = make([]*Link, ports)
	}
	return &Network{out: out}
}

// Add registers l as the link leaving l.Src by port l.Port.
func (n *Network) Add(l *Link) error {
	if l.Src < 0 || l.Src >= len(n.out) || l.Port < 0 || l.Port >= len(n.out[l.Src]) {
		return fmt.Errorf("%s: NPU or port out of range", l)
	}
	if n.out[l.Src][l.Port] != nil {
		return fmt.Errorf("%s: NPU %d port %d already has a link", l, l.Src, l.Port)
	}
	n.out[l.Src][l.Port] = l
	n.Links = append(n.Links, l)
	return nil
}

// NPUs returns the number of NPUs.
func (n *Network) NPUs() int { return len(n.out) }

// Out returns the link leaving npu by port, or nil if there is none.
func (n *Network) Out(npu, port int) *Link { return n.out[npu][port] }

// Attach connects endpoint eps[i] to every link of NPU i, as the sender of
// its outgoing links and the receiver of its incoming ones.
func (n *Network) Attach(eps []Endpoint) {
	for _, l := range n.Links {
		l.Attach(eps[l.Src], eps[l.Dst])
	}
}

// SetTracer installs t on every link.
func (n *Network) SetTracer(t Tracer) {
	for _, l := range n.Links {
		l.SetTracer(t)
	}
}

// Register puts every link's statistics into sink as probes: packets and
// bytes sent, and exact busy (serialising) cycles, under "link.<id>.…".
func (n *Network) Register(sink *rtl.Sink) {
	for _, l := range n.Links {
		l := l
		prefix := fmt.Sprintf("link.%04d.", l.ID)
		sink.Probe(prefix+"packets", func() *big.Rat { return new(big.Rat).SetInt64(l.packets) })
		sink.Probe(prefix+"bytes", func() *big.Rat { return new(big.Rat).SetInt64(l.bytes) })
		sink.Probe(prefix+"busy_cycles", l.BusyCycles)
	}
}

// StuckReport formats a deadlock report: the first most of what waits
// (lines), then the links still holding packets.
func (n *Network) StuckReport(lines []string, most int) string {
	more := ""
	if len(lines) > most {
		more = fmt.Sprintf("\n  … and %d more", len(lines)-most)
		lines = lines[:most]
	}
	var busy []string
	for _, l := range n.Links {
		if !l.Idle() && len(busy) < most {
			busy = append(busy, l.Describe())
		}
	}
	return "  " + strings.Join(lines, "\n  ") + more + "\nlinks holding packets:\n  " + strings.Join(busy, "\n  ")
}
