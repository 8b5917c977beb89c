package topology

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/units"
)

// Switched is a multi-tier switch fabric (the tiers of "BlueConnect: Novel
// Hierarchical All-Reduce on Multi-tired Network for Deep Learning", Section
// 2.1 and Fig. 1): Fanout[0] NPUs under each tier-0 switch, Fanout[t]
// tier-(t−1) switches under each tier-t switch, one switch at the top. NPU i's
// tier-t coordinate is its digit of place value Fanout[0]·…·Fanout[t−1]: NPUs
// 0–3 share the first leaf of switch:4x4. Each NPU has one port, to its leaf;
// every message goes through the switches (docs/topology.md, "Switch
// fabrics").
type Switched struct {
	Fanout []int
	n      int
}

// tierNames name the tiers' dimensions for collectives (--group, --phases).
var tierNames = []string{"leaf", "spine", "core", "tier3", "tier4", "tier5"}

// MaxSwitchedNPUs bounds a switch fabric's NPUs (its routing tables are
// one entry per NPU per switch).
const MaxSwitchedNPUs = 4096

// ParseSwitched reads "switch:P0xP1[x…]": the fan-out of each tier, lowest
// first, each at least 2, at most len(tierNames) tiers.
func ParseSwitched(spec string) (*Switched, error) {
	body, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(spec)), "switch:")
	if !ok {
		return nil, fmt.Errorf("topology %q: a switch fabric is switch:P0xP1…, e.g. switch:4x4 (4 NPUs per leaf switch, 4 leaves under a spine)", spec)
	}
	s := &Switched{n: 1}
	for i, f := range strings.Split(body, "x") {
		n, err := units.ParseInt(f)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return nil, fmt.Errorf("topology %q: tier %d's fan-out %q is not a whole number (%v); write e.g. switch:4x4", spec, i, f, err)
		case err != nil || n < 2 || n > MaxSwitchedNPUs:
			return nil, fmt.Errorf("topology %q: tier %d's fan-out %s: give 2 to %d (a tier of 1 is no tier)", spec, i, strings.TrimSpace(f), MaxSwitchedNPUs)
		}
		p := int(n)
		s.Fanout = append(s.Fanout, p)
		s.n *= p
		if s.n > MaxSwitchedNPUs {
			return nil, fmt.Errorf("topology %q: more than %d NPUs", spec, MaxSwitchedNPUs)
		}
	}
	if len(s.Fanout) > len(tierNames) {
		return nil, fmt.Errorf("topology %q: %d tiers; give at most %d", spec, len(s.Fanout), len(tierNames))
	}
	return s, nil
}

// N is the number of NPUs.
func (s *Switched) N() int { return s.n }

// String is the spec, e.g. "switch:4x4".
func (s *Switched) String() string {
	var f []string
	for _, p := range s.Fanout {
		f = append(f, strconv.Itoa(p))
	}
	return "switch:" + strings.Join(f, "x")
}

// NextPort is an NPU's one port, to its leaf switch.
func (s *Switched) NextPort(cur, dst int) (int, bool) { return 0, cur != dst }

// Arrived is p: packets reach NPUs only at their destination.
func (s *Switched) Arrived(_ *fabric.Network, _ *fabric.Link, p fabric.Packet) fabric.Packet {
	return p
}

// PacketDst is the NPU the packet is for.
func (s *Switched) PacketDst(p fabric.Packet) int { return int(p.Msg.Dst) }

// Dims are the tiers as dimensions: tier t's groups are the NPUs under one
// tier-t switch that differ only in their tier-t digit; not rings of links
// (every message goes through the switches).
func (s *Switched) Dims() []machine.Dim {
	out := make([]machine.Dim, len(s.Fanout))
	stride := 1
	for t, p := range s.Fanout {
		out[t] = machine.Strided(tierNames[t], tierNames[t][:1], s.n, p, stride, false, 0, 0)
		stride *= p
	}
	return out
}

// Build returns the fabric: NPU–leaf links of class tier0 (both ways, by
// default the platform's intra-package link) and switch–switch links of
// the upper tiers, classes tier1… (by default its inter-package link)
// [choice, docs/topology.md]; links.tierT.* set a tier's own; switches
// add no latency of their own.
func (s *Switched) Build(k *rtl.Kernel, l LinkSettings) (*fabric.Network, error) {
	net := fabric.NewNetwork(s.n, 1)
	params := func(t int) fabric.LinkParams {
		p, _ := classParams("tier"+strconv.Itoa(t), l) // tier0…tier5 are classes
		p.TxBuffer, p.RxBuffer = l.TxBuffer, l.RxBuffer
		return p
	}
	// below[t] are the nodes of tier t's children (NPUs for t = 0).
	below := make([]int, s.n)
	for i := range below {
		below[i] = i
	}
	span := 1 // NPUs under one child of the tier being built
	for t, p := range s.Fanout {
		top := t == len(s.Fanout)-1
		ports := p
		if !top {
			ports++ // the up port, p
		}
		var built []int
		for first := 0; first < len(below); first += p {
			route := make([]int, s.n)
			base := (first / p) * p * span // the switch's first NPU
			for d := range route {
				if d >= base && d < base+p*span {
					route[d] = (d - base) / span
				} else {
					route[d] = p
				}
			}
			sw, err := net.AddSwitch(k, fabric.SwitchParams{Name: fmt.Sprintf("%s %d", tierNames[t], first/p), Ports: ports}, route)
			if err != nil {
				return nil, err
			}
			for c := 0; c < p; c++ {
				child := below[first+c]
				up, err := s.link(k, net, t, child, sw.Node, params(t))
				if err != nil {
					return nil, err
				}
				if err := net.AddToSwitch(up, c); err != nil {
					return nil, err
				}
				down, err := fabric.NewSwitchLink(k, len(net.Links), sw.Node, child, c, params(t))
				if err != nil {
					return nil, err
				}
				if t == 0 {
					err = net.Add(down)
				} else {
					err = net.AddToSwitch(down, p2(net, child))
				}
				if err != nil {
					return nil, err
				}
			}
			built = append(built, sw.Node)
		}
		below, span = built, span*p
	}
	if err := net.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	return net, nil
}

// link is the link up from child (an NPU for tier 0, else a switch) to
// the tier-t switch parent: out of the NPU's one port, or the child
// switch's up port.
func (s *Switched) link(k *rtl.Kernel, net *fabric.Network, t, child, parent int, p fabric.LinkParams) (*fabric.Link, error) {
	if t == 0 {
		return fabric.NewLink(k, len(net.Links), child, parent, 0, p)
	}
	return fabric.NewSwitchLink(k, len(net.Links), child, parent, s.Fanout[t-1], p)
}

// p2 is the input port of switch node sw for the link down from its
// parent: its up port, the one after its down ports.
func p2(net *fabric.Network, sw int) int { return net.Switch(sw).Params.Ports - 1 }

func init() {
	Register("a switch fabric switch:P0xP1… (e.g. switch:4x4, docs/topology.md)", func(spec string) (*Spec, bool, error) {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(spec)), "switch:") {
			return nil, false, nil
		}
		s, err := ParseSwitched(spec)
		if err != nil {
			return nil, false, err
		}
		m, err := machine.New(s.String(), s, s.Dims())
		if err != nil {
			return nil, false, err
		}
		return &Spec{Kind: "switch", Machine: m,
			Build: func(k *rtl.Kernel, l LinkSettings, _ bool) (*fabric.Network, error) { return s.Build(k, l) }}, true, nil
	})
}
