package topology

import (
	"testing"

	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// The 3D torus is a Topology, and its next port is its XYZ next hop: on
// 4x4x4 from NPU 0 to NPU 1 (local +1) the local ring's plus port, to 63
// (every coordinate 3: one step back on the local ring) its minus port.
func TestTheTorusIsATopology(t *testing.T) {
	var top machine.Topology = torus.Shape{L: 4, V: 4, H: 4}
	require.Equal(t, 64, top.N())
	for _, dst := range []int{1, 63, 16, 48} {
		hop, ok := torus.Shape{L: 4, V: 4, H: 4}.NextHop(0, dst)
		require.True(t, ok)
		p, ok := top.NextPort(0, dst)
		require.True(t, ok)
		require.Equal(t, hop.Index(), p)
	}
	_, ok := top.NextPort(5, 5)
	require.False(t, ok)
	var f machine.Folder = torus.Shape{L: 4, V: 4, H: 4}
	require.Equal(t, 5, f.Displacement(0, 5))
	_, folds := machine.Topology(&File{}).(machine.Folder)
	require.False(t, folds, "a file topology does not fold")
}
