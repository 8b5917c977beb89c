package measure

import (
	"testing"

	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/libra"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// sm is a roofline pass of k × 83 cycles on the whole NPU, bound by its
// SMs: 80 SMs do 80 × 100000/83 FLOPs a cycle (Table V), so k × 8,000,000
// FLOPs take 83k cycles; no memory traffic.
func sm(k int64) workload.Work { return workload.Work{FLOPs: k * 8_000_000} }

// mixed is a pass of k × 8,000,000 FLOPs (83k cycles on the SMs) and k ×
// 120,000 bytes (900 GB/s is 60000/83 B a cycle, so 166k cycles): bound
// by its memory, 166k cycles alone.
func mixed(k int64) workload.Work { return workload.Work{FLOPs: k * 8_000_000, Bytes: k * 120_000} }

func ar(b int64) workload.Comm { return workload.Comm{Type: workload.CommAllReduce, Bytes: b} }

func timer(t *testing.T) train.Timer {
	tm, err := train.NewTimer(0, train.Config{Compute: npu.FullNPU()})
	require.NoError(t, err)
	return tm
}

// Backward: layers L2, L1, L0 (backward order); a layer's b is the input
// gradient of the layer above it plus its own weight gradient; layer 0
// has no input gradient to compute.
//
//	L2: b = Wt2 = 5·83 = 415,              c = 300
//	L1: b = In2 + Wt1 = 6·83 + 3·83 = 747,  c = 0 (no all-reduce)
//	L0: b = In1 + Wt0 = 4·83 + 1·83 = 415,  c = 100
//
// Kernels in the loop's order: Wt2, In2, Wt1, In1, Wt0.
func TestBackwardIsTheLoopsBackwardPass(t *testing.T) {
	w := &workload.Workload{Name: "three", Layers: []workload.Layer{
		{Name: "L0", WtGrad: sm(1), InGrad: sm(2), WtGradComm: ar(100)},
		{Name: "L1", WtGrad: sm(3), InGrad: sm(4)},
		{Name: "L2", WtGrad: sm(5), InGrad: sm(6), WtGradComm: ar(300)},
	}}
	ks, layers, err := Backward(w, timer(t))
	require.NoError(t, err)
	require.Equal(t, []libra.Layer{{Compute: 415, Grad: 300}, {Compute: 747, Grad: 0}, {Compute: 415, Grad: 100}}, layers)
	require.Len(t, ks, 5)
	for i, k := range []int64{5, 6, 3, 4, 1} {
		require.Equal(t, 83*k, ks[i].Alone(npu.FullNPU()).Num().Int64(), "kernel %d", i)
	}
}

// setup is a small measurement: 8 NPUs (2x2x2), a backward pass of four
// memory-bound kernels (166·(10+20+30+40) = 16,600 cycles alone) and a
// reference all-reduce of 16 MiB.
func setup(t *testing.T, sms []int) Setup {
	spec, err := topology.Parse("2x2x2")
	require.NoError(t, err)
	tm := timer(t)
	var ks []contend.Kernel
	for _, k := range []int64{10, 20, 30, 40} {
		ks = append(ks, tm.Kernel(mixed(k)))
	}
	return Setup{Sim: sim.Setup{Machine: spec, Library: npu.NCCLSimple()}, Compute: ks, Bytes: 16 << 20, StartupBytes: 16, SMs: sms}
}

// The measured curves go the way LIBRA's model says (§III-A, Observations
// 1 and 2, Assumption 2): more SMs for communication, slower computation
// beside it and a faster all-reduce; an all-reduce beside computation no
// faster than alone; and the model's curves are the points, scaled. (At
// a reference of 1 MiB the all-reduce alone is not: 62,050 cycles on 4
// SMs, 64,398 on 8; docs/libra.md, "Measured curves".)
func TestCurvesAreMonotone(t *testing.T) {
	c, err := Measure(setup(t, nil))
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 4, 8}, c.SMs())
	require.Equal(t, int64(16_600), int64(c.Alone))
	for i, p := range c.Points {
		require.GreaterOrEqual(t, p.Overlapped, c.Alone, "%d SMs: compute no faster beside communication", p.SMs)
		require.GreaterOrEqual(t, p.CommOverlapped, p.CommAlone, "%d SMs: Assumption 2", p.SMs)
		require.Greater(t, p.CommAlone, c.Startup)
		if i > 0 {
			q := c.Points[i-1]
			require.GreaterOrEqual(t, p.Overlapped, q.Overlapped, "%d SMs: compute slower with more", p.SMs)
			require.LessOrEqual(t, p.CommAlone, q.CommAlone, "%d SMs: communication alone not slower with more", p.SMs)
			require.LessOrEqual(t, p.CommOverlapped, q.CommOverlapped, "%d SMs: communication beside compute not slower with more", p.SMs)
		}
	}
	m := c.Model()
	p := c.Points[1]
	g, err := m.G.Time(1000, 2)
	require.NoError(t, err)
	require.InDelta(t, 1000*float64(p.Overlapped)/16_600, g, 1e-9)
	pt, err := m.P.Time(8<<20, 2) // half the reference size: half its transmission
	require.NoError(t, err)
	require.InDelta(t, float64(p.CommOverlapped-c.Startup)/2, pt, 1e-9)
	qt, err := m.Q.Time(16<<20, 2)
	require.NoError(t, err)
	require.InDelta(t, float64(p.CommAlone-c.Startup), qt, 1e-9)
	_, err = m.G.Time(1000, 3)
	require.ErrorContains(t, err, "no curve measured at 3 SMs (measured: [1 2 4 8])")
}

func TestMeasureRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Setup)
		want string
	}{
		{"no compute", func(s *Setup) { s.Compute = nil }, "no computation"},
		{"no bytes", func(s *Setup) { s.Bytes = 0 }, "both must be positive"},
		{"zero SMs", func(s *Setup) { s.SMs = []int{0, 2} }, "ascending, each once, in 1..79"},
		{"80 SMs", func(s *Setup) { s.SMs = []int{2, 80} }, "in 1..79"},
		{"twice", func(s *Setup) { s.SMs = []int{2, 2} }, "each once"},
		{"descending", func(s *Setup) { s.SMs = []int{4, 2} }, "ascending"},
		{"no machine", func(s *Setup) { s.Sim.Machine = nil }, "no machine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := setup(t, nil)
			tc.edit(&s)
			_, err := Measure(s)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
