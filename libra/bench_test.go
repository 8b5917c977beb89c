package libra

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// paperThreads is R of LIBRA's §V-A: powers of 2 from 128 to 4096 (J = 6).
var paperThreads = []int{128, 256, 512, 1024, 2048, 4096}

// benchModel is a model of Eq (5)–(6) for timing the programmes only; its
// values do not matter to the time, which has no shortcut that depends on
// them. Time unit ns, ring over 8 workers with a 1 µs hop; ρ(4096) = 1/2;
// p at 1 to 6 B/ns, q at 1.25 to 6.25 B/ns (γ3 = 0.05, γ4 = 0.6).
func benchModel(b testing.TB) *Model {
	ring, err := NewRing(8, 1000)
	require.NoError(b, err)
	return &Model{
		G:       Slowdown{Alpha1: 1, Alpha2: 1.0 / 8192},
		P:       Diminishing{Gamma1: 6, Gamma2: 5, Gamma3: 0.05, Gamma4: Gamma4, Alg: ring},
		Q:       Diminishing{Gamma1: 6.25, Gamma2: 5, Gamma3: 0.05, Gamma4: Gamma4, Alg: ring},
		Startup: ring.Startup(),
	}
}

// resnet50 is ResNet-50's 54 layers in backward order from the ASTRA-sim
// workload file: b = input-gradient + weight-gradient compute (ns), c = the
// weight-gradient all-reduce's bytes.
func resnet50(b testing.TB) []Layer {
	w, err := workload.LoadAstraSim(filepath.Join("..", "testdata", "astrasim", "Resnet50_DataParallel.txt"))
	require.NoError(b, err)
	require.Len(b, w.Layers, 54)
	var out []Layer
	for _, l := range w.Layers {
		out = append(out, Layer{Compute: l.InGrad.Cycles + l.WtGrad.Cycles, Grad: l.WtGradComm.Bytes})
	}
	slices.Reverse(out)
	return out
}

// tenGroups fuses layers into 10 contiguous groups of (nearly) equal layer
// counts, a stand-in fixed plan for timing Allocate at K = 10.
func tenGroups(layers []Layer) []Layer {
	out := make([]Layer, 10)
	for i, l := range layers {
		g := i * 10 / len(layers)
		out[g].Compute += l.Compute
		out[g].Grad += l.Grad
	}
	return out
}

// BenchmarkAllocatePaper times Eq (17) at the paper's settings: K = 10,
// Z = 150, J = 6.
func BenchmarkAllocatePaper(b *testing.B) {
	m, groups := benchModel(b), tenGroups(resnet50(b))
	for b.Loop() {
		if _, err := Allocate(m, groups, paperThreads, 150); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFuseResNet50 times Algorithm 1 at the paper's settings on
// ResNet-50's 54 layers: K = 10, L = 54, Z = 150, J = 6.
func BenchmarkFuseResNet50(b *testing.B) {
	m, layers := benchModel(b), resnet50(b)
	for b.Loop() {
		if _, err := Fuse(m, layers, paperThreads, 10, 150); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPaperSettingsRun(t *testing.T) {
	// The paper's settings on ResNet-50 at a small Z (the benchmarks use 150):
	// the programmes run, the plan covers every layer, Theorem 1's ratio holds
	// for the allocation against its own T(K, Z).
	m, layers := benchModel(t), resnet50(t)
	a, err := Allocate(m, tenGroups(layers), paperThreads, 30)
	require.NoError(t, err)
	require.LessOrEqual(t, a.Hat.Total, a.Time*(1+1e-9))
	p, err := Fuse(m, layers, paperThreads, 10, 30)
	require.NoError(t, err)
	require.LessOrEqual(t, p.Hat.Total, p.Time*(1+1e-9))
	require.Equal(t, 1, p.Groups[0].First)
	require.Equal(t, 54, p.Groups[len(p.Groups)-1].Last)
	require.False(t, math.IsNaN(p.Time))
	again, err := Fuse(m, layers, paperThreads, 10, 30)
	require.NoError(t, err)
	require.Equal(t, p, again, "the same inputs give the same plan, bit for bit")
}
