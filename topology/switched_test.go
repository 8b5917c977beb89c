package topology

import (
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// switch:4x4 is 16 NPUs under 4 leaf switches (nodes 16–19, NPUs 4i to
// 4i+3 under leaf i) under one spine (node 20): 16 NPU–leaf links each way
// and 4 leaf–spine links each way, 40 links. Leaf 1 sends NPU 5 down its
// port 1 (5 − 4) and everything outside 4–7 up its port 4; the spine sends
// NPU d down port d / 4. NPU–leaf links are the platform's intra-package
// link, leaf–spine links its inter-package link.
func TestSwitchFabricIsBuiltAsSpecified(t *testing.T) {
	spec, err := Parse("switch:4x4")
	require.NoError(t, err)
	m := spec.Machine
	require.Equal(t, 16, m.N())
	require.Equal(t, "switch:4x4", m.Name)
	require.False(t, spec.CanFold())
	require.Len(t, m.Dims, 2)
	require.Equal(t, "leaf", m.Dims[0].Name)
	leaf, _ := m.Dims[0].Group(5)
	require.Equal(t, []int{4, 5, 6, 7}, leaf, "NPU 5's leaf: the NPUs under leaf 1")
	require.Equal(t, "spine", m.Dims[1].Name)
	spineGroup, _ := m.Dims[1].Group(5)
	require.Equal(t, []int{1, 5, 9, 13}, spineGroup, "NPU 5's spine group: place 1 under every leaf")
	links := torus.DefaultLinks()
	net, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
	require.NoError(t, err)
	require.Len(t, net.Switches(), 5)
	require.Len(t, net.Links, 40)
	leaf1, spine := net.Switch(17), net.Switch(20)
	require.Equal(t, 5, leaf1.Params.Ports)
	require.Equal(t, 1, leaf1.Route(5))
	for _, d := range []int{0, 3, 8, 15} {
		require.Equal(t, 4, leaf1.Route(d), "NPU %d leaves leaf 1 by its up port", d)
	}
	require.Equal(t, 4, spine.Params.Ports)
	for d := 0; d < 16; d++ {
		require.Equal(t, d/4, spine.Route(d))
	}
	require.Equal(t, 17, net.Out(5, 0).Dst, "NPU 5's one port leads to leaf 1")
	require.Equal(t, links.Intra.Rate, net.Out(5, 0).Params.Rate)
	require.Equal(t, 20, leaf1.Out(4).Dst)
	require.Equal(t, links.Inter.Rate, leaf1.Out(4).Params.Rate)
	require.Equal(t, links.Inter.Latency, leaf1.Out(4).Params.Latency)
}

func TestSwitchFabricRefusals(t *testing.T) {
	for spec, want := range map[string]string{
		"switch:4":             "", // one tier: a single switch, valid
		"switch:4x1":           "a tier of 1 is no tier",
		"switch:4xq":           `"q" is not a whole number`,
		"switch:":              `"" is not a whole number`,
		"switch:64x128":        "more than 4096 NPUs",
		"switch:2x2x2x2x2x2x2": "tiers; give at most 6",
	} {
		_, err := Parse(spec)
		if want == "" {
			require.NoError(t, err, spec)
			continue
		}
		require.ErrorContains(t, err, want, spec)
	}
}
