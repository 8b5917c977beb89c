package ace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

// ACE off the torus: on a topology read from a file (a 3-NPU ring, and a
// ring of 4 with a chord), it lays out its SRAM from the plan's phases and
// the file's links, routes by the file's routing, and ends every
// collective with the exact result.
func TestACEOnATopologyFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ring3.yaml": "nodes: 3\nlinks:\n" +
			"  - {from: 0, to: 1, bandwidth: 100GB/s, latency: 50}\n" +
			"  - {from: 1, to: 2, bandwidth: 100GB/s, latency: 50}\n" +
			"  - {from: 2, to: 0, bandwidth: 100GB/s, latency: 50}\n",
		"chord4.yaml": "nodes: 4\nlinks:\n" +
			"  - {from: 0, to: 1, bandwidth: 200GB/s, latency: 90}\n" +
			"  - {from: 1, to: 2, bandwidth: 200GB/s, latency: 90}\n" +
			"  - {from: 2, to: 3, bandwidth: 200GB/s, latency: 90}\n" +
			"  - {from: 3, to: 0, bandwidth: 200GB/s, latency: 90}\n" +
			"  - {from: 0, to: 2, bandwidth: 25GB/s, latency: 500}\n" +
			"  - {from: 2, to: 0, bandwidth: 25GB/s, latency: 500}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		spec, err := topology.Parse(path)
		require.NoError(t, err)
		for _, tc := range []struct {
			op  collectives.CollectiveOp
			alg string
		}{
			{collectives.OpAllReduce, "hierarchical"},
			{collectives.OpAllReduce, "ring"},
			{collectives.OpAllReduce, "double-tree"},
			{collectives.OpAllToAll, "direct"},
		} {
			t.Run(name+"/"+tc.alg+"/"+tc.op.String(), func(t *testing.T) {
				plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: tc.op, MessageBytes: 1024}, tc.alg, 12_000, 4096)
				require.NoError(t, err)
				k := rtl.NewKernel()
				net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
				require.NoError(t, err)
				dc, err := verify.NewDataCheck(plan)
				require.NoError(t, err)
				cfg := Default()
				res, err := Run(k, net, plan, cfg, &Hooks{Init: dc.Hook, Observer: dc})
				require.NoError(t, err)
				require.Positive(t, res.Cycles)
				require.NoError(t, dc.Result())
			})
		}
	}
}
