package topology

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Two switches, left (node 4: NPUs 0 and 1) and right (node 5: NPUs 2
// and 3), joined by two lanes left → right and one link back.
// Left's output ports are its outgoing links in file order: 0 → NPU 0,
// 1 → NPU 1, 2 and 3 → right (the lanes); its input ports its incoming
// links in file order: 0 from NPU 0, 1 from NPU 1, 2 from right; so 4
// ports (max(4 out, 3 in)). Right: outputs 0 → left, 1 → NPU 2, 2 → NPU 3;
// inputs 0 from NPU 2, 1 from NPU 3, 2 and 3 from left's lanes; 4 ports.
const twoSwitches = `npus: 4
switches:
  - {name: left}
  - {name: right, latency: 3}
links:
  - {from: 0, to: 4, class: intra}
  - {from: 1, to: 4, class: intra}
  - {from: 2, to: 5, class: intra}
  - {from: 3, to: 5, class: intra}
  - {from: 4, to: 0, class: intra}
  - {from: 4, to: 1, class: intra}
  - {from: 4, to: 5, class: inter, lanes: 2}
  - {from: 5, to: 4, class: inter, latency: 100}
  - {from: 5, to: 2, class: intra}
  - {from: 5, to: 3, class: intra}
`

func TestAFileWithSwitchesRoutesThroughThem(t *testing.T) {
	f, err := Load("two.yaml", []byte(twoSwitches))
	require.NoError(t, err)
	require.Equal(t, 4, f.N())
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			p, ok := f.NextPort(a, b)
			require.Equal(t, a != b, ok)
			require.Equal(t, 0, p, "an NPU's one port is to its switch")
		}
	}
	s := DefaultLinkSettings()
	net, err := f.Build(rtl.NewKernel(), s)
	require.NoError(t, err)
	require.Len(t, net.Links, 11, "10 lines, one of 2 lanes")
	require.Equal(t, 1, net.Ports())
	require.Len(t, net.Switches(), 2)
	left, right := net.Switch(4), net.Switch(5)
	require.Equal(t, fabric.SwitchParams{Name: "left", Ports: 4}, left.Params)
	require.Equal(t, fabric.SwitchParams{Name: "right", Ports: 4, Latency: 3}, right.Params)
	for _, tc := range []struct {
		sw        *fabric.Switch
		routes    []int // output port per NPU 0…3
		inputFrom []int // sender of input port 0, 1, …
	}{
		// Left: NPUs 2 and 3 go right, over two lanes: the first
		// destination by the first (port 2), the second by the second
		// (port 3).
		{left, []int{0, 1, 2, 3}, []int{0, 1, 5}},
		// Right: NPUs 0 and 1 go left by port 0.
		{right, []int{0, 0, 1, 2}, []int{2, 3, 4, 4}},
	} {
		for d, o := range tc.routes {
			require.Equal(t, o, tc.sw.Route(d), "%s → NPU %d", tc.sw, d)
		}
		for i, from := range tc.inputFrom {
			require.Equal(t, from, tc.sw.In(i).Src, "%s input %d", tc.sw, i)
		}
	}
	require.Equal(t, 3, right.In(3).Port, "left's second lane leaves by its port 3 into right's input 3")
	back := right.Out(0)
	require.Equal(t, "inter", back.Params.Name)
	require.Equal(t, s.Inter.Rate, back.Params.Rate)
	require.Equal(t, rtl.Cycle(100), back.Params.Latency, "the link's own latency overrides its class's 500")
	require.Equal(t, rtl.Cycle(100), back.Params.CreditLatency)
	require.Equal(t, s.Intra, withBuffers(net.Out(2, 0).Params, s.Intra), "NPU 2's link is the intra class")
}

// withBuffers is p with want's buffers, for comparing a link's params with
// a class's.
func withBuffers(p, want fabric.LinkParams) fabric.LinkParams {
	p.TxBuffer, p.RxBuffer = want.TxBuffer, want.RxBuffer
	return p
}

// A link's class gives its bandwidth and latency where the link gives
// none, from the platform's links: here an inter link of latency 777 and
// an intra link of 50 GB/s, so that a class's values are seen to come
// from the settings. 50 GB/s × 0.94 = 47 GB/s of payload.
func TestLinkClassesTakeThePlatformsLinks(t *testing.T) {
	s := DefaultLinkSettings()
	s.Inter.Latency, s.Inter.CreditLatency = 777, 777
	s.Intra.Rate = rtl.MustRateGBps(big.NewRat(50, 1), s.Efficiency)
	s.Intra.Latency, s.Intra.CreditLatency = 60, 60
	eff := s.Efficiency
	for _, tc := range []struct {
		link string
		name string
		gbps int64
		lat  rtl.Cycle
	}{
		{"class: intra", "intra", 50, 60},
		{"class: inter", "inter", 25, 777},
		{"class: nvlink", "nvlink", 25, 777},
		{"class: tier0", "tier0", 50, 60},
		{"class: tier2", "tier2", 25, 777},
		{"class: nvlink, bandwidth: 100GB/s", "nvlink", 100, 777},
		{"class: intra, latency: 7", "intra", 50, 7},
		{"class: inter, latency: 0", "inter", 25, 0},
		{"bandwidth: 10GB/s, latency: 9", "0-1", 10, 9},
	} {
		t.Run(tc.link, func(t *testing.T) {
			text := fmt.Sprintf("nodes: 2\nlinks:\n  - {from: 0, to: 1, %s}\n  - {from: 1, to: 0, bandwidth: 1GB/s, latency: 0}\n", tc.link)
			f, err := Load("c.yaml", []byte(text))
			require.NoError(t, err)
			net, err := f.Build(rtl.NewKernel(), s)
			require.NoError(t, err)
			p := net.Out(0, 0).Params
			require.Equal(t, tc.name, p.Name)
			require.Equal(t, rtl.MustRateGBps(big.NewRat(tc.gbps, 1), eff), p.Rate)
			require.Equal(t, tc.lat, p.Latency)
			require.Equal(t, tc.lat, p.CreditLatency)
			require.Equal(t, s.TxBuffer, p.TxBuffer)
		})
	}
}

// lanes: 3 is three parallel links, ports 0 to 2 of node 0, in place in
// file order: node 0's link to node 2 is its port 3; of the destinations
// node 0 routes through node 1, in id order, the i-th takes lane i mod 3:
// node 1 is the only one, so lane 0 (port 0).
func TestLanesExpandIntoParallelLinks(t *testing.T) {
	f, err := Load("l.yaml", []byte(`nodes: 3
links:
  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 0, lanes: 3}
  - {from: 0, to: 2, bandwidth: 10GB/s, latency: 0}
  - {from: 1, to: 0, bandwidth: 10GB/s, latency: 0}
  - {from: 2, to: 0, bandwidth: 10GB/s, latency: 0}
`))
	require.NoError(t, err)
	require.Len(t, f.Links, 6)
	net, err := f.Build(rtl.NewKernel(), DefaultLinkSettings())
	require.NoError(t, err)
	require.Equal(t, 4, net.Ports())
	for p, to := range []int{1, 1, 1, 2} {
		require.Equal(t, to, net.Out(0, p).Dst, "port %d", p)
	}
	for dst, port := range map[int]int{1: 0, 2: 3} {
		p, ok := f.NextPort(0, dst)
		require.True(t, ok)
		require.Equal(t, port, p, "0 → %d", dst)
	}
	p, _ := f.NextPort(1, 2)
	require.Equal(t, 0, p, "1 → 2 by 0")
}

// switches: K is K switches of default names (s0, s1 …) and as many ports
// as their links need.
func TestASwitchCountDeclaresDefaultSwitches(t *testing.T) {
	f, err := Load("k.yaml", []byte(`npus: 2
switches: 1
links:
  - {from: 0, to: 2, bandwidth: 10GB/s, latency: 0}
  - {from: 1, to: 2, bandwidth: 10GB/s, latency: 0}
  - {from: 2, to: 0, bandwidth: 10GB/s, latency: 0}
  - {from: 2, to: 1, bandwidth: 10GB/s, latency: 0}
`))
	require.NoError(t, err)
	require.Equal(t, []FileSwitch{{Name: "s0", Ports: 2}}, f.Switches)
	// JSON is read as well: the same file.
	j, err := Load("k.json", []byte(`{"npus": 2, "switches": [{"name": "x", "ports": 3}], "links": [
	  {"from": 0, "to": 2, "class": "inter"}, {"from": 1, "to": 2, "class": "inter"},
	  {"from": 2, "to": 0, "class": "inter"}, {"from": 2, "to": 1, "class": "inter"}]}`))
	require.NoError(t, err)
	require.Equal(t, []FileSwitch{{Name: "x", Ports: 3}}, j.Switches)
}

func TestBadSwitchAndClassFilesAreRefused(t *testing.T) {
	const pair = "  - {from: 1, to: 0, bandwidth: 1GB/s, latency: 0}\n"
	for _, tc := range []struct{ name, text, msg string }{
		{"no bandwidth nor class", "nodes: 2\nlinks:\n  - {from: 0, to: 1, latency: 5}\n" + pair,
			"t.yaml: link 1 (0 → 1): no bandwidth: give bandwidth (e.g. 25GB/s) or a class (intra, inter, nvlink, tier0"},
		{"unknown class", "nodes: 2\nlinks:\n  - {from: 0, to: 1, class: pcie}\n" + pair,
			`t.yaml: link 1 (0 → 1): class "pcie": give one of intra, inter, nvlink, tier0, tier1, tier2, tier3, tier4, tier5`},
		{"lanes 0", "nodes: 2\nlinks:\n  - {from: 0, to: 1, class: inter, lanes: 0}\n" + pair, "link 1 (0 → 1): lanes 0: give 1 to 16 parallel links"},
		{"lanes 17", "nodes: 2\nlinks:\n  - {from: 0, to: 1, class: inter, lanes: 17}\n" + pair, "lanes 17: give 1 to 16"},
		{"lanes over an NPU's ports", "nodes: 3\nlinks:\n  - {from: 0, to: 1, class: inter, lanes: 16}\n  - {from: 0, to: 2, class: inter}\n",
			"link 2 (0 → 2): node 0's link 17; a node has at most 16 outgoing links"},
		{"nodes with switches", "nodes: 2\nswitches: 1\nlinks: []\n", "nodes 2 with switches: write npus: N"},
		{"nodes and npus", "nodes: 2\nnpus: 2\n", "nodes 2 and npus 2: give one"},
		{"npus too few", "npus: 1\n", "npus 1: give 2 to 4096"},
		{"switch without links", "npus: 2\nswitches: 1\nlinks:\n  - {from: 0, to: 1, class: inter}\n" + pair,
			`t.yaml: switch "s0" (node 2) has no links: link it`},
		{"switch ports too few", "npus: 2\nswitches: [{ports: 1}]\nlinks:\n  - {from: 0, to: 2, class: inter}\n  - {from: 2, to: 0, class: inter}\n  - {from: 2, to: 1, class: inter}\n  - {from: 1, to: 2, class: inter}\n",
			`switch "s0" (node 2): 1 ports, but 2 links leave it and 2 arrive: give ports: 2 or more`},
		{"switch ports over the radix", "npus: 2\nswitches: [{ports: 2000}]\n", `switch "s0" (node 2): ports 2000: give 1 to 1024`},
		{"switch latency", "npus: 2\nswitches: [{latency: -1}]\n", `switch "s0" (node 2): latency -1 cycles`},
		{"switch reaches no NPU", "npus: 2\nswitches: [{name: sink}]\nlinks:\n  - {from: 0, to: 2, class: inter}\n  - {from: 0, to: 1, class: inter}\n" + pair,
			`t.yaml: switch "sink" (node 2) cannot reach NPU 0, which its routing table needs`},
		{"node out of range", "npus: 2\nswitches: 1\nlinks:\n  - {from: 0, to: 3, class: inter}\n", "link 1 (0 → 3): nodes are 0 to 2 (NPUs 0 to 1, then switches 2 to 2)"},
		{"switches not a count", "npus: 2\nswitches: many\n", `switches "many": give a count (0 to 4096) or a list`},
		{"switches too many", "npus: 2\nswitches: 5000\n", `switches "5000": give a count (0 to 4096)`},
		{"switches a map", "npus: 2\nswitches: {a: 1}\n", "switches: give a count or a list"},
		{"unknown switch key", "npus: 2\nswitches: [{name: a, radix: 4}]\n", `a switch has no key "radix"; give name, ports or latency`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(tc.text))
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// linkKey is what a link is compared by across a dump: its ends, port,
// and parameters.
type linkKey struct {
	Src, Dst, Port         int
	Rate                   rtl.Rate
	Latency, CreditLatency rtl.Cycle
	Name                   string
	InPort                 int // at a switch; -1 at an NPU
	TxBuffer, RxBuffer     int
}

// keys are net's links by sending node and port, with their input port
// at a switch.
func keys(net *fabric.Network) []linkKey {
	var ks []linkKey
	for _, l := range sortedLinks(net) {
		in := -1
		if sw := net.Switch(l.Dst); sw != nil {
			for i := range sw.Params.Ports {
				if sw.In(i) == l {
					in = i
				}
			}
		}
		p := l.Params
		ks = append(ks, linkKey{l.Src, l.Dst, l.Port, p.Rate, p.Latency, p.CreditLatency, p.Name, in, p.TxBuffer, p.RxBuffer})
	}
	return ks
}

// switchKey is a switch compared across a dump: its node, parameters and
// routing table.
type switchKey struct {
	Node   int
	Params fabric.SwitchParams
	Routes []int
}

func switchKeys(net *fabric.Network) []switchKey {
	var ks []switchKey
	for _, sw := range net.Switches() {
		k := switchKey{Node: sw.Node, Params: sw.Params}
		for d := range net.NPUs() {
			k.Routes = append(k.Routes, sw.Route(d))
		}
		ks = append(ks, k)
	}
	return ks
}

// A switch fabric's and dgx1's networks dumped in the classed form and
// read back build the same network: every link's ends, port, input port,
// rate, latency and class, every switch's parameters and routes, and the
// NPUs' routes; a second dump is the first. Dumped under other settings
// than it was built with (inter latency 700), a class's link writes its
// own latency (500), and reads back to it under those settings.
func TestSwitchFabricAndDGX1DumpsReadBack(t *testing.T) {
	other := DefaultLinkSettings()
	other.Inter.Latency, other.Inter.CreditLatency = 700, 700
	for _, tc := range []struct {
		topo     string
		dumpWith LinkSettings
		switches int
		has      string
	}{
		{"switch:4x4", DefaultLinkSettings(), 5, "{from: 16, to: 20, class: tier1}"},
		{"switch:4x2x2", DefaultLinkSettings(), 4 + 2 + 1, `{name: core 0, ports: 2}`},
		{"switch:3", DefaultLinkSettings(), 1, "{from: 3, to: 0, class: tier0}"},
		{"dgx1", DefaultLinkSettings(), 0, "{from: 0, to: 3, class: nvlink, lanes: 2}"},
		{"dgx1", other, 0, "{from: 0, to: 3, class: nvlink, latency: 500, lanes: 2}"},
		{"switch:4x4", other, 5, "{from: 16, to: 20, class: tier1, latency: 500}"},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			spec, err := Parse(tc.topo)
			require.NoError(t, err)
			net, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
			require.NoError(t, err)
			b, err := Dump(net, spec.Machine.Dims, spec.Machine.Trees, tc.dumpWith, Classed)
			require.NoError(t, err)
			require.Contains(t, string(b), tc.has)
			f, err := Load("dump.yaml", b)
			require.NoError(t, err)
			m, err := f.Machine()
			require.NoError(t, err)
			require.Equal(t, spec.Machine.Trees, m.Trees, "the trees read back")
			back, err := f.Build(rtl.NewKernel(), tc.dumpWith)
			require.NoError(t, err)
			require.Len(t, back.Switches(), tc.switches)
			require.Equal(t, keys(net), keys(back))
			require.Equal(t, switchKeys(net), switchKeys(back))
			for a := range net.NPUs() {
				for d := range net.NPUs() {
					p, ok := spec.Machine.Topology.NextPort(a, d)
					q, ok2 := f.NextPort(a, d)
					require.Equal(t, []any{p, ok}, []any{q, ok2}, "%d → %d", a, d)
				}
			}
			b2, err := Dump(back, spec.Machine.Dims, m.Trees, tc.dumpWith, Classed)
			require.NoError(t, err)
			require.Equal(t, string(b), string(b2))
		})
	}
}

// dgx1 written with class nvlink and lanes builds the network its former
// form did, one line per NVLink each way with bandwidth 25GB/s and
// latency 500 (Table V's inter-package link): the same links in the same
// order (IDs), with the same ports, rates and latencies, and the same
// routes; its links are named nvlink.
func TestDGX1IsTheNetworkItWas(t *testing.T) {
	var b strings.Builder
	b.WriteString("nodes: 8\nlinks:\n")
	for _, p := range DGX1Pairs {
		for range p.Links {
			fmt.Fprintf(&b, "  - {from: %d, to: %d, bandwidth: 25GB/s, latency: 500}\n", p.A, p.B)
			fmt.Fprintf(&b, "  - {from: %d, to: %d, bandwidth: 25GB/s, latency: 500}\n", p.B, p.A)
		}
	}
	old, err := Load("old", []byte(b.String()))
	require.NoError(t, err)
	was, err := old.Build(rtl.NewKernel(), DefaultLinkSettings())
	require.NoError(t, err)
	spec, err := Parse("dgx1")
	require.NoError(t, err)
	now, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
	require.NoError(t, err)
	require.Len(t, now.Links, 48, "24 NVLinks, each way")
	require.Len(t, was.Links, len(now.Links))
	for i, l := range now.Links {
		w := was.Links[i]
		require.Equal(t, []any{w.ID, w.Src, w.Dst, w.Port, w.Params.Rate, w.Params.Latency, w.Params.CreditLatency},
			[]any{l.ID, l.Src, l.Dst, l.Port, l.Params.Rate, l.Params.Latency, l.Params.CreditLatency}, "link %d", i)
		require.Equal(t, "nvlink", l.Params.Name)
	}
	for a := range 8 {
		for d := range 8 {
			p, _ := old.NextPort(a, d)
			q, _ := spec.Machine.Topology.NextPort(a, d)
			require.Equal(t, p, q, "%d → %d", a, d)
		}
	}
}

// A network whose switch takes its inputs in an order a file cannot give
// (the spine's links from leaves 1 and 0 swapped) is refused by Dump,
// naming the switch, rather than written to read back as another.
func TestDumpRefusesSwitchPortsAFileCannotHold(t *testing.T) {
	k := rtl.NewKernel()
	s := DefaultLinkSettings()
	p := s.Inter
	net := fabric.NewNetwork(2, 1)
	sw, err := net.AddSwitch(k, fabric.SwitchParams{Name: "x", Ports: 2}, []int{0, 1})
	require.NoError(t, err)
	for npu, in := range []int{1, 0} { // NPU 0 into input 1, NPU 1 into input 0
		up, err := fabric.NewLink(k, len(net.Links), npu, sw.Node, 0, p)
		require.NoError(t, err)
		require.NoError(t, net.AddToSwitch(up, in))
		down, err := fabric.NewSwitchLink(k, len(net.Links), sw.Node, npu, npu, p)
		require.NoError(t, err)
		require.NoError(t, net.Add(down))
	}
	_, err = Dump(net, nil, nil, s, Classed)
	require.ErrorContains(t, err, `switch "x" (node 2): link 0 (inter, NPU 0 → switch node 2) is not at input port 0`)
	_, _, _, err = Table(net, nil, nil, s, Classed)
	require.Error(t, err)
}

// Table's classed rows name each link's class with its bandwidth and
// latency; the plain rows of a torus have no class column.
func TestTableColumns(t *testing.T) {
	for _, tc := range []struct {
		topo   string
		header []string
		row0   []string
	}{
		// NPU 0 → leaf 0 (node 4 of switch:2x2): tier0, Table V's intra link.
		{"switch:2x2", ClassColumns, []string{"0", "4", "tier0", "200GB/s", "90"}},
		{"dgx1", ClassColumns, []string{"0", "1", "nvlink", "25GB/s", "500"}},
		{"4x1x1", Columns, []string{"0", "1", "200GB/s", "90"}},
	} {
		spec, err := Parse(tc.topo)
		require.NoError(t, err)
		net, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
		require.NoError(t, err)
		form := Classed
		if tc.topo == "4x1x1" {
			form = Plain
		}
		header, rows, _, err := Table(net, spec.Machine.Dims, nil, DefaultLinkSettings(), form)
		require.NoError(t, err)
		require.Equal(t, tc.header, header, tc.topo)
		require.Equal(t, tc.row0, rows[0], tc.topo)
		require.Len(t, rows, len(net.Links))
	}
}
