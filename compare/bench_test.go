package compare

import (
	"github.com/acemu/acemu/topology"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// BenchmarkTargets are the runs docs/performance.md measures, each with
// the comparator as `acemu --workload W --topo T` runs it (memory policy
// share), reporting simulator events per second over all the run's
// systems. One run each takes from a fraction of a second to minutes:
//
//	go test ./compare -run '^$' -bench Targets -benchtime 1x
//	go test ./compare -run '^$' -bench 'Targets/main-job' -benchtime 5x
func BenchmarkTargets(b *testing.B) {
	five := systems.Names()[:5]
	ideal := []string{"ideal"}
	astra := "../testdata/astrasim/"
	for _, tc := range []struct {
		name, workload, topo string
		systems              []string
		iterations           int // 0: two
		full                 bool
	}{
		{"main-job", "resnet50", "4x8x4", five, 0, false},
		{"gnmt-4x2x2", "gnmt", "4x2x2", five, 0, false},
		{"dlrm-4x2x2", "dlrm", "4x2x2", five, 0, false},
		{"gnmt-4x8x4", "gnmt", "4x8x4", five, 0, false},
		{"dlrm-4x8x4", "dlrm", "4x8x4", five, 0, false},
		{"astra-resnet50-ideal-full-4x8x4", astra + "Resnet50_DataParallel.txt", "4x8x4", ideal, 0, true},
		{"resnet50-ideal-1it-16x16x16", "resnet50", "16x16x16", ideal, 1, false},
		{"resnet50-ideal-1it-16x64x64", "resnet50", "16x64x64", ideal, 1, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w, err := workload.Load(tc.workload)
			require.NoError(b, err)
			shape, err := torus.Parse(tc.topo)
			require.NoError(b, err)
			b.ReportAllocs()
			var events uint64
			for i := 0; i < b.N; i++ {
				rep, err := Run(Options{Machine: topology.Torus(shape), Workload: w, Systems: presets(b, tc.systems...), ACE: ace.Default(),
					Iterations: tc.iterations, Full: tc.full, Memory: contend.Share})
				require.NoError(b, err)
				require.Equal(b, !tc.full, rep.Folded)
				for _, s := range rep.Systems {
					events += s.Events
				}
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
