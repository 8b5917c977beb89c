package afi_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
	"github.com/stretchr/testify/require"
)

// The same commands run on every kind of engine; completion interrupts
// arrive once per collective, and a collective takes as long through the
// interface as run alone (one at a time here).
func TestCommandsRunOnEveryEngine(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	for _, kind := range []string{"ideal", "baseline", "ace"} {
		t.Run(kind, func(t *testing.T) {
			k := rtl.NewKernel()
			net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
			require.NoError(t, err)
			cfg := afi.DefaultConfig(shape.Machine())
			var eng afi.Engine
			switch kind {
			case "ideal":
				eng, err = npu.NewIdealEngine(k, net, shape.Machine(), npu.DefaultIdeal())
			case "baseline":
				eng, err = npu.NewBaselineEngine(k, net, shape.Machine(), npu.DefaultBaseline(2, big.NewRat(128, 1)))
			case "ace":
				layout, perr := cfg.Plan(collectives.OpAllReduce, 64<<10)
				require.NoError(t, perr)
				eng, err = ace.NewEngine(k, net, layout, ace.Default(), nil)
			}
			require.NoError(t, err)
			a, err := afi.New(cfg, eng)
			require.NoError(t, err)
			var ends []rtl.Cycle
			var second rtl.Cycle
			h0, err := a.Issue(0, collectives.OpAllReduce, 100_000, func(now rtl.Cycle) {
				ends = append(ends, now)
				// ACE's arbitration between its DMA engines, input ports
				// and FSMs rotates every cycle (of three), so the second
				// starts at the same point of the rotation as the first.
				second = now + (3-now%3)%3
				_, err := a.Issue(second, collectives.OpAllReduce, 100_000, func(now rtl.Cycle) { ends = append(ends, now) })
				require.NoError(t, err)
			})
			require.NoError(t, err)
			require.Equal(t, afi.Handle(0), h0)
			require.Equal(t, 1, a.InFlight())
			k.Run()
			require.Len(t, ends, 2)
			require.Zero(t, a.InFlight())
			require.Equal(t, 2, a.Issued())
			// The second, issued on an idle network after the first ended,
			// takes exactly as long as the first.
			require.Equal(t, ends[0], ends[1]-second)
		})
	}
}

type nopEngine struct{}

func (nopEngine) Issue(rtl.Cycle, *collectives.Plan, func(rtl.Cycle)) error { return nil }

func (nopEngine) IssueWith(rtl.Cycle, *collectives.Plan, afi.IssueOptions) error { return nil }

func TestBadCommandsAreRefused(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	_, err = afi.New(afi.Config{Machine: shape.Machine()}, nopEngine{})
	require.ErrorContains(t, err, "must be positive")
	a, err := afi.New(afi.DefaultConfig(shape.Machine()), nopEngine{})
	require.NoError(t, err)
	_, err = a.Issue(0, collectives.OpAllReduce, 0, nil)
	require.ErrorContains(t, err, "allreduce of 0 B")
}

// spinner is an engine that never finishes: its collective retries every
// cycle for ever, and it says what it waits on.
type spinner struct{ k *rtl.Kernel }

func (s spinner) Issue(now rtl.Cycle, _ *collectives.Plan, _ func(rtl.Cycle)) error {
	var h rtl.HandlerFunc
	h = func(now rtl.Cycle, _ int32, _ int64) { s.k.Schedule(now+1, h, 0, 0) }
	s.k.Schedule(now, h, 0, 0)
	return nil
}

func (s spinner) IssueWith(now rtl.Cycle, p *collectives.Plan, o afi.IssueOptions) error {
	return s.Issue(now, p, o.Done)
}

func (spinner) Stuck() error { return errors.New("NPU 0 chunk 0 waits for its port") }

// A collective whose events go on without progress ends, through the
// kernel's watchdog, with the stall and the engine's report of who waits
// on what, instead of running for ever.
func TestAStalledCollectiveReportsWhoWaits(t *testing.T) {
	k := rtl.NewKernel()
	k.SetStallEvents(10_000)
	_, err := afi.RunOne(k, spinner{k}, nil)
	require.ErrorContains(t, err, "stopped making progress")
	require.ErrorContains(t, err, "NPU 0 chunk 0 waits for its port")
}

// chunker reports 1024, 2048 and 4096 B final and then the collective's
// end, at the cycle it is issued.
type chunker struct{}

func (c chunker) Issue(now rtl.Cycle, p *collectives.Plan, done func(rtl.Cycle)) error {
	return c.IssueWith(now, p, afi.IssueOptions{Done: done})
}

func (chunker) IssueWith(now rtl.Cycle, _ *collectives.Plan, o afi.IssueOptions) error {
	for i := 0; i < 3 && o.Progress != nil; i++ {
		o.Progress(now, 1024<<i)
	}
	o.Done(now)
	return nil
}

// The interface hands the engine's progress reports to the issuer, and its
// end to the issuer's done.
func TestInterfacePassesProgressOn(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	a, err := afi.New(afi.DefaultConfig(shape.Machine()), chunker{})
	require.NoError(t, err)
	var got []int64
	ended := false
	_, err = a.IssueWith(5, collectives.OpAllReduce, 4096, afi.IssueOptions{Done: func(rtl.Cycle) { ended = true }, Progress: func(_ rtl.Cycle, b int64) { got = append(got, b) }})
	require.NoError(t, err)
	require.Equal(t, []int64{1024, 2048, 4096}, got)
	require.True(t, ended)
}

// The issue call carries the communicator: through one interface, an
// all-reduce over the v,h groups and one over the l groups of 4x2x2 are in
// flight at once, each planned once for its group (asked again, the same
// plan), and each ends with its own groups' sums.
func TestInterfaceIssuesOnAGroup(t *testing.T) {
	shape, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
	require.NoError(t, err)
	cfg := afi.DefaultConfig(shape.Machine())
	cfg.ChunkBytes, cfg.MessageBytes = 4096, 1024
	vh, err := cfg.PlanOn(collectives.OpAllReduce, 8192, []string{"v", "h"}, nil)
	require.NoError(t, err)
	l, err := cfg.PlanOn(collectives.OpAllReduce, 8192, []string{"l"}, nil)
	require.NoError(t, err)
	ds, err := verify.NewDataChecks(vh, l)
	require.NoError(t, err)
	icfg := npu.DefaultIdeal()
	icfg.Data, icfg.Observer = &npu.DataHooks{Init: ds.Hook}, ds
	e, err := npu.NewIdealEngine(k, net, shape.Machine(), icfg)
	require.NoError(t, err)
	a, err := afi.New(cfg, e)
	require.NoError(t, err)
	_, err = a.IssueWith(0, collectives.OpAllReduce, 8192, afi.IssueOptions{Group: []string{"v", "h"}})
	require.NoError(t, err)
	_, err = a.IssueWith(0, collectives.OpAllReduce, 8192, afi.IssueOptions{Group: []string{"l"}})
	require.NoError(t, err)
	k.Run()
	require.NoError(t, e.Stuck())
	require.Zero(t, a.InFlight())
	require.NoError(t, ds.Result())
	again, err := a.PlanOn(collectives.OpAllReduce, 8192, []string{"v", "h"}, nil)
	require.NoError(t, err)
	p, err := a.PlanOn(collectives.OpAllReduce, 8192, []string{"v", "h"}, nil)
	require.NoError(t, err)
	require.Same(t, again, p)
	require.Equal(t, 4, p.GroupSize())
}

// Listed groups are part of the plan's key: the same list again is the
// same plan, another list (even of the same NPUs in another ring order)
// or a span of dimensions another, and a bad list is refused.
func TestInterfacePlansByListedGroups(t *testing.T) {
	shape, err := torus.Parse("4x4x1")
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
	require.NoError(t, err)
	e, err := npu.NewIdealEngine(k, net, shape.Machine(), npu.DefaultIdeal())
	require.NoError(t, err)
	a, err := afi.New(afi.DefaultConfig(shape.Machine()), e)
	require.NoError(t, err)
	diag := [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
	p, err := a.PlanOn(collectives.OpAllReduce, 8192, nil, diag)
	require.NoError(t, err)
	again, err := a.PlanOn(collectives.OpAllReduce, 8192, nil, [][]int{{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}})
	require.NoError(t, err)
	require.Same(t, p, again)
	require.Equal(t, []int{3, 4, 9, 14}, p.Members(4))
	reversed, err := a.PlanOn(collectives.OpAllReduce, 8192, nil, [][]int{{15, 10, 5, 0}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}})
	require.NoError(t, err)
	require.NotSame(t, p, reversed)
	whole, err := a.PlanOn(collectives.OpAllReduce, 8192, nil, nil)
	require.NoError(t, err)
	require.NotSame(t, p, whole)
	require.Equal(t, 16, whole.GroupSize())
	_, err = a.PlanOn(collectives.OpAllReduce, 8192, nil, [][]int{})
	require.ErrorContains(t, err, "communicator groups")
	_, err = a.IssueWith(0, collectives.OpAllReduce, 8192, afi.IssueOptions{Group: []string{"v"}, Groups: diag})
	require.ErrorContains(t, err, "name one or the other")
	require.Zero(t, a.Issued())
}

// planSeer keeps the chunks of the plans it is given.
type planSeer struct{ chunks *[]int64 }

func (s planSeer) Issue(now rtl.Cycle, p *collectives.Plan, done func(rtl.Cycle)) error {
	return s.IssueWith(now, p, afi.IssueOptions{Done: done})
}

func (s planSeer) IssueWith(now rtl.Cycle, p *collectives.Plan, o afi.IssueOptions) error {
	*s.chunks = append(*s.chunks, p.ChunkBytes)
	return nil
}

// An issue may cut its collective into chunks of its own
// (IssueOptions.ChunkBytes): 1 MiB as one chunk runs as one, the same
// size without it in the interface's 64 KiB; a negative chunk is refused.
func TestAnIssueGivesItsChunk(t *testing.T) {
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	var chunks []int64
	a, err := afi.New(afi.DefaultConfig(shape.Machine()), planSeer{&chunks})
	require.NoError(t, err)
	for _, c := range []int64{1 << 20, 0, 1 << 20} {
		_, err = a.IssueWith(0, collectives.OpAllReduce, 1<<20, afi.IssueOptions{ChunkBytes: c})
		require.NoError(t, err)
	}
	require.Equal(t, []int64{1 << 20, 64 << 10, 1 << 20}, chunks)
	_, err = a.IssueWith(0, collectives.OpAllReduce, 1<<20, afi.IssueOptions{ChunkBytes: -1})
	require.ErrorContains(t, err, "a chunk of -1 B; give a positive chunk, or 0 for the interface's")
}
