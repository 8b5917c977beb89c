package topology

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// A line 0 – 1 – 2 – 3 (links both ways) with a chord 0 → 3: from 0, node 3
// is one hop by the chord (port 1, 0's second link); from 3, node 0 is three
// hops back along the line (no chord that way), first to 2 (port 0); from
// 1, node 3 is two hops either way (by 2, or by 0 and the chord): the lower
// next node, 0 (port 0).
const line = `nodes: 4
links:
  - {from: 0, to: 1, bandwidth: 100GB/s, latency: 10}
  - {from: 0, to: 3, bandwidth: 25GB/s, latency: 500}
  - {from: 1, to: 0, bandwidth: 100GB/s, latency: 10}
  - {from: 1, to: 2, bandwidth: 100GB/s, latency: 10}
  - {from: 2, to: 1, bandwidth: 100GB/s, latency: 10}
  - {from: 2, to: 3, bandwidth: 100GB/s, latency: 10}
  - {from: 3, to: 2, bandwidth: 100GB/s, latency: 10}
`

func TestAFileTopologyRoutesOnShortestPaths(t *testing.T) {
	f, err := Load("line.yaml", []byte(line))
	require.NoError(t, err)
	var top machine.Topology = f
	require.Equal(t, 4, top.N())
	for _, tc := range []struct{ cur, dst, port int }{
		{0, 3, 1}, {0, 2, 0}, {0, 1, 0}, {3, 0, 0}, {2, 0, 0}, {1, 3, 0}, {1, 2, 1},
	} {
		p, ok := top.NextPort(tc.cur, tc.dst)
		require.True(t, ok)
		require.Equal(t, tc.port, p, "%d → %d", tc.cur, tc.dst)
	}
	net, err := f.Build(rtl.NewKernel(), DefaultLinkSettings())
	require.NoError(t, err)
	require.Len(t, net.Links, 7)
	require.Equal(t, 2, net.Ports())
}

func TestBadTopologyFilesAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, text, msg string }{
		{"unreachable", "nodes: 3\nlinks:\n  - {from: 0, to: 1, bandwidth: 1GB/s, latency: 1}\n  - {from: 1, to: 0, bandwidth: 1GB/s, latency: 1}\n", "node 2 cannot reach node 0"},
		{"node out of range", "nodes: 2\nlinks:\n  - {from: 0, to: 2, bandwidth: 1GB/s, latency: 1}\n", "link 1 (0 → 2): nodes are 0 to 1"},
		{"self", "nodes: 2\nlinks:\n  - {from: 1, to: 1, bandwidth: 1GB/s, latency: 1}\n", "joins two different nodes"},
		{"bandwidth", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: fast, latency: 1}\n", "not a number of GB/s"},
		{"unknown field", "nodes: 2\nlinkz: []\n", "field linkz not found"},
		{"too few", "nodes: 1\n", "nodes 1: give 2 to 4096"},
		{"latency", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 1GB/s, latency: -5}\n", "latency -5 cycles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(tc.text))
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// A torus's network dumped and read back has the same links (ends,
// bandwidth, latency) in the same port order.
func TestATorusDumpReadsBack(t *testing.T) {
	k := rtl.NewKernel()
	s := torus.Shape{L: 4, V: 2, H: 2}
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	b, err := Dump(net, nil, nil, DefaultLinkSettings(), Plain)
	require.NoError(t, err)
	f, err := Load("dump.yaml", b)
	require.NoError(t, err)
	back, err := f.Build(rtl.NewKernel(), DefaultLinkSettings())
	require.NoError(t, err)
	require.Len(t, back.Links, len(net.Links))
	b2, err := Dump(back, nil, nil, DefaultLinkSettings(), Plain)
	require.NoError(t, err)
	require.Equal(t, string(b), string(b2))
}

// --topo specs: a torus, a file, and neither (the error names every kind).
func TestParseFindsTheKindOfTopology(t *testing.T) {
	s, err := Parse("4x2x1")
	require.NoError(t, err)
	require.True(t, s.CanFold())
	require.Equal(t, "4x2x1", s.Machine.Name)
	require.Equal(t, 8, s.Machine.N())
	require.Equal(t, torus.Shape{L: 4, V: 2, H: 1}, torus.ShapeOf(s.Machine))
	path := filepath.Join(t.TempDir(), "line.yaml")
	require.NoError(t, os.WriteFile(path, []byte(line), 0o644))
	s, err = Parse(path)
	require.NoError(t, err)
	require.False(t, s.CanFold())
	require.Equal(t, 4, s.Machine.N())
	require.Len(t, s.Machine.Dims, 1, "one dimension, all, of every NPU")
	members, _ := s.Machine.Dims[0].Group(2)
	require.Equal(t, []int{0, 1, 2, 3}, members)
	_, err = Parse("resnet")
	require.ErrorContains(t, err, "or a torus LxVxH (e.g. 4x4x4) or a topology file")
	_, err = Parse("4x4")
	require.Error(t, err)
	_, err = Parse("nowhere/t.yaml")
	require.ErrorContains(t, err, "no such topology file")
}

// Routed traffic spreads over bonded links, worked by hand on dgx1 from
// GPU 3, whose NVLinks go to 0 (two), 1, 2 (two) and 7. GPU 4 is two hops
// away through 0 or 7, and 0 is the lower: 3 routes 0 and 4 through GPU
// 0, the first on the first lane and the second on the second; likewise
// 2 and 6 through GPU 2 (6 through 2 or 7: 2); 1 and 5 share 3's one
// link to GPU 1.
func TestRoutesSpreadOverLanes(t *testing.T) {
	s, err := Parse("dgx1")
	require.NoError(t, err)
	f := s.Machine.Topology.(*File)
	lanes := func(to int) []int { return f.PortsTo(3, to) }
	require.Len(t, lanes(0), 2)
	require.Len(t, lanes(2), 2)
	for _, tc := range []struct{ dst, port int }{
		{0, lanes(0)[0]}, {4, lanes(0)[1]},
		{2, lanes(2)[0]}, {6, lanes(2)[1]},
		{1, lanes(1)[0]}, {5, lanes(1)[0]},
	} {
		p, ok := f.NextPort(3, tc.dst)
		require.True(t, ok)
		require.Equal(t, tc.port, p, "3 → %d", tc.dst)
	}
}

// Only links alike are lanes: node 0's two links to node 1 of one class
// and bandwidth are lanes, its third, of another bandwidth, is not, so
// messages to nodes 1 and 2 (both through node 1) take the two lanes,
// and none the third.
func TestOnlyAlikeLinksAreLanes(t *testing.T) {
	f, err := Load("alike.yaml", []byte(`nodes: 3
links:
  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 0, lanes: 2}
  - {from: 0, to: 1, bandwidth: 99GB/s, latency: 0}
  - {from: 1, to: 0, bandwidth: 10GB/s, latency: 0}
  - {from: 1, to: 2, bandwidth: 10GB/s, latency: 0}
  - {from: 2, to: 1, bandwidth: 10GB/s, latency: 0}
`))
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, f.PortsTo(0, 1))
	for dst, port := range map[int]int{1: 0, 2: 1} {
		p, ok := f.NextPort(0, dst)
		require.True(t, ok)
		require.Equal(t, port, p, "0 → %d", dst)
	}
}
