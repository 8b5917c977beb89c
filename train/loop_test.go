package train

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/workload"
)

// fakeComm completes every collective a fixed number of cycles after it
// starts. Unserialised, all run at once (each starts when issued);
// serialised, one runs at a time and the next is the most recently issued
// (LIFO) or the oldest (FIFO) of those queued.
type fakeComm struct {
	k       *rtl.Kernel
	latency map[workload.CommType]rtl.Cycle
	serial  bool
	lifo    bool
	never   bool  // never complete anything
	fail    error // Issue returns it
	twice   bool  // call done twice

	issued []issued
	queue  []int
	busy   bool
}

type issued struct {
	op                    workload.CommType
	bytes                 int64
	at, started, finished rtl.Cycle
	done                  func(rtl.Cycle)
}

func newFake(k *rtl.Kernel, ar, a2a rtl.Cycle) *fakeComm {
	return &fakeComm{k: k, latency: map[workload.CommType]rtl.Cycle{workload.CommAllReduce: ar, workload.CommAllToAll: a2a}}
}

func (f *fakeComm) Issue(now rtl.Cycle, op workload.CommType, bytes int64, done func(rtl.Cycle)) error {
	if f.fail != nil {
		return f.fail
	}
	f.issued = append(f.issued, issued{op: op, bytes: bytes, at: now, finished: -1, done: done})
	if f.never {
		return nil
	}
	id := len(f.issued) - 1
	if !f.serial {
		f.start(now, id)
		return nil
	}
	f.queue = append(f.queue, id)
	f.next(now)
	return nil
}

func (f *fakeComm) start(now rtl.Cycle, id int) {
	f.issued[id].started = now
	f.k.Schedule(now+f.latency[f.issued[id].op], rtl.HandlerFunc(func(t rtl.Cycle, _ int32, _ int64) {
		f.issued[id].finished = t // by index: Issue may have grown the slice
		f.issued[id].done(t)
		if f.twice {
			f.issued[id].done(t)
		}
		if f.serial {
			f.busy = false
			f.next(t)
		}
	}), 0, 0)
}

func (f *fakeComm) next(now rtl.Cycle) {
	if f.busy || len(f.queue) == 0 {
		return
	}
	i := 0
	if f.lifo {
		i = len(f.queue) - 1
	}
	id := f.queue[i]
	f.queue = append(f.queue[:i], f.queue[i+1:]...)
	f.busy = true
	f.start(now, id)
}

// With CycleHz = the NPU clock, the whole NPU and m = 1, a workload cycle
// is exactly one NPU cycle (scale = 1245e6/1245e6 × 900/900), so the
// timelines below are plain sums.
const oneToOne = npu.ClockHz

func work(c int64) workload.Work { return workload.Work{Cycles: c} }

func ar(b int64) workload.Comm  { return workload.Comm{Type: workload.CommAllReduce, Bytes: b} }
func a2a(b int64) workload.Comm { return workload.Comm{Type: workload.CommAllToAll, Bytes: b} }

func dataWorkload(layers ...workload.Layer) *workload.Workload {
	return &workload.Workload{Name: "hand", Parallelism: workload.ParallelismData, Layers: layers, CycleHz: oneToOne}
}

// twoLayers: a has no collective (and an input gradient the loop must
// never run: there is nothing below layer 0); b all-reduces 1000 B.
func twoLayers() *workload.Workload {
	return dataWorkload(
		workload.Layer{Name: "a", Fwd: work(100), InGrad: work(999), WtGrad: work(100)},
		workload.Layer{Name: "b", Fwd: work(100), InGrad: work(100), WtGrad: work(50), WtGradComm: ar(1000)},
	)
}

func fullNPU(overlap bool, iterations int) Config {
	return Config{Compute: npu.FullNPU(), Overlap: overlap, Iterations: iterations}
}

// checkInvariants: iteration time = compute + exposed = wall time, the
// stalls add up to the exposed time, the totals add up.
func checkInvariants(t *testing.T, m *Metrics) {
	t.Helper()
	var total int64
	for i, it := range m.Iterations {
		assert.Equal(t, it.ComputeCycles+it.ExposedCommCycles, it.IterationCycles, "iteration %d", i)
		assert.Equal(t, int64(it.End-it.Start), it.IterationCycles, "iteration %d", i)
		assert.Equal(t, it.ComputeCycles, it.Compute.Total(), "iteration %d", i)
		var st int64
		for _, s := range it.Stalls {
			assert.Positive(t, s.Cycles())
			st += s.Cycles()
		}
		assert.Equal(t, it.ExposedCommCycles, st, "iteration %d", i)
		// Per layer and pass: the compute adds up pass by pass, the waits
		// to the exposed time, the collectives to the iteration's.
		var compute Breakdown
		var exposed, bytes int64
		var colls int
		for _, l := range it.Layers {
			compute.add(l.Pass, l.ComputeCycles)
			exposed += l.ExposedCommCycles
			if l.Collective != workload.CommNone {
				colls++
				bytes += l.CollectiveBytes
				assert.Positive(t, l.CollectiveCycles, "iteration %d %+v", i, l)
			}
		}
		assert.Equal(t, it.Compute, compute, "iteration %d: compute per pass", i)
		assert.Equal(t, it.ExposedCommCycles, exposed, "iteration %d: exposed", i)
		assert.Equal(t, it.Collectives, colls, "iteration %d: collectives", i)
		assert.Equal(t, it.CollectiveBytes, bytes, "iteration %d: collective bytes", i)
		if i > 0 {
			assert.Equal(t, m.Iterations[i-1].End, it.Start)
		}
		total += it.IterationCycles
	}
	assert.Equal(t, total, m.TotalCycles)
	assert.Equal(t, m.ComputeCycles+m.ExposedCommCycles, m.TotalCycles)
	assert.Equal(t, int64(m.End-m.Start), m.TotalCycles)
	// The passes tile the run: each forward pass ends where its
	// back-propagation begins, which ends where the next forward begins.
	fwd, back := m.Passes()
	require.Len(t, fwd, len(m.Iterations))
	at := m.Start
	for i := range fwd {
		assert.Equal(t, at, fwd[i].From, "iteration %d", i)
		assert.Equal(t, fwd[i].To, back[i].From, "iteration %d", i)
		assert.LessOrEqual(t, fwd[i].From, fwd[i].To, "iteration %d", i)
		assert.LessOrEqual(t, back[i].From, back[i].To, "iteration %d", i)
		at = back[i].To
	}
	assert.Equal(t, m.End, at)
}

func TestLoopTimelines(t *testing.T) {
	type want struct {
		compute, exposed, total int64
		perIter                 [][3]int64  // compute, exposed, iteration
		backStart               []rtl.Cycle // per iteration: the end of its last forward compute
		stalls                  []Stall     // Waiting is checked with Contains
	}
	tests := []struct {
		name    string
		w       *workload.Workload
		cfg     Config
		ar, a2a rtl.Cycle
		serial  bool
		lifo    bool
		want    want
		issued  []issued // op, bytes, at (others ignored)
		// layers are the iterations' Layers, one after the other, from
		// the timeline in the comment (nil: not checked).
		layers []LayerPass
	}{
		{
			// (1) Hidden. fwd a [0,100], fwd b [100,200]; back-prop: b's
			// weight gradient [200,250], its all-reduce issued at 250
			// (done 250+150 = 400), b's input gradient [250,350], a's
			// weight gradient [350,450]; a's input gradient is not run.
			// At the end the all-reduce (400) is done before the loop gets
			// there (450): exposed 0, compute 100+100+50+100+100 = 450.
			name: "all-reduce hidden behind later compute",
			w:    twoLayers(), cfg: fullNPU(true, 1), ar: 150,
			want:   want{compute: 450, exposed: 0, total: 450, perIter: [][3]int64{{450, 0, 450}}, backStart: []rtl.Cycle{200}},
			issued: []issued{{op: workload.CommAllReduce, bytes: 1000, at: 250}},
		},
		{
			// (2) Partly exposed: the same, with a 300-cycle all-reduce
			// issued at 250, done at 550; back-prop ends at 450, so the
			// loop waits 550 − 450 = 100 (300 cycles of all-reduce, 200
			// hidden behind b's input gradient and a's weight gradient).
			name: "all-reduce partly exposed",
			w:    twoLayers(), cfg: fullNPU(true, 1), ar: 300,
			want: want{compute: 450, exposed: 100, total: 550, perIter: [][3]int64{{450, 100, 550}}, backStart: []rtl.Cycle{200},
				stalls: []Stall{{Iteration: 0, Phase: phaseEndRun, Layer: -1, Waiting: "weight-gradient ALLREDUCE of 1000 B of layer 1 (b) of iteration 1", From: 450, To: 550}}},
		},
		{
			// (4) No overlap: a and b all-reduce 2000 and 1000 B. No
			// collective during back-prop; compute ends at 450 (as in (1)),
			// then ONE all-reduce of 3000 B, 300 cycles: exposed = its
			// latency, 300; the iteration takes 750.
			name: "no overlap: one fused all-reduce at the end of back-prop",
			w: func() *workload.Workload {
				w := twoLayers()
				w.Layers[0].WtGradComm = ar(2000)
				return w
			}(),
			cfg: fullNPU(false, 1), ar: 300,
			want: want{compute: 450, exposed: 300, total: 750, perIter: [][3]int64{{450, 300, 750}}, backStart: []rtl.Cycle{200},
				stalls: []Stall{{Iteration: 0, Phase: phaseEndBack, Layer: -1, Waiting: "fused weight-gradient ALLREDUCE of 3000 B (2 layers) of iteration 1", From: 450, To: 750}}},
			issued: []issued{{op: workload.CommAllReduce, bytes: 3000, at: 450}},
		},
		{
			// (5) Two iterations; a and b all-reduce, 200 cycles each, and
			// update in 10 cycles each.
			// Iteration 1 [0,450]: fwd a, b [0,200]; b's weight gradient
			// [200,250], AR_b issued at 250 (done 450); b's input gradient
			// [250,350]; a's weight gradient [350,450], AR_a at 450 (done
			// 650). No update in iteration 1 (nothing to apply yet).
			// Iteration 2 starts at 450: layer a waits for AR_a: exposed
			// [450,650] = 200; update a [650,660]; fwd a [660,760]; AR_b
			// was done at 450; update b [760,770]; fwd b [770,870]; b's
			// weight gradient [870,920], AR_b' done 1120; input gradient
			// [920,1020]; a's weight gradient [1020,1120], AR_a' done 1320;
			// end of run waits [1120,1320] = 200.
			// Iteration 2: compute 10+10+100+100+50+100+100 = 470, exposed
			// 400, 870 = 1320 − 450.
			name: "iteration 2's forward waits for iteration 1's all-reduces",
			w: func() *workload.Workload {
				w := twoLayers()
				w.Layers[0].WtGradComm = ar(2000)
				w.Layers[0].UpdateCycles = 10
				w.Layers[1].UpdateCycles = 10
				return w
			}(),
			cfg: fullNPU(true, 2), ar: 200,
			want: want{compute: 920, exposed: 400, total: 1320, perIter: [][3]int64{{450, 0, 450}, {470, 400, 870}}, backStart: []rtl.Cycle{200, 870},
				stalls: []Stall{
					{Iteration: 1, Phase: phaseForward, Layer: 0, LayerName: "a", Waiting: "weight-gradient ALLREDUCE of 2000 B of layer 0 (a) of iteration 1", From: 450, To: 650},
					{Iteration: 1, Phase: phaseEndRun, Layer: -1, Waiting: "layer 0 (a) of iteration 2", From: 1120, To: 1320},
				}},
			issued: []issued{
				{op: workload.CommAllReduce, bytes: 1000, at: 250}, {op: workload.CommAllReduce, bytes: 2000, at: 450},
				{op: workload.CommAllReduce, bytes: 1000, at: 920}, {op: workload.CommAllReduce, bytes: 2000, at: 1120},
			},
			// Per layer: each all-reduce takes 200 cycles; the wait for
			// AR_a is a's update's, the one for AR_b (done) b's, and the
			// last one the end of the run's.
			layers: []LayerPass{
				pass(0, "a", PassForward, 100, 0, nil), pass(1, "b", PassForward, 100, 0, nil),
				pass(1, "b", PassWtGrad, 50, 0, &issued{op: workload.CommAllReduce, bytes: 1000, finished: 200}),
				pass(1, "b", PassInGrad, 100, 0, nil),
				pass(0, "a", PassWtGrad, 100, 0, &issued{op: workload.CommAllReduce, bytes: 2000, finished: 200}),
				pass(0, "a", PassUpdate, 10, 200, nil), pass(0, "a", PassForward, 100, 0, nil),
				pass(1, "b", PassUpdate, 10, 0, nil), pass(1, "b", PassForward, 100, 0, nil),
				pass(1, "b", PassWtGrad, 50, 0, &issued{op: workload.CommAllReduce, bytes: 1000, finished: 200}),
				pass(1, "b", PassInGrad, 100, 0, nil),
				pass(0, "a", PassWtGrad, 100, 0, &issued{op: workload.CommAllReduce, bytes: 2000, finished: 200}),
				pass(-1, "", PassEndOfRun, 0, 200, nil),
			},
		},
		{
			// (3) DLRM, last bottom-MLP layer 1: emb (lookup 10, update 20
			// as its weight gradient; 64 B all-to-all both ways, 100
			// cycles), bot (fwd 30, weight gradient 30, no input gradient,
			// AR 100 B), top (40 each pass, AR 200 B); all-reduces 50.
			// Forward: emb [0,10], all-to-all issued at 10 (done 110); bot
			// [10,40] runs under it; top must wait: [40,110] = 70 = 100 −
			// 30 (latency − overlapped bottom MLP); top [110,150].
			// Back-prop: top's weight gradient [150,190], AR_top at 190
			// (done 240); its input gradient [190,230], after which the
			// embeddings' gradients go out: all-to-all at 230 (done 330);
			// bot's weight gradient [230,260], AR_bot at 260 (done 310);
			// the embedding update waits [260,330] = 70, runs [330,350].
			// All-reduces are done by then. Compute 10+30+40+40+40+30+20 =
			// 210, exposed 140, 350.
			name: "DLRM: the forward all-to-all overlaps the bottom MLP",
			w:    dlrmWorkload(), cfg: fullNPU(true, 1), ar: 50, a2a: 100,
			want: want{compute: 210, exposed: 140, total: 350, perIter: [][3]int64{{210, 140, 350}}, backStart: []rtl.Cycle{150},
				stalls: []Stall{
					{Iteration: 0, Phase: phaseForward, Layer: 2, LayerName: "top", Waiting: "forward ALLTOALL of 64 B of layer 0 (emb)", From: 40, To: 110},
					{Iteration: 0, Phase: phaseBack, Layer: 0, LayerName: "emb", Waiting: "input-gradient ALLTOALL of 64 B of layer 0 (emb)", From: 260, To: 330},
				}},
			issued: []issued{
				{op: workload.CommAllToAll, bytes: 64, at: 10}, {op: workload.CommAllReduce, bytes: 200, at: 190},
				{op: workload.CommAllToAll, bytes: 64, at: 230}, {op: workload.CommAllReduce, bytes: 100, at: 260},
			},
			// Per layer: top's forward waits 70, the embedding update
			// (emb's weight gradient) 70; the back-prop all-to-all is emb's
			// input gradient's, issued during top's; bot's input gradient
			// takes no time.
			layers: []LayerPass{
				pass(0, "emb", PassForward, 10, 0, &issued{op: workload.CommAllToAll, bytes: 64, finished: 100}),
				pass(1, "bot", PassForward, 30, 0, nil), pass(2, "top", PassForward, 40, 70, nil),
				pass(2, "top", PassWtGrad, 40, 0, &issued{op: workload.CommAllReduce, bytes: 200, finished: 50}),
				pass(2, "top", PassInGrad, 40, 0, nil),
				pass(0, "emb", PassInGrad, 0, 0, &issued{op: workload.CommAllToAll, bytes: 64, finished: 100}),
				pass(1, "bot", PassWtGrad, 30, 0, &issued{op: workload.CommAllReduce, bytes: 100, finished: 50}),
				pass(1, "bot", PassInGrad, 0, 0, nil), pass(0, "emb", PassWtGrad, 20, 70, nil),
				pass(-1, "", PassEndOfRun, 0, 0, nil),
			},
		},
		{
			// DLRM without overlap: every all-to-all is waited for as soon
			// as it is issued, and the all-reduces go as one at the end.
			// emb [0,10], all-to-all waited [10,110]; bot [110,140]; top
			// [140,180]; top's gradients [180,260], all-to-all waited
			// [260,360]; bot's weight gradient [360,390]; embedding update
			// [390,410]; fused AR of 300 B [410,460]. Compute 210, exposed
			// 100+100+50 = 250, 460.
			name: "DLRM without overlap",
			w:    dlrmWorkload(), cfg: fullNPU(false, 1), ar: 50, a2a: 100,
			want: want{compute: 210, exposed: 250, total: 460, perIter: [][3]int64{{210, 250, 460}}, backStart: []rtl.Cycle{180},
				stalls: []Stall{
					{Iteration: 0, Phase: phaseForward, Layer: 0, LayerName: "emb", After: true, Waiting: "forward ALLTOALL", From: 10, To: 110},
					{Iteration: 0, Phase: phaseBack, Layer: 2, LayerName: "top", After: true, Waiting: "input-gradient ALLTOALL", From: 260, To: 360},
					{Iteration: 0, Phase: phaseEndBack, Layer: -1, Waiting: "fused weight-gradient ALLREDUCE of 300 B (2 layers)", From: 410, To: 460},
				}},
			issued: []issued{
				{op: workload.CommAllToAll, bytes: 64, at: 10}, {op: workload.CommAllToAll, bytes: 64, at: 260},
				{op: workload.CommAllReduce, bytes: 300, at: 410},
			},
			// Per layer: each all-to-all is waited for right after the
			// pass that issued it (emb's forward, top's input gradient);
			// the fused all-reduce is the end of back-prop's.
			layers: []LayerPass{
				pass(0, "emb", PassForward, 10, 100, &issued{op: workload.CommAllToAll, bytes: 64, finished: 100}),
				pass(1, "bot", PassForward, 30, 0, nil), pass(2, "top", PassForward, 40, 0, nil),
				pass(2, "top", PassWtGrad, 40, 0, nil), pass(2, "top", PassInGrad, 40, 100, nil),
				pass(0, "emb", PassInGrad, 0, 0, &issued{op: workload.CommAllToAll, bytes: 64, finished: 100}),
				pass(1, "bot", PassWtGrad, 30, 0, nil), pass(1, "bot", PassInGrad, 0, 0, nil), pass(0, "emb", PassWtGrad, 20, 0, nil),
				pass(-1, "", PassEndOfBackProp, 0, 50, &issued{op: workload.CommAllReduce, bytes: 300, finished: 50}),
				pass(-1, "", PassEndOfRun, 0, 0, nil),
			},
		},
		{
			// LIFO, one collective at a time (300 cycles), three layers a,
			// b, c (fwd 100, weight and input gradient 50; a's input
			// gradient not run), each all-reducing.
			// Iteration 1 [0,550]: fwd [0,300]; c: wt [300,350], AR_c
			// starts at 350 (done 650); in [350,400]; b: wt [400,450], AR_b
			// queued; in [450,500]; a: wt [500,550], AR_a queued. At 650
			// LIFO picks AR_a [650,950], then AR_b [950,1250].
			// Iteration 2 from 550: a waits [550,950] = 400; fwd a
			// [950,1050]; b waits [1050,1250] = 200; fwd b [1250,1350]; fwd
			// c [1350,1450] (AR_c done at 650). c: wt [1450,1500], AR_c'
			// [1500,1800]; in [1500,1550]; b: wt [1550,1600], AR_b' queued;
			// in [1600,1650]; a: wt [1650,1700], AR_a' queued; at 1800 AR_a'
			// [1800,2100], AR_b' [2100,2400]. End of run waits [1700,2400]
			// = 700. Iteration 2: compute 550, exposed 1300, 1850.
			name: "serialised LIFO: the first layers' all-reduces first",
			w:    threeLayers(), cfg: fullNPU(true, 2), ar: 300, serial: true, lifo: true,
			want: want{compute: 1100, exposed: 1300, total: 2400, perIter: [][3]int64{{550, 0, 550}, {550, 1300, 1850}}, backStart: []rtl.Cycle{300, 1450},
				stalls: []Stall{
					{Iteration: 1, Phase: phaseForward, Layer: 0, LayerName: "a", Waiting: "layer 0 (a) of iteration 1", From: 550, To: 950},
					{Iteration: 1, Phase: phaseForward, Layer: 1, LayerName: "b", Waiting: "layer 1 (b) of iteration 1", From: 1050, To: 1250},
					{Iteration: 1, Phase: phaseEndRun, Layer: -1, Waiting: "of iteration 2", From: 1700, To: 2400},
				}},
		},
		{
			// FIFO, otherwise the same: at 650 AR_b runs first [650,950],
			// then AR_a [950,1250]. Iteration 2: a waits [550,1250] = 700;
			// fwd a, b, c [1250,1550] (AR_b done at 950); c: wt
			// [1550,1600], AR_c' [1600,1900]; in [1600,1650]; b: wt
			// [1650,1700], AR_b' queued; in [1700,1750]; a: wt [1750,1800],
			// AR_a' queued; at 1900 AR_b' [1900,2200], AR_a' [2200,2500].
			// End of run waits [1800,2500] = 700. Iteration 2: compute 550,
			// exposed 1400, 1950: 100 more than LIFO.
			name: "serialised FIFO: the forward pass waits longer",
			w:    threeLayers(), cfg: fullNPU(true, 2), ar: 300, serial: true,
			want: want{compute: 1100, exposed: 1400, total: 2500, perIter: [][3]int64{{550, 0, 550}, {550, 1400, 1950}}, backStart: []rtl.Cycle{300, 1550},
				stalls: []Stall{
					{Iteration: 1, Phase: phaseForward, Layer: 0, LayerName: "a", Waiting: "layer 0 (a) of iteration 1", From: 550, To: 1250},
					{Iteration: 1, Phase: phaseEndRun, Layer: -1, Waiting: "of iteration 2", From: 1800, To: 2500},
				}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := rtl.NewKernel()
			c := newFake(k, tt.ar, tt.a2a)
			c.serial, c.lifo = tt.serial, tt.lifo
			m, err := Run(k, tt.w, tt.cfg, c)
			require.NoError(t, err)
			checkInvariants(t, m)
			assert.Equal(t, tt.want.compute, m.ComputeCycles, "compute")
			assert.Equal(t, tt.want.exposed, m.ExposedCommCycles, "exposed")
			assert.Equal(t, tt.want.total, m.TotalCycles, "total")
			assert.Equal(t, rtl.Cycle(tt.want.total), k.Now())
			require.Len(t, m.Iterations, len(tt.want.perIter))
			for i, p := range tt.want.perIter {
				it := m.Iterations[i]
				assert.Equal(t, p, [3]int64{it.ComputeCycles, it.ExposedCommCycles, it.IterationCycles}, "iteration %d", i+1)
				assert.Equal(t, tt.want.backStart[i], it.BackStart, "iteration %d: back-prop's start", i+1)
			}
			var stalls []Stall
			for _, it := range m.Iterations {
				stalls = append(stalls, it.Stalls...)
			}
			require.Len(t, stalls, len(tt.want.stalls), "%+v", stalls)
			for i, s := range tt.want.stalls {
				got := stalls[i]
				assert.Contains(t, got.Waiting, s.Waiting)
				got.Waiting = s.Waiting
				assert.Equal(t, s, got)
			}
			if tt.issued != nil {
				require.Len(t, c.issued, len(tt.issued))
				for i, w := range tt.issued {
					g := c.issued[i]
					assert.Equal(t, [3]int64{int64(w.op), w.bytes, int64(w.at)}, [3]int64{int64(g.op), g.bytes, int64(g.at)}, "collective %d", i)
				}
			}
			var n int
			var b int64
			for _, g := range c.issued {
				n++
				b += g.bytes
				assert.GreaterOrEqual(t, g.finished, g.at, "every collective completed")
			}
			assert.Equal(t, n, m.Collectives)
			assert.Equal(t, b, m.CollectiveBytes)
			if tt.layers != nil {
				var layers []LayerPass
				for _, it := range m.Iterations {
					layers = append(layers, it.Layers...)
				}
				assert.Equal(t, tt.layers, layers)
			}
		})
	}
}

// pass is a LayerPass that computes for compute cycles, waits exposed
// cycles and issues c (nil: nothing; its finished field is its latency).
func pass(l int, name string, p Pass, compute, exposed int64, c *issued) LayerPass {
	lp := LayerPass{Layer: l, LayerName: name, Pass: p, ComputeCycles: compute, ExposedCommCycles: exposed}
	if c != nil {
		lp.Collective, lp.CollectiveBytes, lp.CollectiveCycles = c.op, c.bytes, int64(c.finished)
	}
	return lp
}

func dlrmWorkload() *workload.Workload {
	return &workload.Workload{
		Name: "dlrm-hand", Parallelism: workload.ParallelismHybridDLRM, ParallelismArgs: []string{"1"}, CycleHz: oneToOne,
		Layers: []workload.Layer{
			{Name: "emb", Fwd: work(10), WtGrad: work(20), FwdComm: a2a(64), InGradComm: a2a(64)},
			{Name: "bot", Fwd: work(30), WtGrad: work(30), WtGradComm: ar(100)},
			{Name: "top", Fwd: work(40), InGrad: work(40), WtGrad: work(40), WtGradComm: ar(200)},
		},
	}
}

func threeLayers() *workload.Workload {
	l := func(name string, b int64) workload.Layer {
		return workload.Layer{Name: name, Fwd: work(100), InGrad: work(50), WtGrad: work(50), WtGradComm: ar(b)}
	}
	return dataWorkload(l("a", 100), l("b", 200), l("c", 300))
}

// (6) A Comm that never completes: Run returns an error naming what the
// loop waits for, instead of hanging.
func TestCommThatNeverCompletes(t *testing.T) {
	tests := []struct {
		name string
		w    *workload.Workload
		cfg  Config
		want []string
	}{
		{"all-reduce at the end of the run", twoLayers(), fullNPU(true, 1),
			[]string{"ran out of events at cycle 450", "iteration 1, end of run", "waited since cycle 450", "weight-gradient ALLREDUCE of 1000 B of layer 1 (b) of iteration 1, issued at cycle 250", "never reported it done"}},
		{"all-reduce before the next forward pass", twoLayers(), fullNPU(true, 2),
			[]string{"iteration 2, forward, before layer 1 (b)", "issued at cycle 250"}},
		{"fused all-reduce", twoLayers(), fullNPU(false, 1),
			[]string{"iteration 1, end of back-prop", "fused weight-gradient ALLREDUCE of 1000 B (1 layer)"}},
		{"DLRM forward all-to-all", dlrmWorkload(), fullNPU(true, 1),
			[]string{"iteration 1, forward, before layer 2 (top)", "waited since cycle 40", "forward ALLTOALL of 64 B of layer 0 (emb)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := rtl.NewKernel()
			c := newFake(k, 1, 1)
			c.never = true
			_, err := Run(k, tt.w, tt.cfg, c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "train: workload ")
			for _, s := range tt.want {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestCommMisbehaves(t *testing.T) {
	k := rtl.NewKernel()
	c := newFake(k, 10, 10)
	c.fail = errors.New("no route")
	_, err := Run(k, twoLayers(), fullNPU(true, 1), c)
	require.Error(t, err)
	assert.ErrorIs(t, err, c.fail)
	assert.Contains(t, err.Error(), "iteration 1, layer 1 (b): issue the weight-gradient ALLREDUCE of 1000 B")

	k = rtl.NewKernel()
	c = newFake(k, 10, 10)
	c.twice = true
	_, err = Run(k, twoLayers(), fullNPU(true, 1), c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "done twice")
}

// (7) ASTRA-sim times scale by the rule of docs/astrasim-workloads.md:
// cycles = ⌈t × 249/200 × ((1−m)·80/S + m·900/B)⌉, checked against the
// page's worked example (conv1 forward, 13,003 ns).
// TestShapesDecideWhatATimeWaitsOn derives, by hand, which resource four
// of ASTRA-sim's ResNet-50 passes wait on from their layers' shapes at
// batch 1 (docs/astrasim-workloads.md, "Converting the times"), and their
// cycles on BaselineCommOpt's and BaselineCompOpt's compute (74 SMs and
// 450 GB/s; 78 and 772). With tc = F/120 TFLOPS and tm = D/900 GB/s,
// tm/tc = 400·D/(3·F); a pass takes t × 249/200 × max(tc/tr × 80/S,
// tm/tr × 900/B) cycles, tr = max(tc, tm).
func TestShapesDecideWhatATimeWaitsOn(t *testing.T) {
	w, err := workload.Paper("resnet50")
	require.NoError(t, err)
	require.Equal(t, int64(1), w.Batch)
	commopt := npu.Compute{SMs: 74, MemGBps: big.NewRat(450, 1)}
	compopt := npu.Compute{SMs: 78, MemGBps: big.NewRat(772, 1)}
	tests := []struct {
		layer   string
		compute npu.Compute
		want    int64
	}{
		// conv1 forward, 13,003 ns: F = 2·112·112·64·(7·7·3) =
		// 236,027,904; D = 2·(224·224·3 + 112·112·64 + 9,408 + 128) =
		// 1,925,760 (input, output, kernel, batch norm). tm/tc = 400 ·
		// 1,925,760 / (3 · 236,027,904) = 1.088: memory-bound. CommOpt:
		// max(0.919 · 80/74, 1 · 2) = 2; 13,003 × 1.245 × 2 = 32,377.47.
		{"conv1", commopt, 32_378},
		// layer_64_1_conv2 (layer1.0.conv2, 3×3, 64 → 64 on 56×56)
		// forward, 10,944 ns: F = 2·56·56·64·64·9 = 231,211,008; D =
		// 2·(56·56·64 + 56·56·64 + 36,864 + 128) = 876,800. tm/tc =
		// 350,720,000/693,633,024 = 0.506: SM-bound. CommOpt: max(80/74,
		// 0.506 · 2 = 1.011) = 80/74; 10,944 × 249/200 × 80/74 =
		// 218,004,480/14,800 = 14,730.03.
		{"layer_64_1_conv2", commopt, 14_731},
		// The same on CompOpt: max(80/78, 0.506 · 900/772 = 0.589) =
		// 80/78; 218,004,480/15,600 = 13,974.65.
		{"layer_64_1_conv2", compopt, 13_975},
		// layer_128_1_conv2 (layer2.0.conv2, 3×3, 128 → 128, stride 2,
		// 56×56 → 28×28) forward, 6,480 ns: F = 2·28·28·128·128·9 =
		// 231,211,008; D = 2·(56·56·128 + 28·28·128 + 147,456 + 256) =
		// 1,298,944. tm/tc = 519,577,600/693,633,024 = 0.749: SM-bound on
		// the whole NPU, but on CommOpt memory binds: max(80/74 = 1.081,
		// 0.749 · 2 = 1.498) = 1,039,155,200/693,633,024; 6,480 × 249/200
		// × that = 9,475,695/784 = 12,086.35.
		{"layer_128_1_conv2", commopt, 12_087},
		// fc1000 forward, 16,416 ns: F = 2·2048·1000 = 4,096,000; D =
		// 2·(2048 + 1000 + 2,048,000 + 1000) = 4,104,096; tm/tc = 133.6:
		// memory-bound. CommOpt: 16,416 × 1.245 × 2 = 40,875.84.
		{"fc1000", commopt, 40_876},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s on %d SMs", tt.layer, tt.compute.SMs), func(t *testing.T) {
			i := slices.IndexFunc(w.Layers, func(l workload.Layer) bool { return l.Name == tt.layer })
			require.GreaterOrEqual(t, i, 0)
			tm, err := newTimer(w, Config{Compute: tt.compute})
			require.NoError(t, err)
			got, err := tm.cycles(w.Layers[i].Fwd)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAstraSimScaling(t *testing.T) {
	const file = "DATA\n1\nconv1\t-1\t13003\tNONE\t0\t12864\tNONE\t0\t0\tNONE\t0\t0\n"
	half := big.NewRat(1, 2)
	zero := new(big.Rat)
	tests := []struct {
		name string
		sms  int
		gbps int64
		m    *big.Rat
		want int64
	}{
		// No shape: the ridge, max(80/S, 900/B).
		{"ideal, no shape: factor 1", 80, 900, nil, 16_189}, // 16,188.735
		{"ace, no shape: 900/772", 80, 772, nil, 18_873},
		{"compopt, no shape: max(80/78, 900/772)", 78, 772, nil, 18_873},
		{"commopt, no shape: max(80/74, 900/450)", 74, 450, nil, 32_378}, // 32,377.47
		{"commopt, m=1: 900/450", 74, 450, big.NewRat(1, 1), 32_378},
		{"compopt, m=0: 80/78", 78, 772, zero, 16_604},
		{"commopt, m=0: 80/74", 74, 450, zero, 17_502},
		// m = 1/2: 249/200 × (40/74 + 1) = 28386/14800; 13003 × 28386 =
		// 369,103,158; / 14800 = 24,939.38 → 24,940.
		{"commopt, m=1/2", 74, 450, half, 24_940},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := workload.ParseAstraSim(strings.NewReader(file), "one.txt")
			require.NoError(t, err)
			k := rtl.NewKernel()
			cfg := Config{Compute: npu.Compute{SMs: tt.sms, MemGBps: big.NewRat(tt.gbps, 1)}, Overlap: true, Iterations: 1, MemBoundShare: tt.m}
			m, err := Run(k, w, cfg, newFake(k, 1, 1))
			require.NoError(t, err)
			// Layer 0's input gradient (12,864 ns) is never run.
			assert.Equal(t, Breakdown{Forward: tt.want}, m.Compute)
		})
	}

	// A whole two-layer file on BaselineCommOpt (74 SMs, 450 GB/s), m = 1:
	// factor 249/200 × 900/450 = 249/100, each pass rounded up alone.
	//   conv1: fwd 13003 → 32,377.47 → 32,378; weight gradient 32291 →
	//   80,404.59 → 80,405; update 3229 → 8,040.21 → 8,041; its input
	//   gradient is never run.
	//   fc: fwd 1000 → 2,490; input gradient 2000 → 4,980; weight gradient
	//   3000 → 7,470; update 300 → 747.
	// Iteration 1: 32,378 + 2,490 + 80,405 + 7,470 + 4,980 = 127,723.
	// Iteration 2 adds the updates, 8,041 + 747 = 8,788: 136,511.
	const two = "DATA\r\n2\r\n" +
		"conv1\t-1\t13003\tNONE\t0\t12864\tNONE\t0\t32291\tALLREDUCE\t37632\t3229\r\n" +
		"fc\t-1\t1000\tNONE\t0\t2000\tNONE\t0\t3000\tALLREDUCE\t100\t300"
	w, err := workload.ParseAstraSim(strings.NewReader(two), "two.txt")
	require.NoError(t, err)
	commopt, err := systems.Lookup("baseline-commopt")
	require.NoError(t, err)
	k := rtl.NewKernel()
	m, err := Run(k, w, Config{Compute: commopt.Compute(), Overlap: true}, newFake(k, 1, 1))
	require.NoError(t, err)
	checkInvariants(t, m)
	require.Len(t, m.Iterations, DefaultIterations)
	assert.Equal(t, int64(127_723), m.Iterations[0].ComputeCycles)
	assert.Equal(t, int64(136_511), m.Iterations[1].ComputeCycles)
	assert.Equal(t, Breakdown{Forward: 2 * 34_868, InGrad: 2 * 4_980, WtGrad: 2 * 87_875, Update: 8_788}, m.Compute)
	assert.Equal(t, map[workload.CommType]CommStats{workload.CommAllReduce: {Count: 4, Bytes: 2 * 37_732}}, m.ByType)
}

// The real ResNet-50 on BaselineCommOpt's compute: the loop's compute is
// the sum of the roofline times of every pass it runs, computed here from
// the layers: forward, weight gradient and (layers 1..53) input gradient
// in both iterations, and in the second the update of each layer's
// parameters (P = all-reduce bytes / 2: 2P FLOPs, 6P bytes).
func TestBuiltinResNet50Compute(t *testing.T) {
	w, err := workload.Builtin("resnet50")
	require.NoError(t, err)
	sys, err := systems.Lookup("baseline-commopt")
	require.NoError(t, err)
	c := sys.Compute()

	var want Breakdown
	for it := 0; it < 2; it++ {
		for l, layer := range w.Layers {
			want.Forward += c.KernelCycles(layer.Fwd.FLOPs, layer.Fwd.Bytes)
			want.WtGrad += c.KernelCycles(layer.WtGrad.FLOPs, layer.WtGrad.Bytes)
			if l > 0 {
				want.InGrad += c.KernelCycles(layer.InGrad.FLOPs, layer.InGrad.Bytes)
			}
			if it > 0 {
				p := layer.WtGradComm.Bytes / 2
				want.Update += c.KernelCycles(2*p, 6*p)
			}
		}
	}

	k := rtl.NewKernel()
	comm := newFake(k, 10_000, 0)
	comm.serial, comm.lifo = true, true
	m, err := Run(k, w, Config{Compute: c, Overlap: true}, comm)
	require.NoError(t, err)
	checkInvariants(t, m)
	assert.Equal(t, want, m.Compute)
	assert.Equal(t, want.Total(), m.ComputeCycles)
	assert.Positive(t, want.Update)
	// 54 all-reduces per iteration, 51,114,064 B (docs/workloads.md).
	assert.Equal(t, map[workload.CommType]CommStats{workload.CommAllReduce: {Count: 108, Bytes: 2 * 51_114_064}}, m.ByType)
}

// The built-in DLRM runs: one all-to-all each way per iteration.
func TestBuiltinDLRMRuns(t *testing.T) {
	w, err := workload.Builtin("dlrm")
	require.NoError(t, err)
	for _, overlap := range []bool{true, false} {
		k := rtl.NewKernel()
		m, err := Run(k, w, Config{Compute: npu.FullNPU(), Overlap: overlap}, newFake(k, 5_000, 20_000))
		require.NoError(t, err)
		checkInvariants(t, m)
		assert.Equal(t, CommStats{Count: 4, Bytes: 4 * 3_407_872}, m.ByType[workload.CommAllToAll], "overlap %v", overlap)
		ars := CommStats{Count: 16, Bytes: 2 * 4_737_794}
		if !overlap {
			ars.Count = 2
		}
		assert.Equal(t, ars, m.ByType[workload.CommAllReduce], "overlap %v", overlap)
		assert.Positive(t, m.ExposedCommCycles)
	}
}

// The same inputs give the same run.
func TestDeterministic(t *testing.T) {
	w, err := workload.Builtin("gnmt")
	require.NoError(t, err)
	run := func() *Metrics {
		k := rtl.NewKernel()
		c := newFake(k, 50_000, 0)
		c.serial, c.lifo = true, true
		m, err := Run(k, w, Config{Compute: npu.FullNPU(), Overlap: true}, c)
		require.NoError(t, err)
		return m
	}
	assert.Equal(t, run(), run())
}

// The loop starts at the kernel's current cycle.
func TestStartsAtNow(t *testing.T) {
	k := rtl.NewKernel()
	k.Schedule(1000, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {}), 0, 0)
	k.Run()
	m, err := Run(k, twoLayers(), fullNPU(true, 1), newFake(k, 300, 0))
	require.NoError(t, err)
	checkInvariants(t, m)
	assert.Equal(t, rtl.Cycle(1000), m.Start)
	assert.Equal(t, rtl.Cycle(1550), m.End)
	assert.Equal(t, int64(100), m.ExposedCommCycles)
}

func TestConfigErrors(t *testing.T) {
	hybrid := func() *workload.Workload {
		w := twoLayers()
		w.Parallelism = workload.ParallelismHybridDataModel
		return w
	}
	tests := []struct {
		name string
		w    *workload.Workload
		cfg  Config
		want string
	}{
		{"negative iterations", twoLayers(), Config{Compute: npu.FullNPU(), Iterations: -1}, "iterations -1"},
		{"share above 1", twoLayers(), Config{Compute: npu.FullNPU(), MemBoundShare: big.NewRat(3, 2)}, "memory-bound share 3/2: must be in [0, 1]"},
		{"share below 0", twoLayers(), Config{Compute: npu.FullNPU(), MemBoundShare: big.NewRat(-1, 2)}, "must be in [0, 1]"},
		{"no compute", twoLayers(), Config{}, "compute resources: compute SMs 0"},
		{"hybrid without a machine", hybrid(), Config{Compute: npu.FullNPU()}, "parallelism HYBRID_DATA_MODEL: its groups are dimensions of the machine, and the loop was given none"},
		{"invalid workload", &workload.Workload{Name: "empty", Parallelism: workload.ParallelismData}, Config{Compute: npu.FullNPU()}, "no layers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := rtl.NewKernel()
			_, err := Run(k, tt.w, tt.cfg, newFake(k, 1, 1))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Zero(t, k.Pending(), "nothing scheduled")
		})
	}
	_, err := Run(nil, twoLayers(), fullNPU(true, 1), nil)
	require.Error(t, err)
}

// Compute speed f divides every kernel's exact time by f before the one
// rounding up; f = 1 leaves it as it was. Worked by hand on the whole NPU
// (80 SMs at 100000/83 FLOPs per cycle each: 8000000/83 per cycle; 900
// GB/s = 60000/83 B per cycle):
//   - 8 000 000 FLOPs take 83 cycles; at f = 2, 41.5 → 42; at 3/2, 55.33 → 56;
//   - 600 000 bytes take 830 cycles; at f = 4, 207.5 → 208;
//   - 1000 ASTRA-sim cycles at the NPU's clock, all memory-bound, take
//     1000 cycles; at f = 3, 333.33 → 334.
func TestComputeSpeedShortensEveryKernel(t *testing.T) {
	full := npu.Compute{SMs: npu.SMs, MemGBps: big.NewRat(npu.MemoryGBps, 1)}
	w := &workload.Workload{CycleHz: npu.ClockHz}
	for _, c := range []struct {
		speed *big.Rat
		work  workload.Work
		want  int64
	}{
		{nil, workload.Work{FLOPs: 8_000_000}, 83},
		{big.NewRat(1, 1), workload.Work{FLOPs: 8_000_000}, 83},
		{big.NewRat(2, 1), workload.Work{FLOPs: 8_000_000}, 42},
		{big.NewRat(3, 2), workload.Work{FLOPs: 8_000_000}, 56},
		{big.NewRat(4, 1), workload.Work{Bytes: 600_000}, 208},
		{big.NewRat(4, 1), workload.Work{FLOPs: 8_000_000, Bytes: 600_000}, 208}, // memory binds
		{nil, workload.Work{Cycles: 1000}, 1000},
		{big.NewRat(3, 1), workload.Work{Cycles: 1000}, 334},
	} {
		tm, err := newTimer(w, Config{Compute: full, ComputeSpeed: c.speed})
		require.NoError(t, err)
		got, err := tm.cycles(c.work)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "speed %v work %+v", c.speed, c.work)
		// The kernel the shared memory policy runs takes the same exact
		// time: its segments' SM and memory times summed (one after the
		// other), or the larger of the two (one segment).
		k := tm.kernel(c.work)
		total := new(big.Rat)
		for _, s := range k {
			seg := s.SM
			if s.Mem.Cmp(seg) > 0 {
				seg = s.Mem
			}
			total.Add(total, seg)
		}
		require.Equal(t, c.want, rtl.CeilRat(total), "kernel, speed %v work %+v", c.speed, c.work)
	}
	_, err := newTimer(w, Config{Compute: full, ComputeSpeed: big.NewRat(0, 1)})
	require.ErrorContains(t, err, "must be positive")
}

// Progress is told the cycles since the loop started, about every
// ProgressCycles (here the network's stand-in has an event every 1000
// cycles), of an estimate: the compute alone until the first iteration
// ends (or just beyond now, once now has passed it), then the iterations
// so far at their mean; at the end, the run's length twice. One layer of
// 100000 cycles forward and 100000 weight-gradient, its all-reduce of
// 500000 waited for (no overlap): each iteration is 700000 cycles.
func TestProgressInSimulatedTime(t *testing.T) {
	const iterLen, computePerIter = 700_000, 200_000
	tests := []struct {
		name       string
		iterations int
	}{
		{"one iteration", 1},
		{"three iterations", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := rtl.NewKernel()
			k.Schedule(1000, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {}), 0, 0)
			k.Run() // the loop starts at cycle 1000
			var traffic rtl.HandlerFunc
			traffic = func(now rtl.Cycle, _ int32, _ int64) { k.Schedule(now+1000, traffic, 0, 0) }
			k.Schedule(k.Now()+1000, traffic, 0, 0)
			w := dataWorkload(workload.Layer{Name: "a", Fwd: work(100_000), WtGrad: work(100_000), WtGradComm: ar(1000)})
			cfg := fullNPU(false, tc.iterations)
			type report struct{ done, total int64 }
			var got []report
			cfg.Progress = func(done, total int64) { got = append(got, report{done, total}) }
			m, err := Run(k, w, cfg, newFake(k, 500_000, 0))
			require.NoError(t, err)
			run := int64(iterLen * tc.iterations)
			require.Equal(t, run, m.TotalCycles)
			require.Equal(t, report{0, computePerIter * int64(tc.iterations)}, got[0])
			require.Equal(t, report{run, run}, got[len(got)-1])
			require.GreaterOrEqual(t, len(got), int(run/(ProgressCycles+1000))) // at the first event past each mark
			for i, r := range got[1 : len(got)-1] {
				require.Greater(t, r.done, got[i].done)
				want := max(computePerIter*int64(tc.iterations), r.done+1)
				if r.done > iterLen { // the first iteration has ended
					want = max(run, r.done+1)
				}
				require.Equal(t, want, r.total, "done %d", r.done)
			}
		})
	}
}

// The loop writes each iteration's program when the one before ends, and
// with DropLayers drops each iteration's per-layer records once it has
// ended: neither changes a cycle. Three iterations of GNMT, with and
// without overlap: the metrics are those of a run that keeps everything,
// but for Layers, and the program held is one iteration's.
func TestDropLayersChangesNothingElse(t *testing.T) {
	w, err := workload.Builtin("gnmt")
	require.NoError(t, err)
	for _, overlap := range []bool{true, false} {
		t.Run(fmt.Sprintf("overlap %v", overlap), func(t *testing.T) {
			run := func(drop bool) (*Metrics, int) {
				k := rtl.NewKernel()
				c := newFake(k, 50_000, 0)
				c.serial, c.lifo = true, true
				cfg := Config{Compute: npu.FullNPU(), Overlap: overlap, Iterations: 3, DropLayers: drop}
				lp, err := newLoop(k, w, cfg, c)
				require.NoError(t, err)
				held := len(lp.ops)
				m, err := Run(k, w, cfg, c)
				require.NoError(t, err)
				return m, held
			}
			kept, held := run(false)
			dropped, _ := run(true)
			for i := range kept.Iterations {
				require.NotEmpty(t, kept.Iterations[i].Layers)
				require.Nil(t, dropped.Iterations[i].Layers)
				kept.Iterations[i].Layers = nil
			}
			require.Equal(t, kept, dropped)
			k := rtl.NewKernel()
			lp, err := newLoop(k, w, Config{Compute: npu.FullNPU(), Overlap: overlap, Iterations: 1}, newFake(k, 50_000, 0))
			require.NoError(t, err)
			one := len(lp.ops)
			require.LessOrEqual(t, held, one, "the program held is the first iteration's, not the run's")
		})
	}
}

// The run's compute is checked against rtl.MaxCycle once, ahead, and the
// iterations written as the loop goes do not count it again: three
// iterations of 0.3 × MaxCycle of compute run to the end, four are
// refused before the run starts.
func TestComputeNearMaxCycleIsCheckedOnce(t *testing.T) {
	w := dataWorkload(workload.Layer{Name: "a", Fwd: work(rtl.MaxCycle * 3 / 10), InGrad: work(1), WtGrad: work(1)})
	for _, tc := range []struct {
		iterations int
		want       string
	}{
		{3, ""},
		{4, "beyond the 20000000000 cycles"},
	} {
		t.Run(fmt.Sprint(tc.iterations), func(t *testing.T) {
			k := rtl.NewKernel()
			m, err := Run(k, w, fullNPU(true, tc.iterations), newFake(k, 10, 0))
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				require.Zero(t, k.Events(), "refused before the run")
				return
			}
			require.NoError(t, err)
			require.Len(t, m.Iterations, tc.iterations)
			require.Equal(t, int64(tc.iterations)*(rtl.MaxCycle*3/10+1), m.ComputeCycles)
		})
	}
}

// Layers × iterations beyond MaxLayerIterations is refused before the run,
// naming the iterations that fit (1000 × 1000, the bound itself, builds in
// some 6 s: not run here); below it the loop is built.
func TestLayerIterationsBound(t *testing.T) {
	layers := func(n int) *workload.Workload {
		ls := make([]workload.Layer, n)
		for i := range ls {
			ls[i] = workload.Layer{Name: fmt.Sprint("l", i), Fwd: work(1), InGrad: work(1), WtGrad: work(1)}
		}
		return dataWorkload(ls...)
	}
	for _, tc := range []struct {
		layers, iterations int
		want               string
	}{
		{1000, 2, ""},
		{1001, 1000, "1001 layers × 1000 iterations is 1001000, more than 1000000"},
		{1001, 1000, "run at most 999 iterations"},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.layers, tc.iterations), func(t *testing.T) {
			k := rtl.NewKernel()
			_, err := newLoop(k, layers(tc.layers), fullNPU(true, tc.iterations), newFake(k, 10, 0))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
			require.Zero(t, k.Events())
		})
	}
}
