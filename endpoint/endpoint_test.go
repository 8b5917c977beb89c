package endpoint

import (
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func TestEveryKindIsRegistered(t *testing.T) {
	require.Equal(t, []string{"ace", "baseline", "ideal"}, Kinds())
	_, err := New(rtl.NewKernel(), nil, torus.Shape{L: 1, V: 1, H: 1}.Machine(), systems.System{Name: "odd", Kind: systems.Kind(9)}, Options{})
	require.ErrorContains(t, err, "no endpoint of kind Kind(9) (kinds: ace, baseline, ideal)")
}

func defaultACE() ace.Config { return ace.Default() }

// One observer sees the AFI's collectives, the endpoint's work and the
// links' packets: every collective issued completes, every packet sent
// arrives, and each endpoint reports its own unit of work (ops on the
// ideal endpoint, sub-steps on ACE).
func TestOneObserverSeesEveryLayer(t *testing.T) {
	shape := torus.Shape{L: 4, V: 1, H: 1}
	cfg := afi.DefaultConfig(shape.Machine())
	plan, err := cfg.Plan(collectives.OpAllReduce, 4096)
	require.NoError(t, err)
	for _, tc := range []struct {
		system string
		work   observe.Kind
	}{{"ideal", observe.OpDone}, {"ace", observe.SubStep}} {
		count := map[observe.Kind]int{}
		o := observe.Func(func(e observe.Event) { count[e.Kind]++ })
		sys, err := systems.Lookup(tc.system)
		require.NoError(t, err)
		k := rtl.NewKernel()
		net, err := torus.Build(k, shape, torus.DefaultLinks(), false)
		require.NoError(t, err)
		net.SetObserver(o)
		ep, err := New(k, net, shape.Machine(), sys, Options{ACE: defaultACE(), Layout: plan, Observer: o})
		require.NoError(t, err)
		a, err := afi.New(cfg, ep)
		require.NoError(t, err)
		a.SetObserver(o)
		_, err = a.Issue(0, collectives.OpAllReduce, 4096, nil)
		require.NoError(t, err)
		k.Run()
		require.Equal(t, 1, count[observe.CollectiveIssued], tc.system)
		require.Equal(t, 1, count[observe.CollectiveDone], tc.system)
		require.Positive(t, count[observe.PacketSent], tc.system)
		require.Equal(t, count[observe.PacketSent], count[observe.PacketReceived], tc.system)
		require.Positive(t, count[tc.work], tc.system)
	}
}

// SideOf gives NPU r its own read and write memory and sets rates on them
// alone; the ideal endpoint has none; a folded run has no NPU of its own.
func TestSideOfIsOneNPUs(t *testing.T) {
	shape := torus.Shape{L: 4, V: 1, H: 1}
	cfg := afi.DefaultConfig(shape.Machine())
	plan, err := cfg.Plan(collectives.OpAllReduce, 4096)
	require.NoError(t, err)
	for _, name := range []string{"baseline-compopt", "ace", "ideal"} {
		sys, err := systems.Lookup(name)
		require.NoError(t, err)
		for _, fold := range []bool{false, true} {
			k := rtl.NewKernel()
			net, err := torus.Build(k, shape, torus.DefaultLinks(), fold)
			require.NoError(t, err)
			ep, err := New(k, net, shape.Machine(), sys, Options{ACE: defaultACE(), Layout: plan})
			require.NoError(t, err)
			all := ep.Side()
			c, err := ep.SideOf(2, 4)
			if name == "ideal" {
				require.NoError(t, err)
				require.Nil(t, c.Memory)
				continue
			}
			if fold {
				require.ErrorContains(t, err, "NPU 2's own memory: the endpoint simulates 1 of the 4 NPUs", name)
				continue
			}
			require.NoError(t, err, name)
			require.Equal(t, 1, c.NPUs)
			require.Equal(t, all.Memory[4:6], c.Memory, "NPU 2's read and write, in node order")
			before := all.Memory[0].Rate()
			r := rtl.Rate{Num: 1, Den: 7}
			c.Apply(r, r)
			require.Equal(t, r, all.Memory[4].Rate(), name)
			require.Equal(t, r, all.Memory[5].Rate(), name)
			require.Equal(t, before, all.Memory[0].Rate(), "NPU 0's memory is left alone")
		}
	}
}
