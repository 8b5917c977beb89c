package fabric

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Network is a set of links between NPUs, indexed by the sending NPU's port,
// and switches (AddSwitch). Nodes are numbered NPUs first, 0 to NPUs()−1,
// then switches in the order they were added; a link's Src and Dst are
// node numbers. A network with switches is never folded.
type Network struct {
	Links    []*Link
	out      [][]*Link // [npu][port]; one row when folded
	npus     int
	folded   bool
	switches []*Switch // node npus+i is switches[i]
	// Utilisation over time (TrackWindows): the window and, per link rate
	// numerator, the busy time of the links of that rate.
	window  rtl.Cycle
	windows map[int64]*rtl.Windows
	// perPacket: every packet arrives by an event of its own (Absorber).
	perPacket bool
}

// NewNetwork returns an empty network of n NPUs with ports ports each.
func NewNetwork(n, ports int) *Network {
	out := make([][]*Link, n)
	for i := range out {
		out[i] = make([]*Link, ports)
	}
	return &Network{out: out, npus: n}
}

// NewFoldedNetwork returns an empty folded network of n NPUs: only NPU 0's
// outgoing links exist, and each delivers its packets back to NPU 0, which
// stands for every NPU. On a topology whose NPUs all run the same program
// up to a translation (a torus running a translation-equivariant
// collective), NPU 0 then sees exactly what every NPU sees, at 1/n of the
// cost; the endpoints translate each packet's addresses by the hop it made
// (Packet.Shift). Link.Dst still names the real neighbour, for reports.
func NewFoldedNetwork(n, ports int) *Network {
	return &Network{out: [][]*Link{make([]*Link, ports)}, npus: n, folded: true}
}

// Folded reports whether the network is folded (NewFoldedNetwork).
func (n *Network) Folded() bool { return n.folded }

// Add registers l as the link leaving l.Src by port l.Port, an NPU's or
// a switch's (a link out of a switch is made with NewSwitchLink). A link
// arriving at a switch is added with AddToSwitch.
func (n *Network) Add(l *Link) error {
	if n.Switch(l.Dst) != nil {
		return fmt.Errorf("%s arrives at a switch: add it with AddToSwitch, which names the switch's input port", l)
	}
	if l.Dst < 0 || l.Dst >= n.npus && !n.folded {
		return fmt.Errorf("%s: NPU %d out of range (%d NPUs, %d switches)", l, l.Dst, n.npus, len(n.switches))
	}
	if err := n.checkSender(l); err != nil {
		return err
	}
	n.addSender(l)
	return nil
}

// AddToSwitch registers l, which arrives at the switch that is node l.Dst,
// as the link into that switch's input port in, and as the link leaving
// its sender (as Add does).
func (n *Network) AddToSwitch(l *Link, in int) error {
	sw := n.Switch(l.Dst)
	if sw == nil {
		return fmt.Errorf("%s: node %d is not a switch of this network (%d NPUs, %d switches)", l, l.Dst, n.npus, len(n.switches))
	}
	if err := n.checkSender(l); err != nil {
		return err
	}
	if err := sw.checkIn(l, in); err != nil {
		return fmt.Errorf("%s: %w", l, err)
	}
	l.toSwitch, l.inPort = true, in
	sw.in[in] = l
	n.addSender(l)
	return nil
}

// checkSender reports why l cannot leave its sender, an NPU or a switch.
func (n *Network) checkSender(l *Link) error {
	if sw := n.Switch(l.Src); sw != nil {
		if err := sw.checkOut(l); err != nil {
			return fmt.Errorf("%s: %w", l, err)
		}
		return nil
	}
	if l.fromSwitch {
		return fmt.Errorf("%s: made with NewSwitchLink, but node %d is not a switch of this network", l, l.Src)
	}
	if n.folded && l.Src != 0 {
		return fmt.Errorf("%s: a folded network has links out of NPU 0 only", l)
	}
	if l.Src < 0 || l.Src >= len(n.out) || l.Port < 0 || l.Port >= len(n.out[l.Src]) {
		return fmt.Errorf("%s: NPU or port out of range", l)
	}
	if n.out[l.Src][l.Port] != nil {
		return fmt.Errorf("%s: NPU %d port %d already has a link", l, l.Src, l.Port)
	}
	return nil
}

// addSender registers l at its sender, which checkSender accepted.
func (n *Network) addSender(l *Link) {
	if sw := n.Switch(l.Src); sw != nil {
		sw.out[l.Port] = l
	} else {
		n.out[l.Src][l.Port] = l
	}
	n.Links = append(n.Links, l)
}

// AddSwitch adds a switch of parameters p, driven by kernel k, as the
// next node (NPUs(), then NPUs()+1, …): it routes a packet for NPU d to
// its output port route[d], and route has an entry for every NPU. Its
// links are added with Add (leaving it; made with NewSwitchLink) and
// AddToSwitch (arriving at it).
func (n *Network) AddSwitch(k *rtl.Kernel, p SwitchParams, route []int) (*Switch, error) {
	if n.folded {
		return nil, fmt.Errorf("switch %q: a folded network has no switches", p.Name)
	}
	if len(route) != n.npus {
		return nil, fmt.Errorf("switch %q: its routing table has %d NPUs; the network has %d", p.Name, len(route), n.npus)
	}
	sw, err := newSwitch(k, n.npus+len(n.switches), p, route)
	if err != nil {
		return nil, err
	}
	n.switches = append(n.switches, sw)
	return sw, nil
}

// Switches returns the network's switches, node NPUs() first.
func (n *Network) Switches() []*Switch { return n.switches }

// Switch returns the switch that is node node, or nil if it is not one.
func (n *Network) Switch(node int) *Switch {
	if node < n.npus || node >= n.npus+len(n.switches) || n.folded {
		return nil
	}
	return n.switches[node-n.npus]
}

// Check reports a switch that cannot deliver what it may be sent: a
// route to an output port with no link, or routes that take a packet
// round a loop of switches. Call it once the links are added, before a
// run; a network without switches always passes.
func (n *Network) Check() error {
	for _, sw := range n.switches {
		if err := sw.checkRoutes(); err != nil {
			return err
		}
	}
	for _, sw := range n.switches {
		for d := range n.npus {
			// Follow the packet through switches: at most one visit each.
			at := sw
			for hops := 0; ; hops++ {
				if hops == len(n.switches) {
					return fmt.Errorf("%s: a packet for NPU %d goes round a loop of switches", sw, d)
				}
				next := n.Switch(at.out[at.route[d]].Dst)
				if next == nil {
					break // it reaches an NPU
				}
				at = next
			}
		}
	}
	return nil
}

// Ports returns the number of ports of each NPU.
func (n *Network) Ports() int { return len(n.out[0]) }

// NPUs returns the number of NPUs (those a folded network stands for).
func (n *Network) NPUs() int { return n.npus }

// Out returns the link leaving npu by port, or nil if there is none. On a
// folded network every NPU's link by a port is NPU 0's.
func (n *Network) Out(npu, port int) *Link {
	if n.folded {
		return n.out[0][port]
	}
	return n.out[npu][port]
}

// Attach connects endpoint eps[i] to every link of NPU i, as the sender of
// its outgoing links and the receiver of its incoming ones; a switch is
// the endpoint of its own links. A folded network takes one endpoint, NPU
// 0's, at both ends of every link.
//
// Without SetPerPacket, the switches collect the packets of their input
// links (Collector) where that changes nothing (switchesCollect).
func (n *Network) Attach(eps []Endpoint) {
	collect := !n.perPacket && n.switchesCollect()
	for _, sw := range n.switches {
		sw.collects = collect
	}
	for _, l := range n.Links {
		if n.folded {
			l.Attach(eps[0], eps[0], n.perPacket)
			continue
		}
		l.Attach(n.endpoint(eps, l.Src), n.endpoint(eps, l.Dst), n.perPacket)
	}
}

// switchesCollect reports whether the switches may collect their input
// links' packets (Switch.Collects). A switch collecting a packet wakes
// itself when the packet starts, rather than from its arrival event, so
// its arbitration may take another place among other switches' of the
// same cycle (rtl.ClassSwitch, in the order scheduled). That changes
// nothing when one switch's arbitration cannot touch another's, or an
// NPU's, within the cycle:
//   - every link into a switch has a credit latency of a cycle or more,
//     so a credit its arbitration returns starts nothing in that cycle
//     (a packet it sends arrives a cycle later at the earliest: it takes
//     a cycle or more to serialise);
//   - every NPU receives from one link out of a switch at most: the
//     arrivals of such links share one class (rtl.ClassSwitchArrive) and
//     run in the order they were scheduled, which the switches' order
//     could swap for two links into one NPU.
//
// Different NPUs' events of a cycle do not touch one another (only links
// join them), so their order among one another matters to none.
func (n *Network) switchesCollect() bool {
	if len(n.switches) == 0 {
		return false
	}
	fromSwitch := make([]int, n.npus)
	for _, l := range n.Links {
		if l.toSwitch && l.Params.CreditLatency < 1 {
			return false
		}
		if l.fromSwitch && !l.toSwitch {
			if fromSwitch[l.Dst]++; fromSwitch[l.Dst] > 1 {
				return false
			}
		}
	}
	return true
}

// endpoint returns node's endpoint: eps[node] for an NPU, else the switch.
func (n *Network) endpoint(eps []Endpoint, node int) Endpoint {
	if sw := n.Switch(node); sw != nil {
		return sw
	}
	return eps[node]
}

// SetPerPacket makes every packet arrive by an event of its own, even at a
// receiver that could spare them (Absorber), and start by one, even from a
// sender that feeds trains (Feeder): the reference the spared path and the
// trains are compared with. Call it before Attach.
func (n *Network) SetPerPacket(on bool) { n.perPacket = on }

// PerPacket reports whether SetPerPacket asked for every packet by an
// event of its own: endpoints that spare events of their own (the
// baseline's, npu) keep them too, for the same comparison.
func (n *Network) PerPacket() bool { return n.perPacket }

// In returns the links arriving at npu, in the order of the ports they
// leave their senders by (the same order on every NPU), those from
// switches last, in the order they were added; on a folded network, every
// link.
func (n *Network) In(npu int) []*Link {
	var in []*Link
	for p := range n.out[0] {
		for _, l := range n.Links {
			if l.Port == p && !l.fromSwitch && (n.folded || l.Dst == npu) {
				in = append(in, l)
			}
		}
	}
	for _, l := range n.Links {
		if l.fromSwitch && l.Dst == npu {
			in = append(in, l)
		}
	}
	return in
}

// TrackWindows makes the links add up their busy time in windows of w
// cycles, for LinkUtilization; call it before the run.
func (n *Network) TrackWindows(w rtl.Cycle) {
	n.window = w
	n.windows = map[int64]*rtl.Windows{}
	for _, l := range n.Links {
		num := l.ser.Rate().Num
		ws, ok := n.windows[num]
		if !ok {
			ws = rtl.NewWindows(w, num)
			n.windows[num] = ws
		}
		l.windows = ws
	}
}

// TrackLinkWindows makes each link add up its own busy time too, in the
// windows of TrackWindows, for the peak of LinkStats; call it after
// TrackWindows, before the run. It costs a link one more count per
// packet.
func (n *Network) TrackLinkWindows() {
	if n.windows == nil {
		panic("fabric: TrackLinkWindows needs TrackWindows first")
	}
	for _, l := range n.Links {
		l.own = rtl.NewWindows(n.window, l.ser.Rate().Num)
	}
}

// LinkUtilization returns, per window of TrackWindows from cycle 0 to
// cycles, the share of the links' time spent carrying packets: busy time
// summed over links / (links × window), exactly, rounded to a float at the
// end (the last window may be shorter). It is nil without TrackWindows. On
// a folded network it is the share of NPU 0's links, which is every NPU's.
func (n *Network) LinkUtilization(cycles rtl.Cycle) []float64 {
	if n.windows == nil || len(n.Links) == 0 {
		return nil
	}
	nw := int((cycles + n.window - 1) / n.window)
	out := make([]float64, nw)
	sets := n.windowSets()
	for i := range out {
		out[i] = windowShare(sets, len(n.Links), n.window, i, cycles)
	}
	return out
}

// PeakLinkUtilization is the largest value of LinkUtilization(cycles),
// found by visiting only the windows some link was busy in (the others are
// 0): its cost does not grow with idle time. It is 0 without TrackWindows.
func (n *Network) PeakLinkUtilization(cycles rtl.Cycle) float64 {
	if n.windows == nil || len(n.Links) == 0 || cycles <= 0 {
		return 0
	}
	return peakShare(n.windowSets(), len(n.Links), n.window, cycles)
}

// windowSets are the windows of TrackWindows, one set per link rate.
func (n *Network) windowSets() []*rtl.Windows {
	sets := make([]*rtl.Windows, 0, len(n.windows))
	for _, ws := range n.windows {
		sets = append(sets, ws)
	}
	return sets
}

// peakShare is the largest windowShare from cycle 0 to cycles, found by
// visiting only the windows some set was busy in (the others are 0).
func peakShare(sets []*rtl.Windows, links int, w, cycles rtl.Cycle) float64 {
	pages := map[int64]bool{}
	for _, ws := range sets {
		for _, p := range ws.BusyPages() {
			pages[p] = true
		}
	}
	nw := int64((cycles + w - 1) / w)
	peak := 0.0
	for p := range pages {
		for i := p; i < min(p+rtl.PageWindows, nw); i++ {
			peak = max(peak, windowShare(sets, links, w, int(i), cycles))
		}
	}
	return peak
}

// windowShare is the share of links' time busy in window i of w cycles
// (the last, ending at cycles, may be shorter): the busy time of the sets
// (each link counted in one), summed exactly, over links × the window.
func windowShare(sets []*rtl.Windows, links int, w rtl.Cycle, i int, cycles rtl.Cycle) float64 {
	if !slices.ContainsFunc(sets, func(ws *rtl.Windows) bool { return !ws.Idle(i) }) {
		return 0 // no link busy: nothing to allocate (a long series is mostly such windows)
	}
	t := new(big.Rat)
	for _, ws := range sets {
		t.Add(t, ws.Busy(i)) // an exact sum: its order does not matter
	}
	if end := rtl.Cycle(i+1) * w; end > cycles {
		w = cycles - rtl.Cycle(i)*w
	}
	t.Quo(t, big.NewRat(int64(links)*int64(w), 1))
	f, _ := t.Float64()
	return f
}

// Horizon returns the earliest cycle at which a packet not yet reported to
// the links' observers can start: the current cycle, or the next event of
// a train under way (Feeder) if that is earlier. An observer that needs
// packets in time order holds those from Horizon on.
func (n *Network) Horizon() rtl.Cycle {
	if len(n.Links) == 0 {
		return math.MaxInt64
	}
	h := n.Links[0].k.Now() // one kernel drives every link
	for _, l := range n.Links {
		if at, ok := l.nextTrainEvent(); ok {
			h = min(h, at)
		}
	}
	return h
}

// SetObserver installs o on every link (nil removes it): it sees every
// packet sent and received (observe.PacketSent, observe.PacketReceived),
// not necessarily in time order (Link.SetObserver).
func (n *Network) SetObserver(o observe.Observer) {
	for _, l := range n.Links {
		l.SetObserver(o)
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
	if len(lines) == 0 { // never a blank list
		lines = []string{"no chunk under way on a simulated NPU (those unfinished have not started)"}
	}
	report := "  " + strings.Join(lines, "\n  ") + more + "\nlinks holding packets:"
	if len(busy) == 0 {
		report += " none"
	} else {
		report += "\n  " + strings.Join(busy, "\n  ")
	}
	var held []string
	for _, sw := range n.switches {
		if sw.Held() > 0 && len(held) < most {
			held = append(held, sw.Describe())
		}
	}
	if len(held) > 0 {
		report += "\nswitches holding packets:\n  " + strings.Join(held, "\n  ")
	}
	return report
}

// MeanUtilization is the busy share of links over a run of cycles: their
// busy cycles over len(links) × cycles, exact until rounded to a float at
// the end; 0 for no links or no cycles.
func MeanUtilization(links []*Link, cycles rtl.Cycle) float64 {
	if cycles <= 0 || len(links) == 0 {
		return 0
	}
	busy := new(big.Rat)
	for _, l := range links {
		busy.Add(busy, l.BusyCycles())
	}
	f, _ := busy.Quo(busy, big.NewRat(int64(len(links))*int64(cycles), 1)).Float64()
	return f
}
