package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A machine's link classes have platform keys of their own: dgx1's
// all-reduce runs on its NVLink ring, each GPU sending on two NVLinks,
// so its network bandwidth per GPU is at most 2 × 25 × 0.94 = 47 GB/s by
// default and above that with links.nvlink.bandwidth at 50GB/s (at most
// 94); on switch:4x2 the leaves' up-links are of class tier1, whose
// 25 GB/s bound the all-reduce at 1.75 × 23.5 = 41.125 GB/s per NPU
// (reproduce.TestFig5OnOtherMachines), and links.tier1.bandwidth at
// 100GB/s lifts it above that. A torus has no links of these classes:
// setting them would change nothing there, and is refused.
func TestLinkClassKeysSetAMachinesLinks(t *testing.T) {
	gbps := func(args ...string) float64 {
		code, out, errOut := runCLI(append([]string{"collective", "--size", "4MiB", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r["network_gbps_per_npu"].(float64)
	}
	base := gbps("--topo", "dgx1")
	require.LessOrEqual(t, base, 47.0)
	fast := gbps("--topo", "dgx1", "--set", "links.nvlink.bandwidth=50GB/s")
	require.Greater(t, fast, 47.0)
	require.LessOrEqual(t, fast, 94.0)
	require.LessOrEqual(t, gbps("--topo", "switch:4x2"), 41.125)
	require.Greater(t, gbps("--topo", "switch:4x2", "--set", "links.tier1.bandwidth=100GB/s"), 41.125)
	for _, key := range []string{"links.nvlink.bandwidth=50GB/s", "links.tier1.latency=1"} {
		requireRefused(t, 1, "no link of 4x2x2 is of class "+strings.Split(key, ".")[1]+", so it would change nothing",
			"collective", "--size", "4MiB", "--topo", "4x2x2", "--set", key)
	}
}
