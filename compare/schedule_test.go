package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// profile is a five-layer data-parallel workload after the C-Cube paper's
// Fig. 16 and 17 (Section V-C): in "Case 1" (ResNet-50's, Fig. 17) the
// forward time falls and the parameters grow with the layer, layer i
// (from 1) computing (6 − i) × 300 ns forward and all-reducing i × 64 KiB
// of gradients; reversed, the forward time grows (i × 300 ns, "Case 2")
// and the early layers communicate more ((6 − i) × 64 KiB, "Case 3").
// Back-prop is 100 ns a pass. 300 ns (373.5 cycles) is about the time a
// 64 KiB chunk takes on the ideal endpoint here, the paper's example's
// one step a chunk (Fig. 8(b)).
func profile(t *testing.T, reversed bool) *workload.Workload {
	var b strings.Builder
	b.WriteString("DATA\n5\n")
	for i := 1; i <= 5; i++ {
		f, s := (6-i)*300, i*65536
		if reversed {
			f, s = i*300, (6-i)*65536
		}
		fmt.Fprintf(&b, "l%d\t-1\t%d\tNONE\t0\t100\tNONE\t0\t100\tALLREDUCE\t%d\t0\n", i, f, s)
	}
	w, err := workload.ParseAstraSim(strings.NewReader(b.String()), "profile.txt")
	require.NoError(t, err)
	return w
}

// Gradient queuing end to end, on a ring of 4 NPUs with the ideal
// endpoint, the SM-driven baseline and ACE (two iterations; the second
// forward pass is where the schedules differ):
//
//   - chained one-shot is faster than the one-shot without chaining on
//     both profiles: its forward pass starts once the first layer's chunks
//     are in, not the whole all-reduce;
//   - it gains more in Case 1 than reversed, where the first layer waits
//     for five chunks instead of one and the later layers wait for their
//     chunks (bubbles before layers after the first, which Case 1 has
//     none of on the ideal endpoint and the baseline; on ACE, whose
//     one-shot all-reduce takes here about twice the ideal's, longer than
//     the forward pass, Case 1's last layers wait too);
//   - the one-shot without chaining costs the same on both profiles: the
//     same bytes in one all-reduce, the same forward compute after it;
//   - BaselineNoOverlap is the same under every schedule.
func TestGradientQueuingEndToEnd(t *testing.T) {
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	names := []string{"ideal", "baseline-commopt", "ace", "baseline-nooverlap"}
	type run struct {
		total   int64
		bubbles int64 // iteration 2's waits before forward layers after the first
	}
	runs := map[string]map[[2]string]run{} // system → profile, schedule → run
	for _, name := range names {
		runs[name] = map[[2]string]run{}
	}
	for _, prof := range []string{"case 1", "reversed"} {
		w := profile(t, prof == "reversed")
		for _, s := range []train.Schedule{train.ScheduleLayerwise, train.ScheduleOneShot, train.ScheduleOneShotChained} {
			rep, err := Run(Options{Machine: m, Workload: w, Systems: presets(t, names...), Schedule: s, KeepMetrics: true})
			require.NoError(t, err)
			if s == train.ScheduleLayerwise {
				assert.Empty(t, rep.Schedule, "the default is left out of the report")
			} else {
				assert.Equal(t, s.String(), rep.Schedule)
			}
			for _, r := range rep.Systems {
				if r.Name == "baseline-nooverlap" || s == train.ScheduleLayerwise {
					assert.Empty(t, r.Schedule, r.Name)
				} else {
					assert.Equal(t, s.String(), r.Schedule, r.Name)
				}
				var bubbles int64
				for _, st := range r.Metrics.Iterations[1].Stalls {
					if st.Layer > 0 && st.Phase == "forward" {
						bubbles += st.Cycles()
					}
				}
				runs[r.Name][[2]string{prof, s.String()}] = run{r.TotalCycles, bubbles}
			}
		}
	}
	for _, name := range names[:3] {
		r := runs[name]
		get := func(prof string, s train.Schedule) run { return r[[2]string{prof, s.String()}] }
		for _, prof := range []string{"case 1", "reversed"} {
			assert.Less(t, get(prof, train.ScheduleOneShotChained).total, get(prof, train.ScheduleOneShot).total, "%s, %s", name, prof)
		}
		assert.Equal(t, get("case 1", train.ScheduleOneShot).total, get("reversed", train.ScheduleOneShot).total, name)
		gain := func(prof string) int64 {
			return get(prof, train.ScheduleOneShot).total - get(prof, train.ScheduleOneShotChained).total
		}
		assert.Greater(t, gain("case 1"), gain("reversed"), name)
		assert.Positive(t, get("reversed", train.ScheduleOneShotChained).bubbles, "%s: bubbles reversed", name)
		if name != "ace" {
			assert.Zero(t, get("case 1", train.ScheduleOneShotChained).bubbles, "%s: no bubbles in case 1", name)
		}
	}
	no := runs["baseline-nooverlap"]
	for k, r := range no {
		assert.Equal(t, no[[2]string{k[0], train.ScheduleLayerwise.String()}], r, "baseline-nooverlap %v", k)
	}
}

// Folding holds under gradient queuing: one NPU standing for all reports
// each chunk at the cycle the full simulation does, so the results are the
// same. The one-shot all-reduce's size (300000 + 700001 + 65536 B,
// padded to 1065600, a multiple of 16 NPUs × 2 B) joins the fold check.
func TestFoldedRunEqualsFullRunUnderGradientQueuing(t *testing.T) {
	m, err := topology.Parse("4x2x2")
	require.NoError(t, err)
	requireFoldedEqualsFull(t, Options{Machine: m, Workload: unevenLayers(t), Systems: presets(t, "ideal", "baseline-commopt", "ace"), Schedule: train.ScheduleOneShotChained})
}

// The one-shot all-reduce decides the fold too: on a ring of 3 NPUs
// layers of 3072 B and 65532 B each run in one chunk that splits evenly
// (1024 and 21844 B per NPU), but their sum, 68604 B, runs as a chunk of
// 65536 B (65536 = 3 × 21845 + 1) and one of 3068 B, which does not split
// evenly, so under a one-shot schedule every NPU is simulated.
func TestOneShotAllReduceDecidesTheFold(t *testing.T) {
	w, err := workload.ParseAstraSim(strings.NewReader("DATA\n2\n"+
		"a\t-1\t2000\tNONE\t0\t2000\tNONE\t0\t2000\tALLREDUCE\t3072\t0\n"+
		"b\t-1\t2000\tNONE\t0\t2000\tNONE\t0\t2000\tALLREDUCE\t65532\t0\n"), "small.txt")
	require.NoError(t, err)
	m, err := topology.Parse("3x1x1")
	require.NoError(t, err)
	o := Options{Machine: m, Workload: w, Systems: presets(t, "ideal"), Iterations: 1}
	rep, err := Run(o)
	require.NoError(t, err)
	require.True(t, rep.Folded, "the layers' own all-reduces fold")
	o.Schedules = map[string]train.Schedule{"ideal": train.ScheduleOneShot}
	list, err := o.issued()
	require.NoError(t, err)
	why, err := whyNotFold(m, o.afiConfig(), list)
	require.NoError(t, err)
	require.ErrorContains(t, why, "the all-reduce of every layer's weight gradients at the end of back-prop")
	rep, err = Run(o)
	require.NoError(t, err)
	require.False(t, rep.Folded)
	// BaselineNoOverlap fuses the same all-reduce under every schedule:
	// its run is not folded either (it failed on a folded network before
	// the fused all-reduce joined the check).
	o.Schedules, o.Systems = nil, presets(t, "baseline-nooverlap")
	rep, err = Run(o)
	require.NoError(t, err)
	require.False(t, rep.Folded)
}

// The one-shot all-reduce run as one chunk decides the fold as it runs:
// on a ring of 4 NPUs one layer's 66808 B in the platform's chunks (65536
// and 1272 B, each splitting evenly: 16384 and 318 B per NPU) folds, and
// as one chunk of 66808 B (16702 B per NPU, its ring's messages of 8 KiB
// and less) it does not: a run with the one chunk is simulated NPU by NPU
// (before, the check looked at the platform's chunks and the run failed on
// a folded network).
func TestWholeOneShotDecidesTheFold(t *testing.T) {
	w, err := workload.ParseAstraSim(strings.NewReader("DATA\n1\n"+
		"a\t-1\t2000\tNONE\t0\t2000\tNONE\t0\t2000\tALLREDUCE\t66808\t0\n"), "one.txt")
	require.NoError(t, err)
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	o := Options{Machine: m, Workload: w, Systems: presets(t, "ideal"), Iterations: 1, Schedule: train.ScheduleOneShot}
	rep, err := Run(o)
	require.NoError(t, err)
	require.True(t, rep.Folded, "in the platform's chunks")
	o.WholeOneShot = map[string]bool{"ideal": true}
	rep, err = Run(o)
	require.NoError(t, err)
	require.False(t, rep.Folded, "as one chunk")
}

// Options.Schedules gives a system its own schedule: each system's result
// is what it is when every system runs under that schedule, and names it
// unless it is the default. A schedule for a system not compared is
// refused.
func TestSchedulePerSystem(t *testing.T) {
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	o := Options{Machine: m, Workload: profile(t, false), Systems: presets(t, "ideal", "ace")}
	layerwise, err := Run(o)
	require.NoError(t, err)
	o.Schedule = train.ScheduleOneShotChained
	chained, err := Run(o)
	require.NoError(t, err)
	o.Schedule, o.Schedules = train.ScheduleLayerwise, map[string]train.Schedule{"ace": train.ScheduleOneShotChained}
	mixed, err := Run(o)
	require.NoError(t, err)
	assert.Equal(t, layerwise.Systems[0].TotalCycles, mixed.Systems[0].TotalCycles)
	assert.Equal(t, chained.Systems[1].TotalCycles, mixed.Systems[1].TotalCycles)
	assert.NotEqual(t, layerwise.Systems[1].TotalCycles, mixed.Systems[1].TotalCycles)
	assert.Empty(t, mixed.Systems[0].Schedule)
	assert.Equal(t, "oneshot-chained", mixed.Systems[1].Schedule)
	assert.Empty(t, mixed.Schedule, "the run's own schedule is the default")

	o.Schedules = map[string]train.Schedule{"baseline-commopt": train.ScheduleOneShot}
	_, err = Run(o)
	assert.ErrorContains(t, err, "a schedule (oneshot) for system baseline-commopt, which is not among the systems compared")
}

// Recipe C-4 of the C-Cube paper (Section V-B, Fig. 13): on the DGX-1 (dgx1
// and its two trees), with a layer profile like ResNet-50's ("Case 1":
// forward time falling, parameters growing with the layer), the SM-driven
// baseline running the one-shot all-reduce as one chunk through the trees.
// Throughput is one iteration in the steady state (the second of three:
// it waits for the first's all-reduce and leaves its own to the third).
// B is the double tree, conventional, the forward pass waiting for all of
// it; C1 overlaps its broadcast with its reduction (half the time);
// C2 chains the forward pass to the conventional tree's pieces, the first
// back once every piece is reduced, so it saves the broadcast where the
// forward pass is long enough to hide it, about what C1 saves; CC both.
// So CC > C1 > B and CC > C2 > B always, and C2 ≈ C1 (the paper: "C2
// slightly higher than C1") where the forward pass outlasts the
// broadcast: with layer i's forward (6 − i) × 3000 ns, within 3 points
// of gain; with (6 − i) × 300 ns the forward pass is shorter than the
// broadcast and C2 gains less than C1.
func TestCCubeConfigurationsOrderOnDGX1(t *testing.T) {
	m, err := topology.Parse("dgx1")
	require.NoError(t, err)
	for _, fwd := range []int{300, 3000} {
		var b strings.Builder
		b.WriteString("DATA\n5\n")
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(&b, "l%d\t-1\t%d\tNONE\t0\t100\tNONE\t0\t100\tALLREDUCE\t%d\t0\n", i, (6-i)*fwd, i*65536)
		}
		w, err := workload.ParseAstraSim(strings.NewReader(b.String()), "profile.txt")
		require.NoError(t, err)
		cycles := map[string]int64{}
		for _, c := range []struct {
			name, alg string
			s         train.Schedule
		}{
			{"B", "double-tree", train.ScheduleOneShot},
			{"C1", "double-tree-overlapped", train.ScheduleOneShot},
			{"C2", "double-tree", train.ScheduleOneShotChained},
			{"CC", "double-tree-overlapped", train.ScheduleOneShotChained},
		} {
			rep, err := Run(Options{Machine: m, Workload: w, Systems: presets(t, "baseline-commopt"), Schedule: c.s, Iterations: 3, KeepMetrics: true,
				Algorithms:   map[collectives.CollectiveOp]string{collectives.OpAllReduce: c.alg},
				WholeOneShot: map[string]bool{"baseline-commopt": true}})
			require.NoError(t, err)
			cycles[c.name] = rep.Systems[0].Metrics.Iterations[1].IterationCycles
		}
		gain := func(c string) float64 { return float64(cycles["B"])/float64(cycles[c]) - 1 }
		t.Logf("forward (6 − i) × %d ns: %v; gains C1 %.3f C2 %.3f CC %.3f", fwd, cycles, gain("C1"), gain("C2"), gain("CC"))
		assert.Greater(t, gain("C1"), 0.0, "C1 > B")
		assert.Greater(t, gain("C2"), 0.0, "C2 > B")
		assert.Greater(t, gain("CC"), gain("C1"), "CC > C1")
		assert.Greater(t, gain("CC"), gain("C2"), "CC > C2")
		if fwd == 3000 {
			assert.InDelta(t, gain("C1"), gain("C2"), 0.03, "C2 ≈ C1 where the forward pass hides the broadcast")
		} else {
			assert.Less(t, gain("C2"), gain("C1"), "the broadcast outlasts the forward pass")
		}
	}
}

// A whole one-shot all-reduce is asked only of a system compared that
// overlaps under a one-shot schedule: not of one that is not compared, not
// under the layer-wise schedule, and not of BaselineNoOverlap, which fuses
// its own all-reduce in the platform's chunks under every schedule (and
// which C-Cube's presets leave out).
func TestWholeOneShotNamesASystemUnderAOneShotSchedule(t *testing.T) {
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	w := profile(t, false)
	for _, o := range []Options{
		{Schedule: train.ScheduleLayerwise, WholeOneShot: map[string]bool{"ideal": true}},
		{Schedule: train.ScheduleOneShot, WholeOneShot: map[string]bool{"ace": true}},
		{Schedule: train.ScheduleOneShot, WholeOneShot: map[string]bool{"baseline-nooverlap": true}},
	} {
		o.Machine, o.Workload, o.Systems = m, w, presets(t, "ideal", "baseline-nooverlap")
		_, err := Run(o)
		require.ErrorContains(t, err, "a whole one-shot all-reduce for system")
		require.ErrorContains(t, err, "which is not among the systems compared that overlap under a one-shot schedule")
	}
	o := Options{Machine: m, Workload: w, Systems: presets(t, "ideal", "baseline-nooverlap")}
	c, err := CCubeConfigOf("C1") // whole on every system but ACE that overlaps
	require.NoError(t, err)
	c.Apply(&o)
	require.Equal(t, map[string]bool{"ideal": true}, o.WholeOneShot)
}
