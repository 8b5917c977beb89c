package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pins, not goldens: `acemu collective` on each of Table VI's systems on
// 4x4x4 (4 MiB per NPU, all-reduce and all-to-all), recorded before the
// architecture step moves the executors, the endpoint dispatch and the
// platform's defaults, so that it can be shown to change no number. Per
// run: the cycles, and the SHA-256 of the JSON report with "events" (the
// engine's work, not a result) removed, re-encoded with sorted keys. A
// commit that changes one says which and why.
func TestPinnedCollectivesOn4x4x4(t *testing.T) {
	print := os.Getenv("ACEMU_PRINT_PINS") != ""
	for _, tc := range []struct {
		system, op string
		cycles     float64
		sha        string
	}{
		{"baseline-nooverlap", "allreduce", 50053, "da0d3c9ff2ebaa096c85a9579504c8099e8225b482ee37f23fc0422b014fafc3"},
		{"baseline-nooverlap", "all-to-all", 168221, "d35b5a84c9531f528b2772f4e8f68451684d689ad4acd6119ecd45fcbc28391a"},
		{"baseline-commopt", "allreduce", 50046, "3e163dacdf746815b67f8c30447754a066d548f19dd9e0e5a96ff589d4fad6db"},
		{"baseline-commopt", "all-to-all", 168222, "a8ea69e40707f3babc5af19d3649bd965a4829a4f63e57bfe056c273efe68c32"},
		{"baseline-compopt", "allreduce", 157554, "e3edcb25a2ef54dabb2156aa7ce92d16aa979411e64f7354a15adecac8221186"},
		{"baseline-compopt", "all-to-all", 169181, "1a5e7d9c034dd4311280eecf88532522b383bcca4678e0712b5c10c041b4bb34"},
		{"ace", "allreduce", 50755, "fa78c381539a3eefc70e3f42cca38fe9496f221639ab42dbc1f2d211ad6d4845"},
		{"ace", "all-to-all", 170251, "0cfc28246a5c6c829be1e32e48254290c87c8d24988c35be03455721986320a7"},
		{"ideal", "allreduce", 49907, "ee78a9ccc1bfbbe7e94026daf6a805e6504f50d4ad171b56f1f96ad363cc1c51"},
		{"ideal", "all-to-all", 168212, "93cf825e8e15bc99a450a0ee464ae403e1fcc4febe098957f918c91d7935c98a"},
	} {
		t.Run(tc.system+"/"+tc.op, func(t *testing.T) {
			code, out, errOut := runCLI("collective", "--system", tc.system, "--topo", "4x4x4", "--op", tc.op, "--size", "4MiB", "--format", "json")
			require.Equal(t, 0, code, errOut)
			var r map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &r))
			delete(r, "events")
			b, err := json.Marshal(r)
			require.NoError(t, err)
			sha := fmt.Sprintf("%x", sha256.Sum256(b))
			if print { // the row as it is now, to pin a change that says why
				fmt.Printf("{%q, %q, %v, %q},\n", tc.system, tc.op, r["cycles"], sha)
			}
			require.Equal(t, tc.cycles, r["cycles"])
			require.Equal(t, tc.sha, sha)
		})
	}
}
