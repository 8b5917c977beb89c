package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseGroupNPUs(t *testing.T) {
	got, err := parseGroupNPUs(groupNPUsExample, 16)
	require.NoError(t, err)
	require.Equal(t, [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}, got)
	got, err = parseGroupNPUs(" 0-3 / 7-4 /8,9-10, 11/12-12,13-15", 16)
	require.NoError(t, err)
	require.Equal(t, [][]int{{0, 1, 2, 3}, {7, 6, 5, 4}, {8, 9, 10, 11}, {12, 13, 14, 15}}, got)
}

// The communicator as listed groups, refused with what is wrong and how
// to write it.
func TestGroupNPUsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"overlap", []string{"--group-npus", "0,5,10,15/1,6,11,12/2,7,8,13/3,4,9,5"}, "communicator groups: dimension group: NPU 5 is in two groups (0 and 3); each NPU belongs to one"},
		{"unequal sizes", []string{"--group-npus", "0-3/4-7/8-15"}, "group 2 has 8 NPUs, group 0 has 4; its groups must be equally large"},
		{"out of range", []string{"--group-npus", "0-3/4-7/8-11/12-16"}, `--group-npus "0-3/4-7/8-11/12-16": NPU 16 in group 3 is not on the machine, whose NPUs are 0 to 15`},
		{"missing NPU", []string{"--group-npus", "0-3/4-7/8-11"}, "NPU 12 is in no group; each NPU belongs to one; list each of the 16 NPUs of 4x4x1 (0 to 15) in exactly one group"},
		{"single NPUs", []string{"--group-npus", "0/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15"}, "groups of 1 NPU, so each is a single NPU with nothing to combine"},
		{"not a number", []string{"--group-npus", "0-3/4-7/8-11/12-x"}, `"12-x" in group 3 is not an NPU id or a range like 0-3`},
		{"an empty group", []string{"--group-npus", "0-3//8-11/12-15"}, "group 1 is empty"},
		{"empty", []string{"--group-npus", " "}, "--group-npus is empty; list the groups, e.g. " + groupNPUsExample},
		{"with --group", []string{"--group", "v", "--group-npus", groupNPUsExample}, "--group v and --group-npus " + groupNPUsExample + " both name the communicator; give one"},
		{"ring", []string{"--group-npus", groupNPUsExample, "--algorithm", "ring"}, "--group-npus is for --algorithm hierarchical (the default all-reduce, reduce-scatter and all-gather), not ring"},
		{"blueconnect", []string{"--group-npus", groupNPUsExample, "--algorithm", "blueconnect"}, "--group-npus is for --algorithm hierarchical"},
		{"all-to-all", []string{"--group-npus", groupNPUsExample, "--op", "all-to-all"}, "--group-npus is for --algorithm hierarchical"},
		{"phases that mix groups", []string{"--group-npus", groupNPUsExample, "--phases", "rs:local,ag:local"}, "combine NPU 0's data with NPU 1's, outside its group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireRefused(t, 1, tc.want, append([]string{"collective", "--topo", "4x4x1", "--size", "4KiB"}, tc.args...)...)
		})
	}
}

// By hand: a ring all-reduce over a group of p = 4 sends, from each NPU,
// (p−1)/p of the payload in its reduce-scatter and as much again in its
// all-gather, 2·(4−1)/4·4096 = 6144 B per NPU for 4096 B, whatever the
// route its messages take (on the 4x4x1 diagonals, two hops each). The
// whole 4x4x1's all-reduce (RS local, AR vertical, AG local) would send
// 2·3/4·4096 + 2·3/4·1024 = 7680 B. On every system, data checked.
func TestGroupNPUsBytesSentByHand(t *testing.T) {
	for _, system := range []string{"ideal", "baseline-commopt", "ace"} {
		code, out, errOut := runCLI("collective", "--topo", "4x4x1", "--size", "4096", "--system", system,
			"--group-npus", groupNPUsExample, "--check-data", "--format", "json")
		require.Equal(t, 0, code, errOut)
		var r struct {
			Phases []string `json:"phases"`
			Bytes  int64    `json:"bytes_sent_per_npu"`
			DataOK *bool    `json:"data_ok"`
			Bound  *float64 `json:"bound_gbps_per_npu"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, []string{"reduce-scatter on group (ring)", "all-gather on group (ring)"}, r.Phases, system)
		require.Equal(t, int64(6144), r.Bytes, system)
		require.True(t, *r.DataOK, system)
		require.Nil(t, r.Bound, "the whole machine's bound is not the groups'")
	}
	code, out, errOut := runCLI("collective", "--topo", "4x4x1", "--size", "4096", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var whole struct {
		Bytes int64 `json:"bytes_sent_per_npu"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &whole))
	require.Equal(t, int64(7680), whole.Bytes)
}

// The diagonals of 4x4x1 are a translation's images of each other, ring
// order included, so one NPU stands for all, in the cycles of the run NPU
// by NPU; rotate one ring and they are not, and the run is not folded.
func TestGroupNPUsFold(t *testing.T) {
	type report struct {
		Folded bool  `json:"folded"`
		Cycles int64 `json:"cycles"`
	}
	runOn := func(groups string, extra ...string) report {
		args := append([]string{"collective", "--topo", "4x4x1", "--size", "64KiB", "--group-npus", groups, "--format", "json"}, extra...)
		code, out, errOut := runCLI(args...)
		require.Equal(t, 0, code, errOut)
		var r report
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r
	}
	folded, full := runOn(groupNPUsExample), runOn(groupNPUsExample, "--full")
	require.True(t, folded.Folded)
	require.False(t, full.Folded)
	require.Equal(t, full.Cycles, folded.Cycles)
	require.False(t, runOn("0,5,10,15/1,6,11,12/2,7,8,13/14,4,9,3").Folded)
}
