package npu

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

func readGolden(t *testing.T, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// The paper's Fig. 8 walk-through, timed on the ideal endpoint, compared
// event for event with a trace computed by hand (the arithmetic is in the
// golden file's header).
func TestFig8GoldenTraceIdeal(t *testing.T) {
	s := torus.Shape{L: 3, V: 1, H: 1}
	cfg := collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192, Unidirectional: true}
	plan, err := collectives.NewPlan(cfg, "ring", 3*8192, 3*8192)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	var got []string
	icfg := DefaultIdeal()
	icfg.Observer = observe.Func(func(e observe.Event) {
		if e.Kind != observe.OpStart && e.Kind != observe.OpDone {
			return
		}
		ev := "issue"
		if e.Kind == observe.OpDone {
			ev = "complete"
		}
		got = append(got, fmt.Sprintf("%d %d %d %d %s %d %s", e.Cycle, e.NPU, e.Phase, e.Op, collectives.Kind(e.OpKind), e.Step, ev))
	})
	res, err := RunIdeal(k, net, plan, icfg)
	require.NoError(t, err)
	require.Equal(t, rtl.Cycle(584), res.Cycles)
	// Within a cycle, order by NPU then op (the golden file's order); the
	// kernel's order among NPUs in one cycle is not part of the model.
	sort.SliceStable(got, func(i, j int) bool {
		var ci, ni, cj, nj int
		fmt.Sscan(got[i], &ci, &ni)
		fmt.Sscan(got[j], &cj, &nj)
		if ci != cj {
			return ci < cj
		}
		return ni < nj
	})
	require.Equal(t, readGolden(t, "../testdata/golden/fig8_ring3_ideal.txt"), got)
}

// Real values through the timed run: every NPU ends every chunk with the
// collective's result, for sizes that do not divide evenly.
func TestIdealCarriesDataCorrectly(t *testing.T) {
	tests := []struct {
		topo           string
		op             collectives.CollectiveOp
		alg            string
		payload, chunk int64
	}{
		{"4x2x2", collectives.OpAllReduce, "hierarchical", 100_000, 65536},
		{"2x3x4", collectives.OpAllReduce, "hierarchical", 30_011, 4096},
		{"4x2x2", collectives.OpReduceScatter, "hierarchical", 50_000, 8192},
		{"4x2x2", collectives.OpAllGather, "blueconnect", 50_000, 8192},
		{"8x1x1", collectives.OpAllReduce, "ring", 20_000, 8192},
		// Trees have send-after-send dependences that complete inside the
		// call that released them: the executor must not issue twice.
		{"4x2x2", collectives.OpAllReduce, "tree", 50_000, 8192},
		{"3x3x3", collectives.OpAllReduce, "tree-overlapped", 30_011, 4096},
		{"2x3x4", collectives.OpAllReduce, "double-tree", 30_011, 4096},
		{"4x2x2", collectives.OpAllReduce, "halving-doubling", 50_000, 8192},
		{"2x3x4", collectives.OpAllToAll, "direct", 30_011, 4096},
	}
	for _, tc := range tests {
		t.Run(tc.topo+"/"+tc.op.String()+"/"+tc.alg, func(t *testing.T) {
			s, err := torus.Parse(tc.topo)
			require.NoError(t, err)
			plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: tc.op, MessageBytes: 8192}, tc.alg, tc.payload, tc.chunk)
			require.NoError(t, err)
			requireDataOK(t, plan)
		})
	}
}

// A wrong program is caught by the timed data check too.
func TestIdealDataCheckCatchesAWrongProgram(t *testing.T) {
	s := torus.Shape{L: 4, V: 1, H: 1}
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "ring", 4096, 4096)
	require.NoError(t, err)
	prog := plan.Program(0, 0, 4096) // changed on purpose
	for i := range prog.Ops {
		if prog.Ops[i].Kind == collectives.Recv && prog.Ops[i].Reduce {
			prog.Ops[i].Reduce = false
			break
		}
	}
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	cfg := DefaultIdeal()
	cfg.Data, cfg.Observer = &DataHooks{Init: dc.Hook}, dc
	_, err = RunIdeal(k, net, plan, cfg)
	require.NoError(t, err)
	require.ErrorContains(t, dc.Result(), "want")
}

// Every registered algorithm, on every collective it runs, carries the right
// values through a timed run on several shapes, including sizes that do not
// divide. Algorithms that cannot run a shape (halving-doubling on a group
// that is not a power of two) must say so when the plan is built.
func TestEveryAlgorithmCarriesDataOnEveryShape(t *testing.T) {
	shapes := []string{"4x1x1", "4x2x2", "2x3x4", "8x1x1", "3x3x3", "2x2x2"}
	for _, a := range collectives.Algorithms() {
		for _, op := range a.Ops {
			for _, topo := range shapes {
				t.Run(a.Name+"/"+op.String()+"/"+topo, func(t *testing.T) {
					s, err := torus.Parse(topo)
					require.NoError(t, err)
					plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: op, MessageBytes: 1000}, a.Name, 12_345, 5000)
					if err != nil {
						require.Contains(t, err.Error(), "power-of-two", "only halving-doubling may refuse a shape")
						return
					}
					requireDataOK(t, plan)
				})
			}
		}
	}
}

// requireDataOK runs plan on the ideal endpoint carrying values and requires
// every NPU to end every chunk with the collective's result.
func requireDataOK(t *testing.T, plan *collectives.Plan) {
	t.Helper()
	dc, err := verify.NewDataCheck(plan)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, torus.ShapeOf(plan.Machine), torus.DefaultLinks())
	require.NoError(t, err)
	cfg := DefaultIdeal()
	cfg.Data, cfg.Observer = &DataHooks{Init: dc.Hook}, dc
	_, err = RunIdeal(k, net, plan, cfg)
	require.NoError(t, err)
	require.NoError(t, dc.Result())
}
