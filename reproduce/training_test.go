package reproduce

import (
	"math/big"
	"slices"
	"testing"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// point is a comparator point with each system's total cycles (in
// Fig11Systems' order) and 1000 bytes per NPU sent by each, but for the
// systems in bytes.
func point(workload, topo string, cycles [5]int64, bytes map[string]float64) sweep.PointResult {
	p := sweep.PointResult{Workload: workload, Topology: topo}
	for i, name := range Fig11Systems {
		b := 1000.0
		if v, ok := bytes[name]; ok {
			b = v
		}
		p.Systems = append(p.Systems, compare.SystemResult{Name: name, TotalCycles: cycles[i], NetworkGBps: b / float64(cycles[i])})
	}
	return p
}

// Section VI-C's averages from four hand-made rows (cycles as NoOverlap,
// CommOpt, CompOpt, ACE, ideal):
//
//	resnet50 4x2x1: 200 160 250 125 100 → % of ideal 50, 62.5, 40, 80;
//	                best CommOpt, 160/125 = 1.28; over each 1.6, 1.28, 2
//	resnet50 4x2x2: 250 400 300 200 100 → 40, 25, 33.33…, 50;
//	                best NoOverlap, 250/200 = 1.25; 1.25, 2, 1.5
//	dlrm 4x2x1:     100 75 60 50 50     → 50, 66.66…, 83.33…, 100;
//	                best CompOpt, 60/50 = 1.2; 2, 1.5, 1.2
//	dlrm 4x2x2:     160 200 125 100 80  → 50, 40, 64, 80;
//	                best CompOpt, 125/100 = 1.25; 1.6, 2, 1.25
//
// Means over the four rows: NoOverlap (50+40+50+50)/4 = 47.5, CommOpt
// (62.5+25+66.66…+40)/4 = 48.541666…, CompOpt (40+33.33…+83.33…+64)/4 =
// 55.1666…, ACE (80+50+100+80)/4 = 77.5. Over the best baseline: resnet50
// (1.28+1.25)/2 = 1.265, max 1.28; dlrm (1.2+1.25)/2 = 1.225, max 1.25.
// Bandwidth, all twelve speed-ups: (4.88+4.75+4.7+4.85)/12 = 19.18/12 =
// 1.598333…, max 2. Measured: every system sends 1000 B per NPU but
// NoOverlap in the first row, 2000 B, so its ratio is (1000/125) /
// (2000/200) = 0.8 instead of 1.6: (19.18 − 1.6 + 0.8)/12 = 1.531666….
func TestFig11AveragesAsThePaperForms(t *testing.T) {
	pts := []sweep.PointResult{
		point("resnet50", "4x2x1", [5]int64{200, 160, 250, 125, 100}, map[string]float64{"baseline-nooverlap": 2000}),
		point("resnet50", "4x2x2", [5]int64{250, 400, 300, 200, 100}, nil),
		point("dlrm", "4x2x1", [5]int64{100, 75, 60, 50, 50}, nil),
		point("dlrm", "4x2x2", [5]int64{160, 200, 125, 100, 80}, nil),
	}
	res := &Fig11Result{}
	for _, p := range pts {
		r, err := fig11Row(p)
		require.NoError(t, err)
		res.Rows = append(res.Rows, r)
	}
	res.average([]string{"resnet50", "dlrm"})

	for _, tc := range []struct {
		row  int
		best string
		over float64
		pct  [4]float64
	}{
		{0, "baseline-commopt", 1.28, [4]float64{0.5, 0.625, 0.4, 0.8}},
		{1, "baseline-nooverlap", 1.25, [4]float64{0.4, 0.25, 1.0 / 3, 0.5}},
		{2, "baseline-compopt", 1.2, [4]float64{0.5, 2.0 / 3, 2.5 / 3, 1}},
		{3, "baseline-compopt", 1.25, [4]float64{0.5, 0.4, 0.64, 0.8}},
	} {
		r := res.Rows[tc.row]
		require.Equal(t, tc.best, r.Best, "row %d", tc.row)
		require.InDelta(t, tc.over, r.OverBest, 1e-12, "row %d", tc.row)
		for i, name := range append(slices.Clone(Fig11Baselines), "ace") {
			require.InDelta(t, tc.pct[i], r.System(name).FractionOfIdeal, 1e-12, "row %d %s", tc.row, name)
		}
		require.Equal(t, 1.0, r.System("ideal").FractionOfIdeal)
	}
	want := []Versus{
		{"baseline-nooverlap", 0.475, 0.685}, {"baseline-commopt", 0.48541666666666667, 0.499},
		{"baseline-compopt", 0.55166666666666667, 0.757}, {"ace", 0.775, 0.91},
	}
	requireVersus(t, want, res.FractionOfIdeal)
	requireVersus(t, []Versus{{"resnet50 mean", 1.265, 1.41}, {"resnet50 max", 1.28, 1.51}, {"dlrm mean", 1.225, 1.13}, {"dlrm max", 1.25, 1.19}}, res.OverBest)
	requireVersus(t, []Versus{{"mean", 1.5983333333333333, 1.44}, {"max", 2, 2.67}, {"measured mean", 1.5316666666666667, 0}, {"measured max", 2, 0}}, res.Bandwidth)
}

func requireVersus(t *testing.T, want, got []Versus) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].What, got[i].What)
		require.InDelta(t, want[i].Acemu, got[i].Acemu, 1e-12, want[i].What)
		require.Equal(t, want[i].Paper, got[i].Paper, want[i].What)
	}
}

// A small real study: rows come workload by workload, sizes in order,
// every system in each; each row's figures and the averages are what its
// runs' cycles give; and the result does not depend on the workers.
func TestFig11SmallStudy(t *testing.T) {
	o := DefaultFig11()
	o.Topos, o.Workloads = []string{"4x2x1", "4x2x2"}, []string{"resnet50", "dlrm"}
	o.Platform.Iterations = 1
	o.Workers = 1
	res, err := Fig11(o)
	require.NoError(t, err)
	require.Len(t, res.Rows, 4)
	var overs [2][]float64
	var all []float64
	for i, r := range res.Rows {
		require.Equal(t, o.Workloads[i/2], r.Workload)
		require.Equal(t, o.Topos[i%2], r.Topo)
		require.Equal(t, []int{8, 16}[i%2], r.NPUs)
		var names []string
		for _, s := range r.Systems {
			names = append(names, s.Name)
			require.Equal(t, s.TotalCycles, s.ComputeCycles+s.ExposedCycles, s.Name)
		}
		require.Equal(t, Fig11Systems, names)
		ace, ideal := r.System("ace"), r.System("ideal")
		best := int64(0)
		for _, b := range Fig11Baselines {
			s := r.System(b)
			require.Equal(t, float64(s.TotalCycles)/float64(ace.TotalCycles), s.ACESpeedup)
			require.Equal(t, float64(ideal.TotalCycles)/float64(s.TotalCycles), s.FractionOfIdeal)
			if best == 0 || s.TotalCycles < best {
				best = s.TotalCycles
			}
			all = append(all, s.ACESpeedup)
		}
		require.Equal(t, float64(best)/float64(ace.TotalCycles), r.OverBest)
		require.Equal(t, best, r.System(r.Best).TotalCycles)
		overs[i/2] = append(overs[i/2], r.OverBest)
	}
	for w := range overs {
		require.InDelta(t, (overs[w][0]+overs[w][1])/2, res.OverBest[2*w].Acemu, 1e-12)
		require.Equal(t, max(overs[w][0], overs[w][1]), res.OverBest[2*w+1].Acemu)
	}
	require.Len(t, all, 12)
	require.InDelta(t, mean(all), res.Bandwidth[0].Acemu, 1e-12)
	require.Equal(t, slices.Max(all), res.Bandwidth[1].Acemu)

	o.Workers = 3
	again, err := Fig11(o)
	require.NoError(t, err)
	require.Equal(t, res, again)
}

// Fig. 9(b) on a small torus: the passes tile each run, the forward and
// back-propagation utilisations weighted by the passes' lengths give the
// whole run's, and DLRM's forward all-to-all makes ACE utilised in its
// forward pass.
func TestFig9bSplitsTheRunsUtilisation(t *testing.T) {
	o := DefaultFig9b()
	o.Topos, o.Workloads = []string{"4x2x2"}, []string{"resnet50", "dlrm"}
	res, err := Fig9b(o)
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	for _, r := range res.Rows {
		require.Equal(t, "4x2x2", r.Topo)
		require.Positive(t, r.ForwardCycles)
		require.Positive(t, r.BackpropCycles)
		whole := r.Whole * float64(r.ForwardCycles+r.BackpropCycles)
		require.InEpsilon(t, whole, r.Forward*float64(r.ForwardCycles)+r.Backprop*float64(r.BackpropCycles), 1e-12, r.Workload)
		require.Greater(t, r.Backprop, r.Forward, r.Workload)
	}
	require.Equal(t, "resnet50", res.Rows[0].Workload)
	require.Equal(t, 0.964, res.Rows[0].PaperBackprop)
	require.Positive(t, res.Rows[1].Forward, "dlrm's forward all-to-all")
}

// ResNet-50 issues nothing in the forward pass, so over two iterations
// ACE is utilised in forward passes exactly while it finishes the first
// iteration's all-reduces in the second's forward pass: from the second
// iteration's start (the end of the first) to the last of them done
// (each is waited for before its layer's forward compute, so all are done
// by the end of the forward pass), and in no cycle of the first forward
// pass. On a folded run ACE holds a chunk exactly while a collective is
// outstanding. Fig. 9(b)'s forward figure is that time over the forward
// passes' length, to the bit.
func TestFig9bForwardIsWhatTheLoopImplies(t *testing.T) {
	o := DefaultFig9b()
	o.Topos, o.Workloads = []string{"4x2x2"}, []string{"resnet50"}
	res, err := Fig9b(o)
	require.NoError(t, err)
	row := res.Rows[0]

	// The same run through the comparator, watching the collectives.
	w, err := compare.PlatformWorkload(o.Platform, "resnet50")
	require.NoError(t, err)
	opts, err := compare.PlatformOptions(o.Platform)
	require.NoError(t, err)
	opts.Machine, err = topology.Parse("4x2x2")
	require.NoError(t, err)
	opts.Workload = w
	opts.Systems, err = compare.PlatformSystems([]string{"ace"}, o.Platform)
	require.NoError(t, err)
	issued := map[int]rtl.Cycle{}
	var dones []observe.Event
	opts.Observe = func(string, *fabric.Network) observe.Observers {
		return observe.Observers{Work: observe.Func(func(e observe.Event) {
			switch e.Kind {
			case observe.CollectiveIssued:
				issued[e.Coll] = e.Cycle
			case observe.CollectiveDone:
				dones = append(dones, e)
			}
		})}
	}
	rep, err := compare.Run(opts)
	require.NoError(t, err)
	a := rep.Systems[0]
	require.Len(t, a.PerIteration, 2)
	end1 := rtl.Cycle(a.PerIteration[0]) // iteration 2 starts where 1 ends
	last := end1
	for _, e := range dones {
		if issued[e.Coll] < end1 {
			last = max(last, e.Cycle)
		}
	}
	require.Greater(t, last, end1, "some of iteration 1's all-reduces outlast it")
	require.Equal(t, a.ForwardCycles, row.ForwardCycles)
	want, _ := big.NewRat(int64(last-end1), a.ForwardCycles).Float64()
	require.Equal(t, want, row.Forward)
}
