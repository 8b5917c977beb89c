package topology

import (
	"fmt"
	"math/big"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/yamlone"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/units"
)

// Link is one directed link of a file topology.
type Link struct {
	From, To int // node numbers: NPUs 0 to NPUs−1, then the switches
	// Class is the link's class ("" for none): its name in reports, and
	// its bandwidth and latency where the file gives none.
	Class string
	// GBps is its raw bandwidth per direction (GB/s, 10^9 B/s), nil for
	// its class's; Latency its latency in cycles, negative for its
	// class's.
	GBps    *big.Rat
	Latency int64
}

// FileSwitch is a switch node of a file topology.
type FileSwitch struct {
	Name    string
	Ports   int   // its radix: input and output ports
	Latency int64 // its switching latency, cycles (fabric.SwitchParams)
}

// File is a topology read from a file: NPUs, switches and directed links,
// routed on shortest paths (fewest hops; among equal ones, the lowest next
// node; over its lanes, the destinations in turn: spreadLanes). A node's
// ports are its
// outgoing links in file order, and a switch's input ports its incoming
// links in file order. Switches are nodes NPUs to NPUs+len(Switches)−1.
// It has no symmetry to fold.
type File struct {
	Name     string
	NPUs     int
	Switches []FileSwitch
	Links    []Link
	out      [][]int       // per node: link indices by output port
	inPort   []int         // per link: its input port at its receiver
	next     [][]int16     // next[cur][dst]: cur's port toward NPU dst, -1 for none
	dims     []machine.Dim // the file's dims; nil for the default, all
	trees    [][]int       // the file's trees, parent arrays (-1 for a root); nil for none
}

// maxNodes bounds a file topology: routing tables are nodes² entries.
const maxNodes = MaxNodes

// MaxNodes is the most NPUs a topology file holds, and the most switches.
const MaxNodes = 4096

// MaxLanes is the most parallel links one line of a topology file makes.
const MaxLanes = 16

// maxLinks bounds a topology file's links, lanes included: routing visits
// every link once per NPU. A 4096-NPU fabric of switches with a few
// planes takes well under it.
const maxLinks = 1 << 18

// maxFileBytes bounds a topology file: 4096 nodes with a few links each
// take well under a MiB.
const maxFileBytes = 16 << 20

// N is the number of NPUs.
func (f *File) N() int { return f.NPUs }

// String names the topology by its file.
func (f *File) String() string { return f.Name }

// NextPort is the port toward dst on a shortest path.
func (f *File) NextPort(cur, dst int) (int, bool) {
	if cur == dst {
		return 0, false
	}
	p := int(f.next[cur][dst])
	return p, p >= 0
}

// Arrived is p: a file topology is never folded.
func (f *File) Arrived(_ *fabric.Network, _ *fabric.Link, p fabric.Packet) fabric.Packet { return p }

// PacketDst is p's destination.
func (f *File) PacketDst(p fabric.Packet) int { return int(p.Msg.Dst) }

// Ports is the most outgoing links of an NPU.
func (f *File) Ports() int {
	m := 0
	for _, o := range f.out[:f.NPUs] {
		m = max(m, len(o))
	}
	return m
}

// ReadsLinkKey reports whether f's network reads the platform's link key
// when built: links.CLASS.bandwidth (or .latency) is read by a link of that
// class that gives no bandwidth (latency) of its own, and by one of a class
// standing for CLASS (nvlink and tier1 to tier5 for inter, tier0 for intra)
// whose own key, say links.nvlink.bandwidth, the platform leaves to follow
// CLASS's (follows reports that). Every other key (links.efficiency, the
// buffers) is read.
func (f *File) ReadsLinkKey(key string, follows func(key string) bool) bool {
	rest, ok := strings.CutPrefix(key, "links.")
	class, attr, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || (attr != "bandwidth" && attr != "latency") {
		return true
	}
	for _, l := range f.Links {
		if l.Class == "" || (attr == "bandwidth" && l.GBps != nil) || (attr == "latency" && l.Latency >= 0) {
			continue
		}
		if l.Class == class {
			return true
		}
		for _, c := range linkClasses {
			if c.name == l.Class && c.name != "intra" && c.name != "inter" && (map[bool]string{false: "intra", true: "inter"})[c.inter] == class &&
				follows("links."+c.name+"."+attr) {
				return true
			}
		}
	}
	return false
}

// node names node n for messages: an NPU by its number, a switch by its
// name and number.
func (f *File) node(n int) string {
	if n >= f.NPUs && n < f.NPUs+len(f.Switches) {
		return fmt.Sprintf("switch %q (node %d)", f.Switches[n-f.NPUs].Name, n)
	}
	return fmt.Sprintf("node %d", n)
}

// params returns link l's parameters under the platform's links s: its
// class's where the file gives no bandwidth or latency; credits return in
// one link latency.
func (f *File) params(l Link, s LinkSettings) (fabric.LinkParams, error) {
	p := fabric.LinkParams{Name: fmt.Sprintf("%d-%d", l.From, l.To)}
	if l.Class != "" {
		p, _ = classParams(l.Class, s) // Load accepted the class
	}
	if l.GBps != nil {
		r, err := rtl.RateGBps(l.GBps, s.Efficiency)
		if err != nil {
			return p, fmt.Errorf("%s: link %d → %d: %w", f.Name, l.From, l.To, err)
		}
		p.Rate = r
	}
	if l.Latency >= 0 {
		p.Latency, p.CreditLatency = rtl.Cycle(l.Latency), rtl.Cycle(l.Latency)
	}
	p.TxBuffer, p.RxBuffer = s.TxBuffer, s.RxBuffer
	return p, nil
}

// Build returns the network of f's switches and links driven by k, under
// the platform's links s: a link of a class without a bandwidth or latency
// of its own takes its class's, and every link moves payload at its raw
// bandwidth × s.Efficiency, with s's buffers. A switch routes each NPU's
// packets by the file's routing.
func (f *File) Build(k *rtl.Kernel, s LinkSettings) (*fabric.Network, error) {
	params := make([]fabric.LinkParams, len(f.Links))
	for i, l := range f.Links {
		p, err := f.params(l, s)
		if err != nil {
			return nil, err
		}
		params[i] = p
	}
	net := fabric.NewNetwork(f.NPUs, f.Ports())
	for i, sw := range f.Switches {
		route := make([]int, f.NPUs)
		for d := range route {
			route[d] = int(f.next[f.NPUs+i][d])
		}
		if _, err := net.AddSwitch(k, fabric.SwitchParams{Name: sw.Name, Ports: sw.Ports, Latency: rtl.Cycle(sw.Latency)}, route); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	for n, ports := range f.out {
		for p, li := range ports {
			if err := f.add(k, net, n, p, li, params[li]); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	if err := net.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return net, nil
}

// add adds link li, leaving node n by port p, to net.
func (f *File) add(k *rtl.Kernel, net *fabric.Network, n, p, li int, params fabric.LinkParams) error {
	to := f.Links[li].To
	newLink := fabric.NewLink
	if n >= f.NPUs {
		newLink = fabric.NewSwitchLink
	}
	fl, err := newLink(k, len(net.Links), n, to, p, params)
	if err != nil {
		return err
	}
	if to >= f.NPUs {
		return net.AddToSwitch(fl, f.inPort[li])
	}
	return net.Add(fl)
}

// fileDoc is the file's form. nodes (NPUs only) is the form of a file
// without switches; npus counts the NPUs of any file.
type fileDoc struct {
	Nodes    int        `yaml:"nodes,omitempty" json:"nodes,omitempty"`
	NPUs     int        `yaml:"npus,omitempty" json:"npus,omitempty"`
	Switches switchList `yaml:"switches,omitempty" json:"switches,omitempty"`
	Dims     []dimDoc   `yaml:"dims,omitempty" json:"dims,omitempty"`
	Trees    [][]int    `yaml:"trees,omitempty" json:"trees,omitempty"`
	Links    []linkDoc  `yaml:"links" json:"links"`
}

type linkDoc struct {
	From      int    `yaml:"from" json:"from"`
	To        int    `yaml:"to" json:"to"`
	Class     string `yaml:"class,omitempty" json:"class,omitempty"`
	Bandwidth string `yaml:"bandwidth,omitempty" json:"bandwidth,omitempty"`
	Latency   *int64 `yaml:"latency,omitempty" json:"latency,omitempty"`
	Lanes     *int   `yaml:"lanes,omitempty" json:"lanes,omitempty"`
}

type switchDoc struct {
	Name    string `yaml:"name,omitempty" json:"name,omitempty"`
	Ports   int    `yaml:"ports,omitempty" json:"ports,omitempty"`
	Latency int64  `yaml:"latency,omitempty" json:"latency,omitempty"`
}

// switchList is a file's switches: a list of {name, ports, latency}, or a
// count of switches with every key left to its default.
type switchList []switchDoc

// UnmarshalYAML reads a count or a list, refusing unknown keys.
func (s *switchList) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		var k int
		if err := v.Decode(&k); err != nil || k < 0 || k > maxNodes {
			return fmt.Errorf("line %d: switches %q: give a count (0 to %d) or a list of {name, ports, latency}", v.Line, v.Value, maxNodes)
		}
		*s = make(switchList, k)
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: switches: give a count or a list of {name, ports, latency}", v.Line)
	}
	if len(v.Content) > maxNodes {
		return fmt.Errorf("line %d: %d switches; give at most %d", v.Line, len(v.Content), maxNodes)
	}
	for _, e := range v.Content {
		for i := 0; e.Kind == yaml.MappingNode && i+1 < len(e.Content); i += 2 {
			switch k := e.Content[i].Value; k {
			case "name", "ports", "latency":
			default:
				return fmt.Errorf("line %d: a switch has no key %q; give name, ports or latency", e.Content[i].Line, k)
			}
		}
	}
	var list []switchDoc
	if err := v.Decode(&list); err != nil {
		return err
	}
	*s = list
	return nil
}

// Load reads a topology file (YAML, or JSON): its NPUs, its switches, the
// directed links, each with its class, bandwidth, latency and lanes, and
// the dimensions collectives are built over (docs/topology.md). Every node must reach every NPU; errors name the
// file, the link or switch, and the fix.
func Load(name string, data []byte) (*File, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes; a topology file of %d nodes at most fits in far less", name, len(data), maxNodes)
	}
	var doc yaml.Node
	if err := yamlone.Decode(data, &doc, false); err == nil {
		if err := checkNumbers(&doc, ""); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	var d fileDoc
	if err := yamlone.Decode(data, &d, true); err != nil {
		return nil, fmt.Errorf("%s: not a topology (nodes: N, or npus: N and switches: [{name, ports, latency}]; links: [{from, to, class, bandwidth, latency, lanes}]; optionally dims: [{name, short, ring, groups}] and trees: [[parent of each NPU]]): %w", name, err)
	}
	n, err := npus(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &File{Name: name, NPUs: n}
	for i, s := range d.Switches {
		sw := FileSwitch{Name: s.Name, Ports: s.Ports, Latency: s.Latency}
		if sw.Name == "" {
			sw.Name = fmt.Sprintf("s%d", i)
		}
		where := fmt.Sprintf("%s: switch %q (node %d)", name, sw.Name, n+i)
		switch {
		case sw.Ports < 0 || sw.Ports > fabric.MaxSwitchPorts:
			return nil, fmt.Errorf("%s: ports %d: give 1 to %d, or leave it out for as many as its links need", where, sw.Ports, fabric.MaxSwitchPorts)
		case sw.Latency < 0 || sw.Latency > 1_000_000:
			return nil, fmt.Errorf("%s: latency %d cycles: give 0 to 1000000", where, sw.Latency)
		}
		f.Switches = append(f.Switches, sw)
	}
	f.out = make([][]int, n+len(f.Switches))
	in := make([][]int, len(f.out)) // per node: link indices by input port
	for i, l := range d.Links {
		if err := f.addLinks(i, l, in); err != nil {
			return nil, err
		}
	}
	if err := f.sizeSwitches(in); err != nil {
		return nil, err
	}
	if err := f.route(in); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.loadDims(d.Dims); err != nil {
		return nil, err
	}
	if err := f.loadTrees(d.Trees); err != nil {
		return nil, err
	}
	return f, nil
}

// npus is the number of NPUs d declares: npus, or nodes in a file without
// switches.
func npus(d fileDoc) (int, error) {
	key, n := "nodes", d.Nodes
	switch {
	case d.Nodes != 0 && d.NPUs != 0:
		return 0, fmt.Errorf("nodes %d and npus %d: give one (npus: N counts the NPUs; nodes: N is the same in a file without switches)", d.Nodes, d.NPUs)
	case d.Nodes != 0 && len(d.Switches) > 0:
		return 0, fmt.Errorf("nodes %d with switches: write npus: N, the NPUs (the switches are numbered after them)", d.Nodes)
	case d.NPUs != 0 || len(d.Switches) > 0:
		key, n = "npus", d.NPUs
	}
	if n < 2 || n > maxNodes {
		return 0, fmt.Errorf("%s %d: give 2 to %d", key, n, maxNodes)
	}
	return n, nil
}

// addLinks adds the links of the file's link i (one per lane), noting each
// at its receiver's input ports in.
func (f *File) addLinks(i int, l linkDoc, in [][]int) error {
	where := fmt.Sprintf("%s: link %d (%d → %d)", f.Name, i+1, l.From, l.To)
	nodes := len(f.out)
	lanes := 1
	if l.Lanes != nil {
		lanes = *l.Lanes
	}
	switch {
	case l.From < 0 || l.From >= nodes || l.To < 0 || l.To >= nodes:
		if len(f.Switches) > 0 {
			return fmt.Errorf("%s: nodes are 0 to %d (NPUs 0 to %d, then switches %d to %d)", where, nodes-1, f.NPUs-1, f.NPUs, nodes-1)
		}
		return fmt.Errorf("%s: nodes are 0 to %d", where, nodes-1)
	case l.From == l.To:
		return fmt.Errorf("%s: a link joins two different nodes", where)
	case lanes < 1 || lanes > MaxLanes:
		return fmt.Errorf("%s: lanes %d: give 1 to %d parallel links", where, lanes, MaxLanes)
	case len(f.Links)+lanes > maxLinks:
		return fmt.Errorf("%s: more than %d links (lanes included) in all", where, maxLinks)
	}
	link := Link{From: l.From, To: l.To, Class: l.Class, Latency: -1}
	if _, ok := classParams(l.Class, LinkSettings{}); l.Class != "" && !ok {
		return fmt.Errorf("%s: class %q: give one of %s, or leave it out and give bandwidth and latency", where, l.Class, classNames())
	}
	switch {
	case l.Bandwidth != "":
		bw, err := units.ParseBandwidth(l.Bandwidth)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		link.GBps = bw
	case l.Class == "":
		return fmt.Errorf("%s: no bandwidth: give bandwidth (e.g. 25GB/s) or a class (%s) whose bandwidth and latency the platform sets", where, classNames())
	}
	switch {
	case l.Latency != nil && (*l.Latency < 0 || *l.Latency > 1_000_000):
		return fmt.Errorf("%s: latency %d cycles: give 0 to 1000000", where, *l.Latency)
	case l.Latency != nil:
		link.Latency = *l.Latency
	case l.Class == "":
		return fmt.Errorf("%s: no latency: give latency in cycles (latency: 0 for none) or a class (%s) whose latency the platform sets", where, classNames())
	}
	if from := l.From; from < f.NPUs && len(f.out[from])+lanes > rtl.ClassPorts {
		return fmt.Errorf("%s: node %d's link %d; a node has at most %d outgoing links (ports)", where, from, rtl.ClassPorts+1, rtl.ClassPorts)
	}
	for range lanes {
		f.Links = append(f.Links, link)
		li := len(f.Links) - 1
		f.out[l.From] = append(f.out[l.From], li)
		f.inPort = append(f.inPort, len(in[l.To]))
		in[l.To] = append(in[l.To], li)
	}
	return nil
}

// sizeSwitches gives each switch without ports as many as its links need
// and checks those that have them; in holds each node's incoming links.
func (f *File) sizeSwitches(in [][]int) error {
	for i := range f.Switches {
		sw, node := &f.Switches[i], f.NPUs+i
		need := max(len(f.out[node]), len(in[node]))
		where := fmt.Sprintf("%s: %s", f.Name, f.node(node))
		switch {
		case need == 0:
			return fmt.Errorf("%s has no links: link it to the NPUs or switches it serves, or remove it", where)
		case need > fabric.MaxSwitchPorts:
			return fmt.Errorf("%s: %d links leave and %d arrive; a switch has at most %d ports each way", where, len(f.out[node]), len(in[node]), fabric.MaxSwitchPorts)
		case sw.Ports == 0:
			sw.Ports = need
		case sw.Ports < need:
			return fmt.Errorf("%s: %d ports, but %d links leave it and %d arrive: give ports: %d or more, or leave ports out", where, sw.Ports, len(f.out[node]), len(in[node]), need)
		}
	}
	return nil
}

// route fills the next-port table by breadth-first search from every
// destination NPU backwards, through NPUs and switches: a node's port
// toward dst is the link to the neighbour nearest dst, the lowest-numbered
// among the nearest (the first of parallel links to it, which
// spreadLanes then spreads over its lanes). in holds each node's incoming
// links.
func (f *File) route(in [][]int) error {
	n, nodes := f.NPUs, len(f.out)
	f.next = make([][]int16, nodes)
	for i := range f.next {
		f.next[i] = make([]int16, n)
	}
	dist := make([]int, nodes)
	for dst := 0; dst < n; dst++ {
		for i := range dist {
			dist[i] = -1
		}
		dist[dst] = 0
		queue := []int{dst}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, li := range in[v] {
				if u := f.Links[li].From; dist[u] < 0 {
					dist[u] = dist[v] + 1
					queue = append(queue, u)
				}
			}
		}
		for cur := 0; cur < nodes; cur++ {
			f.next[cur][dst] = -1
			if cur == dst {
				continue
			}
			if dist[cur] < 0 && cur < n {
				return fmt.Errorf("node %d cannot reach node %d: add links so that every node reaches every other", cur, dst)
			}
			if dist[cur] < 0 {
				return fmt.Errorf("%s cannot reach NPU %d, which its routing table needs: add links so that every switch reaches every NPU", f.node(cur), dst)
			}
			best := -1
			for p, li := range f.out[cur] {
				to := f.Links[li].To
				if dist[to] == dist[cur]-1 && (best < 0 || to < f.Links[f.out[cur][best]].To) {
					best = p
				}
			}
			f.next[cur][dst] = int16(best)
		}
	}
	f.spreadLanes()
	return nil
}

// spreadLanes spreads routed traffic over parallel links: of the
// destinations node cur reaches through a next node it has K links to
// (lanes), in id order, the i-th takes lane i mod K, in port order, so
// each destination keeps one path (its packets stay in order) and the
// destinations sharing a next hop share its lanes evenly [choice,
// docs/topology.md].
func (f *File) spreadLanes() {
	for cur := range f.next {
		seen := map[int]int{} // per next node: destinations routed through it so far
		for dst, p := range f.next[cur] {
			if p < 0 {
				continue
			}
			to := f.Links[f.out[cur][p]].To
			if lanes := f.PortsTo(cur, to); len(lanes) > 1 {
				f.next[cur][dst] = int16(lanes[seen[to]%len(lanes)])
			}
			seen[to]++
		}
	}
}

// Machine is the file's machine: its dims, or without them one dimension,
// all, of every NPU in id order, not a ring of links (messages are
// routed).
func (f *File) Machine() (*machine.Machine, error) {
	dims := f.dims
	if dims == nil {
		dims = []machine.Dim{machine.Strided("all", "a", f.N(), f.N(), 1, false, 0, 0)}
	}
	m, err := machine.New(f.Name, f, dims)
	if err != nil {
		return nil, err
	}
	m.Ports, m.Trees = f, f.trees
	return m, nil
}

// PortsTo are node a's lanes to node b, in port order: its ports whose
// links lead to b and are alike the first of them (the same class,
// bandwidth and latency as written), as a line's lanes: K are. A parallel
// link unlike the first is not a lane of it: messages do not spread onto
// it.
func (f *File) PortsTo(a, b int) []int {
	var out []int
	var first *Link
	for p, li := range f.out[a] {
		l := &f.Links[li]
		if l.To != b {
			continue
		}
		if first == nil {
			first = l
		}
		if l.Class == first.Class && l.Latency == first.Latency && (l.GBps == nil) == (first.GBps == nil) &&
			(l.GBps == nil || l.GBps.Cmp(first.GBps) == 0) {
			out = append(out, p)
		}
	}
	return out
}

// ringLane is which of n lanes a ring member of a group of k sends on to
// its next (dir 0) or previous (dir 1) member: the first, but for the
// previous member of a ring of two, which is also its next, the second
// when there is one, so that each direction has a link of its own, as on
// the torus's rings of two (docs/topology.md).
func ringLane(k, dir, n int) int {
	if dir == 1 && k == 2 && n > 1 {
		return 1
	}
	return 0
}

// PortTo is node a's first port whose link leads to node b.
func (f *File) PortTo(a, b int) (int, bool) {
	for p, li := range f.out[a] {
		if f.Links[li].To == b {
			return p, true
		}
	}
	return 0, false
}

// Neighbor is the NPU npu's port leads to (machine.Ports): not one when
// the port leads to a switch.
func (f *File) Neighbor(npu, port int) (int, bool, string) {
	if port < 0 || port >= len(f.out[npu]) {
		return 0, false, fmt.Sprintf("port %d: NPU %d of %s has ports 0 to %d (its links in file order)", port, npu, f.Name, len(f.out[npu])-1)
	}
	to := f.Links[f.out[npu][port]].To
	if to >= f.NPUs {
		return 0, false, fmt.Sprintf("port %d of NPU %d of %s leads to a switch, not to an NPU; use xyz to route the message", port, npu, f.Name)
	}
	return to, true, ""
}
