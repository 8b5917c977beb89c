package fabric

import (
	"math/big"

	"github.com/acemu/acemu/rtl"
)

// LinkStat is what one link carried over a run (Network.LinkStats).
type LinkStat struct {
	ID, Src, Dst, Port int    // as the link's fields
	Class              string // the link's class, Params.Name (intra, inter, nvlink, tier0, …)
	// SrcSwitch and DstSwitch: the node at that end is a switch.
	SrcSwitch, DstSwitch bool
	Packets, Bytes       int64    // sent, payload bytes
	Busy                 *big.Rat // the serialiser's busy time, exactly, in cycles
	Utilization          float64  // Busy over the run's cycles
	// Peak is the busy share of the link's busiest window of
	// TrackWindows (the last window may be shorter), when HasPeak: its
	// windows are tracked (TrackLinkWindows).
	Peak    float64
	HasPeak bool
}

// LinkStats returns what each link carried over a run of the given length,
// in the order of Links. On a folded network these are NPU 0's links,
// which stand for every NPU's.
func (n *Network) LinkStats(cycles rtl.Cycle) []LinkStat {
	out := make([]LinkStat, 0, len(n.Links))
	for _, l := range n.Links {
		s := LinkStat{ID: l.ID, Src: l.Src, Dst: l.Dst, Port: l.Port, Class: l.Params.Name,
			SrcSwitch: l.fromSwitch, DstSwitch: l.toSwitch,
			Packets: l.Packets(), Bytes: l.Bytes(), Busy: l.BusyCycles()}
		s.Utilization = MeanUtilization([]*Link{l}, cycles)
		if l.own != nil {
			s.HasPeak = true
			if cycles > 0 {
				s.Peak = peakShare([]*rtl.Windows{l.own}, 1, n.window, cycles)
			}
		}
		out = append(out, s)
	}
	return out
}
