package train

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/workload"
)

// chunkFake is a ProgressComm that reports chunk j (from 0) of every
// collective final, chunks of chunkBytes, at its issue + at[j] cycles:
// (j+1)·chunkBytes bytes final; and the collective done at its issue +
// at[len(at)-1] cycles, after its last chunk. misbehave breaks the
// contract (the tests of bad Comms).
type chunkFake struct {
	k          *rtl.Kernel
	chunkBytes int64
	at         []rtl.Cycle
	misbehave  string // "", "order": chunk 1 before chunk 0, "skip": done with no chunk, "never": nothing
	issued     []issued
	chunked    []bool // per issue: whether Progress was set
}

func (f *chunkFake) Issue(now rtl.Cycle, op workload.CommType, bytes int64, done func(rtl.Cycle)) error {
	return f.IssueWith(now, op, bytes, IssueOptions{Done: done})
}

func (f *chunkFake) IssueWith(now rtl.Cycle, op workload.CommType, bytes int64, o IssueOptions) error {
	f.issued = append(f.issued, issued{op: op, bytes: bytes, at: now})
	f.chunked = append(f.chunked, o.Progress != nil)
	if f.misbehave == "never" {
		return nil
	}
	for j, at := range f.at {
		j := j
		if f.misbehave == "order" && j < 2 {
			j = 1 - j
		}
		if o.Progress != nil && f.misbehave != "skip" {
			bytes := int64(j+1) * f.chunkBytes
			f.k.Schedule(now+at, rtl.HandlerFunc(func(t rtl.Cycle, _ int32, _ int64) { o.Progress(t, bytes) }), 0, 0)
		}
	}
	f.k.Schedule(now+f.at[len(f.at)-1], rtl.HandlerFunc(func(t rtl.Cycle, _ int32, _ int64) { o.Done(t) }), 0, 0)
	return nil
}

// step is one step of the C-Cube paper's gradient-queuing example (Section
// III-D, Fig. 8(b)) in cycles: any scale serves, the timeline is linear.
const step = 1000

// cCubeExample is Fig. 8(b)'s network: 5 layers, layer i (from 1) with i
// chunks of gradients (i × 100 B in chunks of 100 B: 15 chunks, the
// Layer-Chunk Table [1, 3, 6, 10, 15] counted from 1), forward times fwd
// steps, no update time (a timed workload, not built-in: its update is its
// UpdateCycles, 0), and 10 cycles of weight-gradient compute per layer.
func cCubeExample(fwd [5]int64) *workload.Workload {
	var ls []workload.Layer
	for i := range 5 {
		ls = append(ls, workload.Layer{Name: string(rune('a' + i)), Fwd: work(fwd[i] * step), WtGrad: work(10), WtGradComm: ar(int64(i+1) * 100)})
	}
	return dataWorkload(ls...)
}

// treeChunks is when each of 15 chunks completes on every NPU in the
// overlapped tree of depth D = 3 (the C-Cube paper, Section III-C): chunk
// j (from 1) at step 2D + j − 1 after the issue; the all-reduce ends with
// chunk 15, at step 20.
func treeChunks() []rtl.Cycle {
	var at []rtl.Cycle
	for j := 1; j <= 15; j++ {
		at = append(at, rtl.Cycle(2*3+j-1)*step)
	}
	return at
}

// The bytes each layer's update waits to be final, by hand: the layers'
// gradients back to back in forward order.
func TestLayerEnds(t *testing.T) {
	tests := []struct {
		name  string
		bytes []int64 // each layer's weight-gradient all-reduce; 0: none
		want  []int64
	}{
		// Fig. 8(b): layer i has i chunks of 100 B; the table the paper's
		// Fig. 9 holds, chunks [1, 3, 6, 10, 15], is in bytes [100, 300,
		// 600, 1000, 1500].
		{"the C-Cube example", []int64{100, 200, 300, 400, 500}, []int64{100, 300, 600, 1000, 1500}},
		// Layers of 150, 100 and 50 B end at 150, 250, 300; in chunks of
		// 100 B the first shares chunk 1 with the second (and so waits for
		// all of it: TestStraddlingChunk).
		{"layers across chunks", []int64{150, 100, 50}, []int64{150, 250, 300}},
		// A layer without gradients waits for nothing; the next layer's
		// bytes follow the previous layer's directly.
		{"a parameter-free layer", []int64{100, 0, 1}, []int64{100, 0, 101}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ls []workload.Layer
			for _, b := range tt.bytes {
				l := workload.Layer{Name: "l", Fwd: work(1)}
				if b > 0 {
					l.WtGradComm = ar(b)
				}
				ls = append(ls, l)
			}
			assert.Equal(t, tt.want, LayerEnds(dataWorkload(ls...)))
		})
	}
}

// forwardStarts is an observer that appends to starts the cycle each
// forward compute of iteration it (from 0) starts, in order.
func forwardStarts(it int, starts *[]rtl.Cycle) observe.Observer {
	return observe.Func(func(e observe.Event) {
		if e.Kind == observe.KernelStart && e.Step == it && strings.HasSuffix(e.What, " forward") {
			*starts = append(*starts, e.Cycle)
		}
	})
}

// TestGradientQueuingGolden is the C-Cube paper's gradient-queuing
// example worked by hand (Section III-D, Fig. 8(b)); times in steps of
// 1000 cycles from the issue of iteration 1's one-shot all-reduce at T0 =
// 15 050 (iteration 1: forward 15 steps, back-prop 5 × 10 cycles).
// Layers become ready (their last chunk reported) at steps 6, 8, 11, 15,
// 20.
//
//   - Chained, f = [5,4,3,2,1]: forwards (6,11), (11,15), (15,18), (18,20),
//     (20,21); the forward pass ends at step 21, the only wait the 6 steps
//     before layer 0.
//   - Unchained: every forward waits for the end at step 20 and the pass
//     ends at 20 + 15 = 35.
//   - Chained, f reversed ([1,2,3,4,5], the paper's Fig. 16 "Case 2"):
//     (6,7), (8,10), (11,14), (15,19), (20,25): bubbles of 1 step before
//     layers 1 to 4, the pass ends at 25.
//
// Then back-prop (50 cycles) and the last one-shot all-reduce, 20 steps,
// waited for at the end of the run.
func TestGradientQueuingGolden(t *testing.T) {
	const t0 = 15*step + 50
	tests := []struct {
		name     string
		fwd      [5]int64
		schedule Schedule
		starts   [5]int64 // iteration 2's forward computes, in steps from T0
		stalls   []int64  // iteration 2's waits, in steps, before layers 0..4 (0: none)
		end      int64    // iteration 2's forward pass ends, steps from T0
	}{
		{"chained", [5]int64{5, 4, 3, 2, 1}, ScheduleOneShotChained, [5]int64{6, 11, 15, 18, 20}, []int64{6, 0, 0, 0, 0}, 21},
		{"unchained", [5]int64{5, 4, 3, 2, 1}, ScheduleOneShot, [5]int64{20, 25, 29, 32, 34}, []int64{20, 0, 0, 0, 0}, 35},
		{"chained, reversed profile", [5]int64{1, 2, 3, 4, 5}, ScheduleOneShotChained, [5]int64{6, 8, 11, 15, 20}, []int64{6, 1, 1, 1, 1}, 25},
		{"unchained, reversed profile", [5]int64{1, 2, 3, 4, 5}, ScheduleOneShot, [5]int64{20, 21, 23, 26, 30}, []int64{20, 0, 0, 0, 0}, 35},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := rtl.NewKernel()
			comm := &chunkFake{k: k, chunkBytes: 100, at: treeChunks()}
			var kernels []rtl.Cycle // iteration 2's kernel starts
			cfg := Config{Compute: npu.FullNPU(), Overlap: true, Iterations: 2, Schedule: tt.schedule,
				Observer: forwardStarts(1, &kernels)}
			m, err := Run(k, cCubeExample(tt.fwd), cfg, comm)
			require.NoError(t, err)
			checkInvariants(t, m)

			// One all-reduce of 1500 B per iteration, issued at the end of
			// back-prop; chunks asked for only when chained.
			require.Len(t, comm.issued, 2)
			assert.Equal(t, rtl.Cycle(t0), comm.issued[0].at)
			assert.Equal(t, int64(1500), comm.issued[0].bytes)
			assert.Equal(t, []bool{tt.schedule == ScheduleOneShotChained, tt.schedule == ScheduleOneShotChained}, comm.chunked)

			it := m.Iterations[1]
			assert.Equal(t, rtl.Cycle(t0), it.Start)
			for l, s := range tt.starts {
				assert.Equal(t, rtl.Cycle(t0+s*step), kernels[l], "layer %d's forward starts", l)
			}
			assert.Equal(t, rtl.Cycle(t0+tt.end*step), it.BackStart)
			stalls := make([]int64, 5)
			for _, s := range it.Stalls {
				if s.Layer >= 0 {
					stalls[s.Layer] += s.Cycles() / step
				}
			}
			assert.Equal(t, tt.stalls, stalls)
			// The last all-reduce: issued at the end of back-prop, waited for
			// at the end of the run.
			assert.Equal(t, it.BackStart+50, comm.issued[1].at)
			assert.Equal(t, comm.issued[1].at+20*step, m.End)
			// The one-shot all-reduce is the end-of-back-prop entry's.
			var oneShot []LayerPass
			for _, lp := range m.Iterations[0].Layers {
				if lp.Pass == PassEndOfBackProp {
					oneShot = append(oneShot, lp)
				}
			}
			require.Len(t, oneShot, 1)
			assert.Equal(t, LayerPass{Layer: -1, Pass: PassEndOfBackProp, Collective: workload.CommAllReduce, CollectiveBytes: 1500, CollectiveCycles: 20 * step}, oneShot[0])
			if tt.schedule == ScheduleOneShotChained {
				assert.Contains(t, it.Stalls[0].Waiting, "the first 100 B of the one-shot weight-gradient ALLREDUCE of 1500 B (5 layers) of iteration 1")
			}
		})
	}
}

// A layer whose last byte is in a chunk it shares with the next layer
// waits for that chunk: layers of 150, 100 and 50 B in chunks of 100 B
// end in chunks 1, 2, 2. With chunk j reported at 1000·(j+1) cycles after
// the issue and done at 3000, layer 0's forward starts 2000 cycles after
// the issue (chunk 1), not 1000 (chunk 0, which holds its first 100 B);
// layer 1's (10 cycles of forward later) and layer 2's wait for chunk 2
// at 3000.
func TestStraddlingChunk(t *testing.T) {
	w := dataWorkload(
		workload.Layer{Name: "a", Fwd: work(10), WtGrad: work(10), WtGradComm: ar(150)},
		workload.Layer{Name: "b", Fwd: work(10), WtGrad: work(10), WtGradComm: ar(100)},
		workload.Layer{Name: "c", Fwd: work(10), WtGrad: work(10), WtGradComm: ar(50)},
	)
	k := rtl.NewKernel()
	comm := &chunkFake{k: k, chunkBytes: 100, at: []rtl.Cycle{1000, 2000, 3000}}
	var starts []rtl.Cycle
	cfg := Config{Compute: npu.FullNPU(), Overlap: true, Iterations: 2, Schedule: ScheduleOneShotChained,
		Observer: forwardStarts(1, &starts)}
	m, err := Run(k, w, cfg, comm)
	require.NoError(t, err)
	checkInvariants(t, m)
	issue := comm.issued[0].at // 30 + 30: iteration 1's forward and back-prop
	require.Equal(t, rtl.Cycle(60), issue)
	assert.Equal(t, []rtl.Cycle{issue + 2000, issue + 3000, issue + 3010}, starts)
	var waits []string
	for _, s := range m.Iterations[1].Stalls {
		if s.Layer >= 0 { // not the end of the run's
			waits = append(waits, s.LayerName)
		}
	}
	assert.Equal(t, []string{"a", "b"}, waits, "a waits for chunk 1, b for chunk 2, c for nothing more")
}

// The schedule leaves BaselineNoOverlap as it is: its fused all-reduce is
// already one all-reduce at the end of back-prop, waited for at once.
func TestScheduleLeavesNoOverlapAlone(t *testing.T) {
	run := func(s Schedule) *Metrics {
		k := rtl.NewKernel()
		m, err := Run(k, cCubeExample([5]int64{5, 4, 3, 2, 1}), Config{Compute: npu.FullNPU(), Iterations: 2, Schedule: s}, newFake(k, 7_000, 0))
		require.NoError(t, err)
		return m
	}
	want := run(ScheduleLayerwise)
	for _, s := range []Schedule{ScheduleOneShot, ScheduleOneShotChained} {
		assert.Equal(t, want, run(s), s.String())
	}
}

func TestScheduleErrors(t *testing.T) {
	w := cCubeExample([5]int64{1, 1, 1, 1, 1})
	for _, s := range []string{"layerwise", "oneshot", "oneshot-chained", " OneShot-Chained "} {
		got, err := ParseSchedule(s)
		require.NoError(t, err, s)
		assert.Equal(t, got.String(), Schedules()[got])
	}
	_, err := ParseSchedule("chained")
	assert.ErrorContains(t, err, `schedule "chained": use one of layerwise, oneshot, oneshot-chained`)

	tests := []struct {
		name      string
		schedule  Schedule
		comm      func(k *rtl.Kernel) Comm
		wantError []string
	}{
		{"unknown schedule", Schedule(7), func(k *rtl.Kernel) Comm { return newFake(k, 1, 1) },
			[]string{"schedule Schedule(7): use one of layerwise, oneshot, oneshot-chained"}},
		{"gradient queuing on a Comm without progress", ScheduleOneShotChained, func(k *rtl.Kernel) Comm { return newFake(k, 1, 1) },
			[]string{"needs a Comm that reports how much of a collective is final", "train.ProgressComm", "use schedule oneshot"}},
		{"progress that shrinks", ScheduleOneShotChained, func(k *rtl.Kernel) Comm {
			return &chunkFake{k: k, chunkBytes: 100, at: treeChunks(), misbehave: "order"}
		}, []string{"reported 100 B of the one-shot weight-gradient ALLREDUCE of 1500 B (5 layers) of iteration 1 final", "after 200 B", "must grow with each report"}},
		{"done with nothing final", ScheduleOneShotChained, func(k *rtl.Kernel) Comm {
			return &chunkFake{k: k, chunkBytes: 100, at: treeChunks(), misbehave: "skip"}
		}, []string{"done at cycle", "with only 0 B of it reported final"}},
		{"no progress ever", ScheduleOneShotChained, func(k *rtl.Kernel) Comm {
			return &chunkFake{k: k, chunkBytes: 100, at: treeChunks(), misbehave: "never"}
		}, []string{"iteration 2, forward, before layer 0 (a)", "the first 100 B of the one-shot weight-gradient ALLREDUCE", "0 B were reported final", "the Comm never reported those bytes final"}},
		{"a report of nothing", ScheduleOneShotChained, func(k *rtl.Kernel) Comm { return &chunkFake{k: k, at: treeChunks()} },
			[]string{"reported 0 B of the one-shot weight-gradient ALLREDUCE of 1500 B (5 layers) of iteration 1 final", "must grow with each report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := rtl.NewKernel()
			_, err := Run(k, w, Config{Compute: npu.FullNPU(), Overlap: true, Iterations: 2, Schedule: tt.schedule}, tt.comm(k))
			require.Error(t, err)
			for _, s := range tt.wantError {
				assert.ErrorContains(t, err, s)
			}
		})
	}
}
