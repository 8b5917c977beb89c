package main

import (
	"encoding/json"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkMainJob is acemu's main job as the command runs it, without
// the other compute regime's run beside it: ResNet-50 on 4x8x4, Table
// VI's five systems, two iterations, the default platform, one NPU
// standing for all, under the command's garbage-collector target (GOGC
// when set). Recorded before the machines refactor, which is to keep it
// within 10 % of today's time:
//
//	go test ./cmd/acemu -run '^$' -bench MainJob -benchtime 3x
func BenchmarkMainJob(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	b.ReportAllocs()
	for b.Loop() {
		code, _, errOut := runCLI("--topo", "4x8x4", "--workload", "resnet50", "--other-regime=false", "--format", "json")
		require.Equal(b, 0, code, errOut)
	}
}

// BenchmarkNonFoldable are runs where one NPU cannot stand for all, so
// every NPU's endpoint and links are simulated: ASTRA-sim 1.0's
// ResNet-50 file on 4x8x4 with --full on each endpoint (one iteration),
// an all-reduce on a 1024-NPU two-tier switch fabric on each endpoint,
// ResNet-50 training on the DGX-1 with the five systems, and ASTRA-sim's
// hybrid-parallel Transformer file on 4x2x2 with --full. Each
// reports the simulator's events per run and per second, as the command
// prints them; peak memory is scripts/performance.sh's (its "full" rows),
// since a benchmark's process holds every run before it. One at a time,
// minutes each:
//
//	go test ./cmd/acemu -run '^$' -bench 'NonFoldable/astra-4x8x4-full-ideal' -benchtime 1x
func BenchmarkNonFoldable(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	astra := "../../testdata/astrasim/Resnet50_DataParallel.txt"
	type bench struct {
		name string
		args []string
	}
	var cases []bench
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		cases = append(cases, bench{"astra-4x8x4-full-" + sys,
			[]string{"--workload", astra, "--topo", "4x8x4", "--systems", sys, "--full", "--iterations", "1"}})
	}
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		cases = append(cases, bench{"switch-32x32-allreduce-1MiB-" + sys,
			[]string{"collective", "--topo", "switch:32x32", "--system", sys, "--size", "1MiB"}})
	}
	cases = append(cases, bench{"dgx1-resnet50-five-systems", []string{"--topo", "dgx1", "--other-regime=false"}})
	// Hybrid parallelism: ASTRA-sim's Transformer, model group the local
	// ring, every NPU simulated (docs/parallelism.md).
	cases = append(cases, bench{"transformer-4x2x2-full-ideal",
		[]string{"--workload", "../../testdata/astrasim/Transformer_HybridParallel.txt", "--topo", "4x2x2", "--systems", "ideal", "--full", "--iterations", "1"}})
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var events uint64
			for b.Loop() {
				code, out, errOut := runCLI(append(tc.args, "--format", "json")...)
				require.Equal(b, 0, code, errOut)
				events += eventsOf(b, out)
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// eventsOf sums the simulator events of a run's JSON output: one
// "events" for a collective, one per system for the comparator.
func eventsOf(b *testing.B, out string) uint64 {
	var r struct {
		Events  uint64 `json:"events"`
		Systems []struct {
			Events uint64 `json:"events"`
		} `json:"systems"`
	}
	require.NoError(b, json.Unmarshal([]byte(out), &r))
	n := r.Events
	for _, s := range r.Systems {
		n += s.Events
	}
	require.NotZero(b, n, "the run reported no events")
	return n
}
