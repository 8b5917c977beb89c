package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The run's settings line and its JSON name a schedule other than the
// default; the default's output says nothing of it (it is as it was
// before schedules could be chosen, byte for byte: the pins), and
// chaining changes no system that does not overlap.
func TestScheduleIsNamed(t *testing.T) {
	// Three layers, forward time falling and gradients growing (the C-Cube
	// paper's Case 1), the last of 3 chunks of 64 KiB.
	const wl = "../../testdata/badinput/gq_wl_three.txt"
	args := []string{"--workload", wl, "--topo", "2x2x1", "--iterations", "2", "--systems", "ideal,baseline-nooverlap"}
	code, plain, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, plain, "schedule")
	assert.Contains(t, strings.Join(strings.Fields(plain), " "), "memory policy share; cycles at 1245 MHz")

	code, chained, errOut := runCLI(append(args, "--schedule", "oneshot-chained")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, strings.Join(strings.Fields(chained), " "), "memory policy share, schedule oneshot-chained; cycles at 1245 MHz")

	var docs [2]struct {
		Schedule *string `json:"schedule"`
		Systems  []struct {
			Name  string `json:"name"`
			Total int64  `json:"total_cycles"`
		} `json:"systems"`
	}
	for i, s := range []string{"layerwise", "oneshot-chained"} {
		code, out, errOut := runCLI(append(args, "--schedule", s, "--format", "json")...)
		require.Equal(t, 0, code, errOut)
		require.NoError(t, json.Unmarshal([]byte(out), &docs[i]))
	}
	assert.Nil(t, docs[0].Schedule, "the default leaves the key out")
	require.NotNil(t, docs[1].Schedule)
	assert.Equal(t, "oneshot-chained", *docs[1].Schedule)
	require.Equal(t, "baseline-nooverlap", docs[1].Systems[1].Name)
	assert.Equal(t, docs[0].Systems[1].Total, docs[1].Systems[1].Total, "no overlap, no change")
	assert.NotEqual(t, docs[0].Systems[0].Total, docs[1].Systems[0].Total, "the ideal system's weight gradients go in one shot")
}

// --ccube is its settings: B runs ACE as --set
// collectives.allreduce=double-tree --schedule oneshot does (ACE keeps its
// chunks), and the baseline slower (its one-shot all-reduce as one chunk
// through the conventional trees, the broadcast waiting for every piece,
// where in chunks the chunks' broadcasts overlap other chunks'
// reductions); R is --schedule oneshot on the default algorithm, the
// NVLink ring, on both. The output names the configuration.
func TestCCubePresetIsItsSettings(t *testing.T) {
	base := []string{"--topo", "dgx1", "--workload", "../../testdata/ccube_case1.txt", "--systems", "baseline-commopt,ace", "--iterations", "2", "--format", "json"}
	totals := func(args ...string) map[string]int64 {
		t.Helper()
		code, out, errOut := runCLI(append(append([]string(nil), base...), args...)...)
		require.Equal(t, 0, code, errOut)
		var doc struct {
			Systems []struct {
				Name  string `json:"name"`
				Total int64  `json:"total_cycles"`
			} `json:"systems"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		m := map[string]int64{}
		for _, s := range doc.Systems {
			m[s.Name] = s.Total
		}
		return m
	}
	b, set := totals("--ccube", "B"), totals("--set", "collectives.allreduce=double-tree", "--schedule", "oneshot")
	assert.Equal(t, set["ace"], b["ace"])
	assert.Greater(t, b["baseline-commopt"], set["baseline-commopt"])
	assert.Equal(t, totals("--schedule", "oneshot"), totals("--ccube", "R"))
	code, out, errOut := runCLI("--topo", "dgx1", "--workload", "../../testdata/ccube_case1.txt", "--systems", "ace", "--iterations", "1", "--ccube", "cc")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, strings.Join(strings.Fields(out), " "), "C-Cube's CC: the overlapped double tree, one-shot, gradient queuing (C-Cube); the one-shot all-reduce (double-tree-overlapped) as one chunk on every system but ACE (in its chunks)")
}
