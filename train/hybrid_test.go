package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/workload"
)

// groupComm is fakeComm that also takes a group (ProgressComm): each
// collective's latency is by its kind and group, and it records the group.
type groupComm struct {
	*fakeComm
	latency map[string]rtl.Cycle // "op@group"
	groups  []Group
}

func (g *groupComm) IssueWith(now rtl.Cycle, op workload.CommType, bytes int64, o IssueOptions) error {
	g.groups = append(g.groups, o.Group)
	g.fakeComm.latency[op] = g.latency[op.String()+"@"+o.Group.String()]
	return g.fakeComm.Issue(now, op, bytes, o.Done)
}

func (g *groupComm) Issue(now rtl.Cycle, op workload.CommType, bytes int64, done func(rtl.Cycle)) error {
	return g.IssueWith(now, op, bytes, IssueOptions{Done: done})
}

// runOn2x2x1 runs w on a 2x2x1 torus's machine, collectives taking the
// latencies given by kind and group.
func runOn2x2x1(t *testing.T, w *workload.Workload, overlap bool, iterations int, latency map[string]rtl.Cycle) (*Metrics, *groupComm) {
	t.Helper()
	s, err := torus.Parse("2x2x1")
	require.NoError(t, err)
	k := rtl.NewKernel()
	f := &groupComm{fakeComm: newFake(k, 0, 0), latency: latency}
	cfg := fullNPU(overlap, iterations)
	cfg.Machine = s.Machine()
	m, err := Run(k, w, cfg, f)
	require.NoError(t, err)
	checkInvariants(t, m)
	return m, f
}

func ag(b int64) workload.Comm { return workload.Comm{Type: workload.CommAllGather, Bytes: b} }

// twoLayerToy: a (layer 0) and b, each with a forward all-gather, an
// input-gradient all-reduce and a weight-gradient all-reduce, update 10.
func twoLayerToy(kind string) *workload.Workload {
	return &workload.Workload{Name: "toy", Parallelism: kind, CycleHz: oneToOne, Layers: []workload.Layer{
		{Name: "a", Fwd: work(100), FwdComm: ag(1000), InGrad: work(70), InGradComm: ar(1000), WtGrad: work(30), WtGradComm: ar(1000), UpdateCycles: 10},
		{Name: "b", Fwd: work(200), FwdComm: ag(1000), InGrad: work(50), InGradComm: ar(800), WtGrad: work(20), WtGradComm: ar(1000), UpdateCycles: 10},
	}}
}

func TestModelParallelToyTimeline(t *testing.T) {
	// MODEL, whole NPU, overlap, one iteration; the all-gather takes 40
	// cycles and the all-reduce 60, over every NPU.
	//   0-100 forward a; all-gather 100-140, waited (blocking)
	//   140-340 forward b; all-gather 340-380, waited       back-prop at 380
	//   b: input gradient 380-430; its all-reduce 430-490; weight gradient
	//      430-450 (no weight-gradient collective in MODEL); wait 450-490
	//   a: input gradient 490-560 (layer 0's is computed, its all-reduce
	//      not issued); weight gradient 560-590.                  end 590
	// compute 100+200+50+20+70+30 = 470, exposed 40+40+40 = 120.
	k := rtl.NewKernel()
	f := &groupComm{fakeComm: newFake(k, 0, 0), latency: map[string]rtl.Cycle{"ALLGATHER@all NPUs": 40, "ALLREDUCE@all NPUs": 60}}
	m, err := Run(k, twoLayerToy(workload.ParallelismModel), fullNPU(true, 1), f)
	require.NoError(t, err)
	checkInvariants(t, m)
	it := m.Iterations[0]
	assert.Equal(t, int64(590), it.IterationCycles)
	assert.Equal(t, rtl.Cycle(380), it.BackStart)
	assert.Equal(t, int64(470), it.ComputeCycles)
	assert.Equal(t, int64(120), it.ExposedCommCycles)
	require.Len(t, f.issued, 3) // two all-gathers, b's all-reduce
	for i, at := range []rtl.Cycle{100, 340, 430} {
		assert.Equal(t, at, f.issued[i].at, "collective %d", i)
	}
	assert.Equal(t, workload.CommAllReduce, f.issued[2].op)
	assert.Equal(t, int64(800), f.issued[2].bytes)
}

func TestHybridToyTimeline(t *testing.T) {
	// HYBRID_DATA_MODEL on a 2x2x1 torus: the model group is the local
	// dimension (2 NPUs), the data group the vertical one (2; horizontal
	// has 1 NPU). All-gather on local 40, all-reduce on local 60, on
	// vertical 500. Two iterations, overlap.
	// Iteration 1:
	//   0-100 forward a; all-gather 100-140; 140-340 forward b; all-gather
	//   340-380.                                            back-prop at 380
	//   b: input gradient 380-430; its all-reduce (local) 430-490; weight
	//      gradient 430-450; its all-reduce (vertical) 450-950; wait 450-490
	//   a: input gradient 490-560 (no all-reduce for layer 0); weight
	//      gradient 560-590; its all-reduce (vertical) 590-1090.  end 590
	// Iteration 2, from 590:
	//   a: wait for its weight-gradient all-reduce 590-1090; update
	//      1090-1100; forward 1100-1200; all-gather 1200-1240
	//   b: its all-reduce ended at 950; update 1240-1250; forward
	//      1250-1450; all-gather 1450-1490.                back-prop at 1490
	//   b: input gradient 1490-1540; all-reduce 1540-1600; weight gradient
	//      1540-1560; all-reduce 1560-2060; wait 1560-1600
	//   a: input gradient 1600-1670; weight gradient 1670-1700; all-reduce
	//      1700-2200; end of run: wait 1700-2200.              end 2200
	// Iteration 2: 1610 cycles = compute 10+100+10+200+50+20+70+30 = 490
	// + exposed 500+40+40+40+500 = 1120.
	lat := map[string]rtl.Cycle{"ALLGATHER@local": 40, "ALLREDUCE@local": 60, "ALLREDUCE@vertical": 500}
	m, f := runOn2x2x1(t, twoLayerToy(workload.ParallelismHybridDataModel), true, 2, lat)
	require.Len(t, m.Iterations, 2)
	assert.Equal(t, int64(590), m.Iterations[0].IterationCycles)
	assert.Equal(t, rtl.Cycle(1490), m.Iterations[1].BackStart)
	assert.Equal(t, int64(1610), m.Iterations[1].IterationCycles)
	assert.Equal(t, int64(490), m.Iterations[1].ComputeCycles)
	assert.Equal(t, int64(1120), m.Iterations[1].ExposedCommCycles)
	var names []string
	for _, g := range f.groups {
		names = append(names, g.String())
	}
	assert.Equal(t, []string{"local", "local", "local", "vertical", "vertical", "local", "local", "local", "vertical", "vertical"}, names)

	// HYBRID_MODEL_DATA swaps the groups: the same toy with the latencies
	// swapped gives the same timeline.
	m, _ = runOn2x2x1(t, twoLayerToy(workload.ParallelismHybridModelData), true, 2, map[string]rtl.Cycle{"ALLGATHER@vertical": 40, "ALLREDUCE@vertical": 60, "ALLREDUCE@local": 500})
	assert.Equal(t, rtl.Cycle(2200), m.End)
}

func TestHybridNoOverlapFusesPerGroup(t *testing.T) {
	// HYBRID_DATA_MODEL without overlap, one iteration: every collective
	// is waited for when issued, and the two weight-gradient all-reduces
	// are one of 2000 B over the data group at the end of back-prop.
	//   forward as in TestHybridToyTimeline to 380
	//   b: input gradient 380-430; all-reduce 430-490, waited; weight
	//      gradient 490-510
	//   a: input gradient 510-580; weight gradient 580-610
	//   fused all-reduce (vertical) 610-1110.                  end 1110
	m, f := runOn2x2x1(t, twoLayerToy(workload.ParallelismHybridDataModel), false, 1, map[string]rtl.Cycle{"ALLGATHER@local": 40, "ALLREDUCE@local": 60, "ALLREDUCE@vertical": 500})
	assert.Equal(t, rtl.Cycle(1110), m.End)
	last := f.issued[len(f.issued)-1]
	assert.Equal(t, int64(2000), last.bytes)
	assert.Equal(t, "vertical", f.groups[len(f.groups)-1].String())
}

func TestTransformerRecomputation(t *testing.T) {
	// HYBRID_TRANSFORMER_FWD_IN_BCKWD, model group 2 on 2x2x1 (local),
	// three layers, checkpoint 1, layer 2 initiates. Forward: each layer's
	// compute then its all-gather (local, 40), blocking:
	//   0-100, 100-140; 140-240, 240-280; 280-380, 380-420.  back-prop at 420
	//   layer 2: recompute layer 1's forward 420-520 and its all-gather
	//     520-560; input gradient 560-610; its all-reduce (local, 60)
	//     610-670; weight gradient 610-630 (no data group: vertical has
	//     the rest, 2 NPUs, its all-reduce 500) issued 630-1130; wait
	//     630-670
	//   layer 1: input gradient 670-720; all-reduce 720-780; weight
	//     gradient 720-740, all-reduce 740-1240; wait 740-780
	//   layer 0: input gradient 780-830; its all-reduce is issued (the
	//     Transformer loops issue layer 0's) 830-890; weight gradient
	//     830-850, all-reduce 850-1350; wait 850-890; end of run 890-1350.
	l := func(name string) workload.Layer {
		return workload.Layer{Name: name, Fwd: work(100), FwdComm: ag(1000), InGrad: work(50), InGradComm: ar(1000), WtGrad: work(20), WtGradComm: ar(1000)}
	}
	w := &workload.Workload{Name: "ckpt", Parallelism: workload.ParallelismHybridTransformerFwdInBckwd, CycleHz: oneToOne,
		ParallelismArgs: []string{"model_parallel_NPU_group:", "2", "checkpoints:", "1", "1", "checkpoint_initiates:", "1", "2"},
		Layers:          []workload.Layer{l("l0"), l("l1"), l("l2")}}
	require.NoError(t, w.Validate())
	m, f := runOn2x2x1(t, w, true, 1, map[string]rtl.Cycle{"ALLGATHER@local": 40, "ALLREDUCE@local": 60, "ALLREDUCE@vertical": 500})
	assert.Equal(t, rtl.Cycle(420), m.Iterations[0].BackStart)
	assert.Equal(t, rtl.Cycle(1350), m.End)
	assert.Equal(t, int64(400), m.Compute.Forward) // three forwards and one recomputed
	assert.Len(t, f.issued, 3+1+3+3)
}

func TestMicroModes(t *testing.T) {
	// MICRO: layer 0's weight-gradient all-reduce (300 cycles), no
	// compute. Back to back, three iterations: 0-300, 300-600, 600-900,
	// each its own. Concurrent: three at 0, all done at 300, one
	// iteration.
	w := &workload.Workload{Name: "micro", Parallelism: workload.ParallelismMicro, CycleHz: oneToOne, Layers: []workload.Layer{
		{Name: "conv1", Fwd: work(5), InGrad: work(5), WtGrad: work(5), WtGradComm: ar(1 << 20), UpdateCycles: 5},
	}}
	for _, tt := range []struct {
		mode  Micro
		end   rtl.Cycle
		iters int
		done  []rtl.Cycle
	}{
		{MicroBackToBack, 900, 3, []rtl.Cycle{300, 600, 900}},
		{MicroConcurrent, 300, 1, []rtl.Cycle{300, 300, 300}},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			k := rtl.NewKernel()
			cfg := fullNPU(true, 3)
			cfg.Micro = tt.mode
			m, err := Run(k, w, cfg, newFake(k, 300, 0))
			require.NoError(t, err)
			checkInvariants(t, m)
			assert.Equal(t, tt.end, m.End)
			assert.Len(t, m.Iterations, tt.iters)
			assert.Zero(t, m.ComputeCycles)
			require.Len(t, m.Micro, 3)
			for i, c := range m.Micro {
				assert.Equal(t, tt.done[i], c.Done)
				assert.Equal(t, int64(300), c.Cycles())
				assert.Equal(t, i, c.Iteration, "the iteration it stands for, in either mode")
			}
		})
	}
}

func TestBreakDimension(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	m := s.Machine()
	for _, tt := range []struct {
		k           int
		model, data string
		err         string
	}{
		{1, "", "all NPUs", ""},
		{4, "local", "vertical,horizontal", ""},
		{16, "local,vertical", "horizontal", ""},
		{64, "all NPUs", "", ""},
		// 8 = 4 × 2: the vertical dimension is split into halves.
		{8, "8 groups of 8 NPUs", "8 groups of 8 NPUs", ""},
		{2, "32 groups of 2 NPUs", "2 groups of 32 NPUs", ""},
		{3, "", "", "it must divide the machine's 64 NPUs"},
		{128, "", "", "it must divide the machine's 64 NPUs"},
	} {
		model, data, err := breakDimension(m, tt.k)
		if tt.err != "" {
			require.Error(t, err, "k=%d", tt.k)
			assert.Contains(t, err.Error(), tt.err)
			continue
		}
		require.NoError(t, err, "k=%d", tt.k)
		if tt.model != "" {
			assert.Equal(t, tt.model, model.String(), "k=%d model", tt.k)
		} else {
			assert.Equal(t, 1, model.Size, "k=%d", tt.k)
		}
		if tt.data != "" {
			assert.Equal(t, tt.data, data.String(), "k=%d data", tt.k)
		} else {
			assert.Equal(t, 1, data.Size, "k=%d", tt.k)
		}
	}
	// k = 2: NPU 0's model group is its local neighbour at place 1 (ids
	// 0 and 1: the local digit is the innermost), its data group every
	// NPU with an even local place.
	model, data, err := breakDimension(m, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, model.Groups[0])
	assert.Len(t, data.Groups[0], 32)
	assert.Equal(t, []int{0, 2, 4, 6}, data.Groups[0][:4])
}

// Two listed partitions of the same shape are not the same communicator
// (a Transformer's model and data groups of 8 on 4x4x4 are both 8 groups
// of 8 NPUs).
func TestGroupSame(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	model, data, err := breakDimension(s.Machine(), 8)
	require.NoError(t, err)
	require.Equal(t, model.String(), data.String())
	require.False(t, model.Same(data))
	require.True(t, model.Same(model))
	require.True(t, Group{Span: []string{"local"}}.Same(Group{Span: []string{"local"}, Size: 4}))
	require.False(t, Group{}.Same(Group{Groups: [][]int{}}))
}

// The run's notes name each kind's groups on the machine.
func TestDescribe(t *testing.T) {
	s, err := torus.Parse("4x4x4")
	require.NoError(t, err)
	m := s.Machine()
	for _, tt := range []struct {
		kind string
		args []string
		want string
	}{
		{workload.ParallelismData, nil, ""},
		{workload.ParallelismModel, nil, "MODEL (docs/parallelism.md): forward collectives over all 64 NPUs, input-gradient over all 64 NPUs, weight-gradient over none"},
		{workload.ParallelismHybridDataModel, nil, "forward collectives over local (4 NPUs), input-gradient over local (4 NPUs), weight-gradient over vertical,horizontal (16 NPUs)"},
		{workload.ParallelismHybridTransformer, []string{"model_parallel_NPU_group:", "8"}, "forward collectives over 8 groups of 8 NPUs, input-gradient over 8 groups of 8 NPUs, weight-gradient over 8 groups of 8 NPUs; model-parallel group 8"},
	} {
		w := twoLayerToy(tt.kind)
		w.ParallelismArgs = tt.args
		got, err := Describe(w, m, MicroBackToBack)
		require.NoError(t, err, tt.kind)
		if tt.want == "" {
			require.Empty(t, got)
			continue
		}
		require.Contains(t, got, tt.want, tt.kind)
	}
}

func TestCustomizedNoOverlapFusesEachGroup(t *testing.T) {
	// HYBRID_CUSTOMIZED on 2x2x1, no overlap, one iteration: layer a is
	// HYBRID_DATA_MODEL (model group local, data group vertical), b
	// HYBRID_MODEL_DATA (model vertical, data local). All-gathers 40 on
	// either group, all-reduces 60 on local and 500 on vertical.
	//   0-100 forward a; all-gather (local) 100-140; 140-340 forward b;
	//   all-gather (vertical) 340-380.                    back-prop at 380
	//   b: input gradient 380-430; its all-reduce (vertical) 430-930,
	//      waited; weight gradient 930-950
	//   a: input gradient 950-1020 (layer 0: no all-reduce); weight
	//      gradient 1020-1050
	//   fused, one per data group, in layer order: a's (vertical, 1000 B)
	//   1050-1550 and b's (local, 1000 B) 1050-1110.
	//                                                            end 1550
	// compute 100+200+50+20+70+30 = 470, exposed 40+40+500+500 = 1080.
	w := twoLayerToy(workload.ParallelismHybridCustomized)
	w.Layers[0].Parallelism = workload.ParallelismHybridDataModel
	w.Layers[1].Parallelism = workload.ParallelismHybridModelData
	m, f := runOn2x2x1(t, w, false, 1, map[string]rtl.Cycle{"ALLGATHER@local": 40, "ALLGATHER@vertical": 40, "ALLREDUCE@local": 60, "ALLREDUCE@vertical": 500})
	assert.Equal(t, rtl.Cycle(1550), m.End)
	assert.Equal(t, int64(470), m.ComputeCycles)
	require.Len(t, f.issued, 5)
	var names []string
	for _, g := range f.groups {
		names = append(names, g.String())
	}
	assert.Equal(t, []string{"local", "vertical", "vertical", "vertical", "local"}, names)
	for _, c := range f.issued[3:] {
		assert.Equal(t, rtl.Cycle(1050), c.at)
		assert.Equal(t, int64(1000), c.bytes)
	}
}
