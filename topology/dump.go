package topology

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/units"
)

// Form is how Dump and Table write a network's links.
type Form int

const (
	// Plain writes every link's bandwidth and latency, and no class: the
	// form of a torus's dump.
	Plain Form = iota
	// Classed writes a link whose name is a class (intra, inter, nvlink,
	// tier0 …) by its class, with its bandwidth and latency only where
	// they differ from the class's under the platform's links, and runs of
	// parallel links alike as lanes. A network none of whose links is
	// named by a class is written as Plain writes it.
	Classed
)

// Columns names the columns of Table's rows in the plain form.
var Columns = []string{"from", "to", "bandwidth", "latency_cycles"}

// ClassColumns names the columns of Table's rows in the classed form.
var ClassColumns = []string{"from", "to", "class", "bandwidth", "latency_cycles"}

// sortedLinks are net's links ordered by sending node and port: the order
// a file gives them in.
func sortedLinks(net *fabric.Network) []*fabric.Link {
	ls := append([]*fabric.Link(nil), net.Links...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Src != ls[j].Src {
			return ls[i].Src < ls[j].Src
		}
		return ls[i].Port < ls[j].Port
	})
	return ls
}

// checkSwitchPorts reports a switch whose ports the file's numbering
// would not give back: a file numbers a switch's output ports by its
// outgoing links in order, and its input ports by its incoming links in
// the order of their senders and ports (ls's order).
func checkSwitchPorts(net *fabric.Network, ls []*fabric.Link) error {
	outs, ins := map[int]int{}, map[int]int{}
	for _, l := range ls {
		if sw := net.Switch(l.Src); sw != nil {
			if l.Port != outs[l.Src] {
				return fmt.Errorf("%s: its output port %d is its link number %d; a topology file numbers a switch's output ports by its links, from 0 without gaps", sw, l.Port, outs[l.Src])
			}
			outs[l.Src]++
		}
		if sw := net.Switch(l.Dst); sw != nil {
			if sw.In(ins[l.Dst]) != l {
				return fmt.Errorf("%s: %s is not at input port %d; a topology file gives a switch's input ports to its incoming links in the order of their senders and ports", sw, l, ins[l.Dst])
			}
			ins[l.Dst]++
		}
	}
	return nil
}

// classed reports whether form writes net with classes: some link is
// named by one.
func classed(net *fabric.Network, form Form) bool {
	if form != Classed {
		return false
	}
	for _, l := range net.Links {
		if _, ok := classParams(l.Params.Name, LinkSettings{}); ok {
			return true
		}
	}
	return false
}

// rawBandwidth is a link's raw bandwidth: its payload rate over
// efficiency, in the file's unit.
func rawBandwidth(l *fabric.Link, efficiency *big.Rat) string {
	raw := new(big.Rat).Quo(l.Params.Rate.Rat(), efficiency)
	raw.Mul(raw, big.NewRat(rtl.ClockHz, 1_000_000_000))
	return units.FormatBandwidth(raw)
}

// linkDocOf is link l in the file's form: by its class, and its bandwidth
// and latency where they differ from the class's, when withClass and its
// name is a class; else with its bandwidth and latency.
func linkDocOf(l *fabric.Link, s LinkSettings, withClass bool) linkDoc {
	lat := int64(l.Params.Latency)
	d := linkDoc{From: l.Src, To: l.Dst, Bandwidth: rawBandwidth(l, s.Efficiency), Latency: &lat}
	c, ok := classParams(l.Params.Name, s)
	if !withClass || !ok {
		return d
	}
	d.Class = c.Name
	if l.Params.Rate.Rat().Cmp(c.Rate.Rat()) == 0 {
		d.Bandwidth = ""
	}
	if l.Params.Latency == c.Latency && l.Params.CreditLatency == c.CreditLatency {
		d.Latency = nil
	}
	return d
}

// sameLink reports whether a and b are written alike, lanes aside.
func sameLink(a, b linkDoc) bool {
	la, lb := a.Latency, b.Latency
	return a.From == b.From && a.To == b.To && a.Class == b.Class && a.Bandwidth == b.Bandwidth &&
		(la == nil) == (lb == nil) && (la == nil || *la == *lb)
}

// dimDocs are dims in the file's form, none when they are a file's
// default (all, routed). A ring's ports must be what a file gives it:
// each member's first link, among ls, to its next and previous member
// (ringLane).
func dimDocs(dims []machine.Dim, ls []*fabric.Link) ([]dimDoc, error) {
	if len(dims) == 0 || defaultDims(dims) {
		return nil, nil
	}
	if len(dims) > MaxFileDims {
		return nil, fmt.Errorf("a topology file cannot hold %d dimensions; it holds at most %d", len(dims), MaxFileDims)
	}
	lanes := map[[2]int][]*fabric.Link{} // NPU a's lanes to NPU b, in port order: links alike the first (File.PortsTo)
	for _, l := range ls {
		k := [2]int{l.Src, l.Dst}
		if f := lanes[k]; len(f) == 0 || (l.Params.Name == f[0].Params.Name && l.Params.Rate == f[0].Params.Rate && l.Params.Latency == f[0].Params.Latency) {
			lanes[k] = append(lanes[k], l)
		}
	}
	var out []dimDoc
	for i := range dims {
		d := &dims[i]
		if !dimName(d.Name) || !dimName(d.Short) {
			return nil, fmt.Errorf("a topology file cannot hold dimension %q (short %q): a file's names are letters, digits, - or _, starting with a letter", d.Name, d.Short)
		}
		dd := dimDoc{Name: d.Name, Ring: d.Ring}
		if d.Short != d.Name[:1] {
			dd.Short = d.Short
		}
		for npu := 0; npu < d.N(); npu++ {
			if d.Pos(npu) != 0 {
				continue
			}
			g, _ := d.Group(npu)
			dd.Groups = append(dd.Groups, g)
			for j, a := range g {
				if !d.Ring || len(g) < 2 {
					break
				}
				plus, minus := d.Ports(a)
				for dir, e := range []struct {
					port int8
					to   int
				}{{plus, g[(j+1)%len(g)]}, {minus, g[(j+len(g)-1)%len(g)]}} {
					ls := lanes[[2]int{a, e.to}]
					if len(ls) == 0 || ls[ringLane(len(g), dir, len(ls))].Port != int(e.port) {
						return nil, fmt.Errorf("a topology file cannot hold dimension %s: NPU %d's ring port %d toward NPU %d is not the link to it a file's ring takes (its first; back in a ring of two, its second)", d.Name, a, e.port, e.to)
					}
				}
			}
		}
		out = append(out, dd)
	}
	return out, nil
}

// doc is net's switches and links in the file's form, raw bandwidths
// being the links' payload rates over s.Efficiency, ordered by sending
// node and port, and the dimensions dims unless they are a file's default;
// withClass tells whether classes and lanes are written.
func doc(net *fabric.Network, dims []machine.Dim, trees [][]int, s LinkSettings, form Form) (d fileDoc, withClass bool, err error) {
	ls := sortedLinks(net)
	d.Trees = treeDocs(trees)
	if err := checkSwitchPorts(net, ls); err != nil {
		return d, false, fmt.Errorf("a topology file cannot hold this network: %w", err)
	}
	if d.Dims, err = dimDocs(dims, ls); err != nil {
		return d, false, err
	}
	if sws := net.Switches(); len(sws) > 0 {
		d.NPUs = net.NPUs()
		for _, sw := range sws {
			d.Switches = append(d.Switches, switchDoc{Name: sw.Params.Name, Ports: sw.Params.Ports, Latency: int64(sw.Params.Latency)})
		}
	} else {
		d.Nodes = net.NPUs()
	}
	withClass = classed(net, form)
	for _, l := range ls {
		ld := linkDocOf(l, s, withClass)
		if last := len(d.Links) - 1; withClass && last >= 0 && sameLink(d.Links[last], ld) {
			if lanes := d.Links[last].Lanes; lanes == nil || *lanes < MaxLanes {
				n := 2
				if lanes != nil {
					n = *lanes + 1
				}
				d.Links[last].Lanes = &n
				continue
			}
		}
		d.Links = append(d.Links, ld)
	}
	return d, withClass, nil
}

// Table returns the links Dump writes, one row each (lanes apart), with
// their columns, and the same document, dims included, as a value for
// encoding/json (Load reads its JSON back). In the classed form a row
// names the link's class and gives its bandwidth and latency, its class's
// or its own.
func Table(net *fabric.Network, dims []machine.Dim, trees [][]int, s LinkSettings, form Form) (header []string, rows [][]string, document any, err error) {
	d, withClass, err := doc(net, dims, trees, s, form)
	if err != nil {
		return nil, nil, nil, err
	}
	header = Columns
	if withClass {
		header = ClassColumns
	}
	for _, l := range sortedLinks(net) {
		row := []string{strconv.Itoa(l.Src), strconv.Itoa(l.Dst), rawBandwidth(l, s.Efficiency), strconv.FormatInt(int64(l.Params.Latency), 10)}
		if withClass {
			class := ""
			if _, ok := classParams(l.Params.Name, s); ok {
				class = l.Params.Name
			}
			row = append(row[:2], append([]string{class}, row[2:]...)...)
		}
		rows = append(rows, row)
	}
	return header, rows, d, nil
}

// Dump writes net (any topology's network) in the file format, raw
// bandwidths being the links' payload rates over s.Efficiency: its
// switches, if it has any, its links in the given form, and the
// dimensions dims (nil for none) unless they are a file's default, one
// routed dimension all, and the trees (machine.Machine.Trees; nil for
// none). A network the format cannot hold (a switch's
// ports in an order a file does not give them, a ring's port that is not
// the link to its neighbour a file's ring takes, ringLane) is an error.
func Dump(net *fabric.Network, dims []machine.Dim, trees [][]int, s LinkSettings, form Form) ([]byte, error) {
	d, withClass, err := doc(net, dims, trees, s, form)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	var v any = d
	if !withClass && len(d.Switches) == 0 && len(d.Dims) == 0 && len(d.Trees) == 0 {
		b.WriteString("# acemu topology: nodes, and directed links with raw bandwidth (GB/s) and latency (cycles).\n")
		b.WriteString("# Edit and run with --topo FILE; links.efficiency and the buffers come from the platform.\n")
	} else {
		b.WriteString("# acemu topology: NPUs, switches (nodes numbered after the NPUs) and directed links with\n")
		b.WriteString("# their class, lanes (parallel links), raw bandwidth (GB/s) and latency (cycles) (docs/topology.md).\n")
		if len(d.Dims) > 0 {
			b.WriteString("# dims are the groups of NPUs collectives are built over (--phases, --group); a ring's\n")
			b.WriteString("# members send to their neighbours by their first links to them (back by a second in a ring of two).\n")
		}
		if len(d.Trees) > 0 {
			b.WriteString("# trees are the trees tree all-reduces embed, each the parent of every NPU (the root its own).\n")
		}
		b.WriteString("# Edit and run with --topo FILE; a class's bandwidth and latency where a link gives none,\n")
		b.WriteString("# links.efficiency and the buffers come from the platform.\n")
		var n yaml.Node
		if err := n.Encode(d); err != nil {
			return nil, err
		}
		flowItems(&n)
		v = &n
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// flowItems writes each switch and link of the document n on a line of
// its own, and each group of a dimension.
func flowItems(n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "links", "switches", "trees":
			for _, item := range n.Content[i+1].Content {
				item.Style = yaml.FlowStyle
			}
		case "dims":
			for _, dim := range n.Content[i+1].Content {
				for j := 0; j+1 < len(dim.Content); j += 2 {
					if dim.Content[j].Value == "groups" {
						for _, g := range dim.Content[j+1].Content {
							g.Style = yaml.FlowStyle
						}
					}
				}
			}
		}
	}
}
