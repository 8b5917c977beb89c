package verify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// Collectives over a group of dimensions end with each group's own result,
// on shapes with size-1 and size-2 dimensions and sizes that do not divide.
func TestGroupCollectivesAreCorrect(t *testing.T) {
	for _, tc := range []struct {
		topo           string
		span           []string
		payload, chunk int64
	}{
		{"4x2x2", []string{"v", "h"}, 8192, 4096},
		{"4x2x2", []string{"l"}, 8192, 4096},
		{"4x2x2", []string{"l", "h"}, 10_007, 3000},
		{"2x3x4", []string{"v", "h"}, 10_007, 3000},
		{"4x4x1", []string{"v", "h"}, 4096, 4096}, // h has size 1: the group is v's
	} {
		for _, op := range []collectives.CollectiveOp{collectives.OpAllReduce, collectives.OpReduceScatter, collectives.OpAllGather} {
			p := plan(t, tc.topo, op, "hierarchical", tc.payload, tc.chunk, 256, func(c *collectives.Config) { c.Span = tc.span })
			require.NoError(t, Check(p), "%s %v %s", tc.topo, tc.span, op)
			require.NoError(t, CheckContributions(p), "%s %v %s", tc.topo, tc.span, op)
		}
	}
}

// What a group all-reduce must give, written out without Members: on
// 4x2x1 (id l + 4v) NPU 1's group of v is {1, 5}, so every byte i of chunk
// 0 on NPU 1 and on NPU 5 is InitialValue(1, 0, i) + InitialValue(5, 0, i);
// NPU 0's is {0, 4}. The whole torus's all-reduce would add all 8 NPUs, and
// the group plan's result must not pass as it.
func TestGroupExpectationByHand(t *testing.T) {
	p := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 1024, 1024, 256, func(c *collectives.Config) { c.Span = []string{"v"} })
	e, err := Expect(p, 0)
	require.NoError(t, err)
	for _, i := range []int64{0, 17, 1023} {
		pair15 := InitialValue(1, 0, i) + InitialValue(5, 0, i)
		require.Equal(t, pair15, e.Want[1][i])
		require.Equal(t, pair15, e.Want[5][i])
		require.Equal(t, InitialValue(0, 0, i)+InitialValue(4, 0, i), e.Want[0][i])
	}
	got, err := RunChunk(p, 0, e.Init)
	require.NoError(t, err)
	require.NoError(t, e.Compare(got, 0))
	whole := plan(t, "4x2x1", collectives.OpAllReduce, "hierarchical", 1024, 1024, 256, nil)
	ew, err := Expect(whole, 0)
	require.NoError(t, err)
	require.Error(t, ew.Compare(got, 0), "a group's sums are not the whole torus's")
}

// Two groups' collectives in flight at once on one torus, each checked
// against its own definition: an all-reduce over v,h (4 groups of 4 on
// 4x2x2) issued at cycle 0 and one over l,h (2 groups of 8) at cycle 50,
// sharing links and, on the baseline, SMs and memory; on the ideal
// endpoint, the SM-driven baseline and ACE. Handing the checks the plans
// in the other order must fail: the check tells the two apart.
func TestTwoGroupsCollectivesInFlight(t *testing.T) {
	shape, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	vh := plan(t, "4x2x2", collectives.OpAllReduce, "hierarchical", 8192, 4096, 1024, func(c *collectives.Config) { c.Span = []string{"v", "h"} })
	lh := plan(t, "4x2x2", collectives.OpAllReduce, "hierarchical", 8192, 4096, 1024, func(c *collectives.Config) { c.Span = []string{"l", "h"} })
	require.Equal(t, 4, vh.GroupSize())
	require.Equal(t, 8, lh.GroupSize())
	checkTwoInFlight(t, shape, vh, lh, func(t *testing.T, e testEngine, ends *[2]rtl.Cycle) {
		require.NoError(t, e.Issue(0, vh, func(now rtl.Cycle) { ends[0] = now }))
		require.NoError(t, e.Issue(50, lh, func(now rtl.Cycle) { ends[1] = now }))
	})
}

// checkTwoInFlight runs two collectives at once on the torus of shape, on
// the ideal endpoint, the SM-driven baseline and ACE (laid out for
// first): issue issues them on the engine, first then second, and notes
// their ends. Both must end, each with its own result; checked against
// the plans in the other order, the run must fail.
func checkTwoInFlight(t *testing.T, shape torus.Shape, first, second *collectives.Plan, issue func(t *testing.T, e testEngine, ends *[2]rtl.Cycle)) {
	t.Helper()
	for _, endpoint := range testEndpoints {
		for _, swapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/swapped=%v", endpoint, swapped), func(t *testing.T) {
				order := []*collectives.Plan{first, second}
				if swapped {
					order = []*collectives.Plan{second, first}
				}
				ds, err := NewDataChecks(order...)
				require.NoError(t, err)
				k := rtl.NewKernel()
				net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
				require.NoError(t, err)
				e := newTestEngine(t, endpoint, k, net, shape, first, ds.Hook, ds)
				var ends [2]rtl.Cycle
				issue(t, e, &ends)
				k.Run()
				require.NoError(t, e.Stuck())
				require.Positive(t, ends[0])
				require.Positive(t, ends[1])
				if swapped {
					require.ErrorContains(t, ds.Result(), "want")
				} else {
					require.NoError(t, ds.Result())
				}
			})
		}
	}
}

// A two-tier switch fabric of 16 NPUs (switch:4x4, docs/topology.md): the
// hierarchical all-reduce over (leaf, spine), and one over the spine alone
// (each leaf position's group of 4 across the leaves), end with each
// group's exact result on the ideal endpoint, the SM-driven baseline and
// ACE, every message through the switches.
func TestCollectivesOnASwitchFabric(t *testing.T) {
	spec, err := topology.Parse("switch:4x4")
	require.NoError(t, err)
	for _, span := range [][]string{nil, {"spine"}} {
		plan, err := collectives.NewPlan(collectives.Config{Machine: spec.Machine, Op: collectives.OpAllReduce,
			MessageBytes: 2048, Span: span}, "hierarchical", 20_000, 8192)
		require.NoError(t, err)
		if span == nil {
			require.Equal(t, []string{"reduce-scatter on leaf (ring)", "all-reduce on spine (ring)", "all-gather on leaf (ring)"}, plan.Algo.Phases())
		}
		for _, endpoint := range []string{"ideal", "baseline", "ace"} {
			t.Run(fmt.Sprintf("%v/%s", span, endpoint), func(t *testing.T) {
				net := checkOnMachine(t, spec, plan, endpoint)
				var forwarded int64
				for _, sw := range net.Switches() {
					forwarded += sw.Forwarded()
				}
				require.Positive(t, forwarded, "every message goes through the switches")
			})
		}
	}
}

// checkOnMachine runs plan on the machine spec names, on the endpoint
// named (ideal, baseline or ace), every NPU carrying data, and requires
// each NPU's exact result; it returns the network it ran on.
func checkOnMachine(t *testing.T, spec *topology.Spec, plan *collectives.Plan, endpoint string) *fabric.Network {
	t.Helper()
	k := rtl.NewKernel()
	net, err := spec.Build(k, topology.DefaultLinkSettings(), false)
	require.NoError(t, err)
	dc, err := NewDataCheck(plan)
	require.NoError(t, err)
	switch endpoint {
	case "ideal":
		cfg := npu.DefaultIdeal()
		cfg.Data, cfg.Observer = &npu.DataHooks{Init: dc.Hook}, dc
		_, err = npu.RunIdeal(k, net, plan, cfg)
	case "baseline":
		cfg := npu.DefaultBaseline(6, big.NewRat(450, 1))
		cfg.Data, cfg.Observer = &npu.DataHooks{Init: dc.Hook}, dc
		_, err = npu.RunBaseline(k, net, plan, cfg)
	case "ace":
		_, err = ace.Run(k, net, plan, ace.Default(), &ace.Hooks{Init: dc.Hook, Observer: dc})
	default:
		t.Fatalf("no endpoint %q", endpoint)
	}
	require.NoError(t, err)
	require.NoError(t, dc.Result())
	return net
}
