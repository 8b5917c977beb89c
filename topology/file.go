package topology

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/yamlone"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/units"
)

// Link is one directed link of a file topology.
type Link struct {
	From, To int
	// GBps is its raw bandwidth per direction (GB/s, 10^9 B/s); Latency
	// its latency in cycles.
	GBps    *big.Rat
	Latency int64
}

// File is a topology read from a file: nodes and directed links, routed
// on shortest paths (fewest hops; among equal ones, the lowest next node,
// and of parallel links to it the first). Node n's ports are its outgoing
// links in file order. It has no symmetry to fold.
type File struct {
	Name  string
	Nodes int
	Links []Link
	out   [][]int // per node: link indices by port
	next  [][]int // next[cur][dst]: port, -1 for none
}

// maxNodes bounds a file topology: routing tables are nodes² entries.
const maxNodes = MaxNodes

// MaxNodes is the most nodes a topology file holds.
const MaxNodes = 4096

// maxFileBytes bounds a topology file: 4096 nodes with a few links each
// take well under a MiB.
const maxFileBytes = 16 << 20

// N is the number of nodes.
func (f *File) N() int { return f.Nodes }

// String names the topology by its file.
func (f *File) String() string { return f.Name }

// NextPort is the port toward dst on a shortest path.
func (f *File) NextPort(cur, dst int) (int, bool) {
	if cur == dst {
		return 0, false
	}
	p := f.next[cur][dst]
	return p, p >= 0
}

// Arrived is p: a file topology is never folded.
func (f *File) Arrived(_ *fabric.Network, _ *fabric.Link, p fabric.Packet) fabric.Packet { return p }

// PacketDst is p's destination.
func (f *File) PacketDst(p fabric.Packet) int { return int(p.Msg.Dst) }

// Ports is the most outgoing links of a node.
func (f *File) Ports() int {
	m := 0
	for _, o := range f.out {
		m = max(m, len(o))
	}
	return m
}

// Build returns the network of f's links driven by k, each link moving
// payload at its raw bandwidth × efficiency, with the given buffers;
// credits return in one link latency.
func (f *File) Build(k *rtl.Kernel, efficiency *big.Rat, txBuffer, rxBuffer int) (*fabric.Network, error) {
	for _, l := range f.Links {
		if _, err := rtl.RateGBps(l.GBps, efficiency); err != nil {
			return nil, fmt.Errorf("%s: link %d → %d: %w", f.Name, l.From, l.To, err)
		}
	}
	return f.build(k, func(l Link) fabric.LinkParams {
		r, _ := rtl.RateGBps(l.GBps, efficiency) // checked above
		return fabric.LinkParams{Name: fmt.Sprintf("%d-%d", l.From, l.To), Rate: r, Latency: rtl.Cycle(l.Latency), CreditLatency: rtl.Cycle(l.Latency)}
	}, txBuffer, rxBuffer)
}

// build returns the network of f's links with each link's parameters from
// params, and the given buffers.
func (f *File) build(k *rtl.Kernel, params func(Link) fabric.LinkParams, txBuffer, rxBuffer int) (*fabric.Network, error) {
	net := fabric.NewNetwork(f.Nodes, f.Ports())
	for n, ports := range f.out {
		for p, li := range ports {
			l := f.Links[li]
			params := params(l)
			params.TxBuffer, params.RxBuffer = txBuffer, rxBuffer
			fl, err := fabric.NewLink(k, len(net.Links), n, l.To, p, params)
			if err != nil {
				return nil, err
			}
			if err := net.Add(fl); err != nil {
				return nil, err
			}
		}
	}
	return net, nil
}

// fileDoc is the file's form.
type fileDoc struct {
	Nodes int       `yaml:"nodes" json:"nodes"`
	Links []linkDoc `yaml:"links" json:"links"`
}

type linkDoc struct {
	From      int    `yaml:"from" json:"from"`
	To        int    `yaml:"to" json:"to"`
	Bandwidth string `yaml:"bandwidth" json:"bandwidth"`
	Latency   int64  `yaml:"latency" json:"latency"`
}

// Load reads a topology file (YAML, or JSON): the number of nodes and the
// directed links, each with its bandwidth and latency (docs/topology.md).
// Every node must reach every other; errors name the file, the link and
// the fix.
func Load(name string, data []byte) (*File, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes; a topology file of %d nodes at most fits in far less", name, len(data), maxNodes)
	}
	var d fileDoc
	if err := yamlone.Decode(data, &d, true); err != nil {
		return nil, fmt.Errorf("%s: not a topology (nodes: N, links: [{from, to, bandwidth, latency}]): %w", name, err)
	}
	if d.Nodes < 2 || d.Nodes > maxNodes {
		return nil, fmt.Errorf("%s: nodes %d: give 2 to %d", name, d.Nodes, maxNodes)
	}
	f := &File{Name: name, Nodes: d.Nodes, out: make([][]int, d.Nodes)}
	for i, l := range d.Links {
		where := fmt.Sprintf("%s: link %d (%d → %d)", name, i+1, l.From, l.To)
		switch {
		case l.From < 0 || l.From >= d.Nodes || l.To < 0 || l.To >= d.Nodes:
			return nil, fmt.Errorf("%s: nodes are 0 to %d", where, d.Nodes-1)
		case l.From == l.To:
			return nil, fmt.Errorf("%s: a link joins two different nodes", where)
		case l.Latency < 0 || l.Latency > 1_000_000:
			return nil, fmt.Errorf("%s: latency %d cycles: give 0 to 1000000", where, l.Latency)
		}
		bw, err := units.ParseBandwidth(l.Bandwidth)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if len(f.out[l.From]) == rtl.ClassPorts {
			return nil, fmt.Errorf("%s: node %d's link %d; a node has at most %d outgoing links (ports)", where, l.From, rtl.ClassPorts+1, rtl.ClassPorts)
		}
		f.Links = append(f.Links, Link{From: l.From, To: l.To, GBps: bw, Latency: l.Latency})
		f.out[l.From] = append(f.out[l.From], len(f.Links)-1)
	}
	if err := f.route(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// route fills the next-port table by breadth-first search from every
// destination backwards: a node's port toward dst is the link to the
// neighbour nearest dst, the lowest-numbered among the nearest.
func (f *File) route() error {
	n := f.Nodes
	in := make([][]int, n) // links into each node
	for i, l := range f.Links {
		in[l.To] = append(in[l.To], i)
	}
	f.next = make([][]int, n)
	for i := range f.next {
		f.next[i] = make([]int, n)
	}
	dist := make([]int, n)
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
		for cur := 0; cur < n; cur++ {
			f.next[cur][dst] = -1
			if cur == dst {
				continue
			}
			if dist[cur] < 0 {
				return fmt.Errorf("node %d cannot reach node %d: add links so that every node reaches every other", cur, dst)
			}
			best := -1
			for p, li := range f.out[cur] {
				to := f.Links[li].To
				if dist[to] == dist[cur]-1 && (best < 0 || to < f.Links[f.out[cur][best]].To) {
					best = p
				}
			}
			f.next[cur][dst] = best
		}
	}
	return nil
}

// doc is net's links in the file's form, raw bandwidths being the links'
// payload rates over efficiency, ordered by sending node and port.
func doc(net *fabric.Network, efficiency *big.Rat) fileDoc {
	var d fileDoc
	d.Nodes = net.NPUs()
	ls := append([]*fabric.Link(nil), net.Links...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Src != ls[j].Src {
			return ls[i].Src < ls[j].Src
		}
		return ls[i].Port < ls[j].Port
	})
	for _, l := range ls {
		raw := new(big.Rat).Quo(l.Params.Rate.Rat(), efficiency)
		raw.Mul(raw, big.NewRat(rtl.ClockHz, 1_000_000_000))
		d.Links = append(d.Links, linkDoc{From: l.Src, To: l.Dst, Bandwidth: units.FormatBandwidth(raw), Latency: int64(l.Params.Latency)})
	}
	return d
}

// Columns names the columns of Table's rows.
var Columns = []string{"from", "to", "bandwidth", "latency_cycles"}

// Table returns the links Dump writes, one row each, and the same
// document as a value for encoding/json (Load reads its JSON back).
func Table(net *fabric.Network, efficiency *big.Rat) (rows [][]string, document any) {
	d := doc(net, efficiency)
	for _, l := range d.Links {
		rows = append(rows, []string{strconv.Itoa(l.From), strconv.Itoa(l.To), l.Bandwidth, strconv.FormatInt(l.Latency, 10)})
	}
	return rows, d
}

// Dump writes the links of net (any topology's network) in the file
// format, raw bandwidths being the links' payload rates over efficiency.
func Dump(net *fabric.Network, efficiency *big.Rat) ([]byte, error) {
	d := doc(net, efficiency)
	var b bytes.Buffer
	b.WriteString("# acemu topology: nodes, and directed links with raw bandwidth (GB/s) and latency (cycles).\n")
	b.WriteString("# Edit and run with --topo FILE; links.efficiency and the buffers come from the platform.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}
