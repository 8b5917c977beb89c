package torus

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// LinkConfig gives the parameters of the two classes of link.
type LinkConfig struct {
	Intra, Inter fabric.LinkParams
}

// Buffer sizes are not in the paper; see docs/model-choices.md.
const (
	// DefaultTxBuffer is the output port buffer of a link, in packets: one
	// 8 KB message.
	DefaultTxBuffer = 32
	// DefaultRxBuffer is the input port buffer, in packets (32 KB): enough
	// credits to cover a link's credit round trip at full rate (an inter
	// link needs (500+500+14)·18.9/256 ≈ 75, an intra link (90+90+2)·151/256 ≈ 107).
	DefaultRxBuffer = 128
)

// DefaultLinks returns Table V's links: intra-package 200 GB/s and 90
// cycles, inter-package 25 GB/s and 500 cycles, both at 94 % efficiency,
// with credits returning in one link latency.
func DefaultLinks() LinkConfig {
	eff := big.NewRat(94, 100)
	return LinkConfig{
		Intra: fabric.LinkParams{Name: "intra", Rate: rtl.MustRateGBps(big.NewRat(200, 1), eff), Latency: 90,
			TxBuffer: DefaultTxBuffer, RxBuffer: DefaultRxBuffer, CreditLatency: 90},
		Inter: fabric.LinkParams{Name: "inter", Rate: rtl.MustRateGBps(big.NewRat(25, 1), eff), Latency: 500,
			TxBuffer: DefaultTxBuffer, RxBuffer: DefaultRxBuffer, CreditLatency: 500},
	}
}

// Params returns the parameters of a port's link.
func (c LinkConfig) Params(p Port) fabric.LinkParams {
	if p.Class() == Intra {
		return c.Intra
	}
	return c.Inter
}

// BuildNetwork creates one link per port of every NPU of s (ports of size-1
// dimensions have none), numbered NPU by NPU in port order.
func BuildNetwork(k *rtl.Kernel, s Shape, c LinkConfig) (*fabric.Network, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := machine.CheckFull(s.String(), s.N()); err != nil {
		return nil, fmt.Errorf("%w. A run in which one NPU stands for all (folded: docs/architecture.md) is not limited this way, up to %d NPUs", err, MaxNPUs)
	}
	net := fabric.NewNetwork(s.N(), NumPorts)
	for id := 0; id < s.N(); id++ {
		for _, p := range s.Ports() {
			l, err := fabric.NewLink(k, len(net.Links), id, s.Neighbor(id, p), p.Index(), c.Params(p))
			if err != nil {
				return nil, fmt.Errorf("topology %s: %w", s, err)
			}
			if err := net.Add(l); err != nil {
				return nil, err
			}
		}
	}
	return net, nil
}

// BuildFoldedNetwork creates the folded network of s (fabric.NewFoldedNetwork):
// NPU 0's links, one per port, each looping back to NPU 0, which then
// stands for every NPU of a run whose programs are translation-equivariant
// (collectives.CheckEquivariant).
func BuildFoldedNetwork(k *rtl.Kernel, s Shape, c LinkConfig) (*fabric.Network, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	net := fabric.NewFoldedNetwork(s.N(), NumPorts)
	for _, p := range s.Ports() {
		l, err := fabric.NewLink(k, len(net.Links), 0, s.Neighbor(0, p), p.Index(), c.Params(p))
		if err != nil {
			return nil, fmt.Errorf("topology %s: %w", s, err)
		}
		if err := net.Add(l); err != nil {
			return nil, err
		}
	}
	return net, nil
}

// Build is BuildFoldedNetwork when folded, else BuildNetwork.
func Build(k *rtl.Kernel, s Shape, c LinkConfig, folded bool) (*fabric.Network, error) {
	if folded {
		return BuildFoldedNetwork(k, s, c)
	}
	return BuildNetwork(k, s, c)
}

// Arrived is packet p as the NPU it reached over link l sees it: on a
// folded network, with the hop's displacement added to p.Shift (the link
// leads from NPU 0 to l.Dst, which is the displacement).
func (s Shape) Arrived(net *fabric.Network, l *fabric.Link, p fabric.Packet) fabric.Packet {
	if net.Folded() {
		p.Shift = int32(s.Displace(int(p.Shift), l.Dst))
	}
	return p
}

// PacketDst is the NPU packet p is for, in the frame of the NPU holding
// it: its message's destination less the displacement it has travelled
// (zero on a full network).
func (s Shape) PacketDst(p fabric.Packet) int {
	if p.Shift == 0 {
		return int(p.Msg.Dst)
	}
	return s.Displacement(int(p.Shift), int(p.Msg.Dst))
}
