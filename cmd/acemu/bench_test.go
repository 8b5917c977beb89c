package main

import (
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
