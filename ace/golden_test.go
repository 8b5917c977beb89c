package ace

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// The paper's Fig. 8(c) walk-through on ACE, each sub-step (first start,
// last start, last end, packets) compared with values computed by hand; the
// arithmetic is in the golden file's header.
func TestFig8cGoldenTraceACE(t *testing.T) {
	s := torus.Shape{L: 3, V: 1, H: 1}
	plan, err := collectives.NewPlan(collectives.Config{Shape: s, Op: collectives.OpAllReduce, MessageBytes: 8192, Unidirectional: true}, "ring", 3*8192, 3*8192)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	type agg struct {
		first, lastStart, lastEnd rtl.Cycle
		n                         int
	}
	got := map[string]*agg{}
	res, err := Run(k, net, plan, Default(), &Hooks{Trace: func(x SubStep) {
		key := fmt.Sprintf("%d %d %s", x.NPU, x.Op, x.Kind)
		a := got[key]
		if a == nil {
			a = &agg{first: x.Start}
			got[key] = a
		}
		a.lastStart, a.lastEnd = x.Start, x.End
		a.n++
	}})
	require.NoError(t, err)
	require.Equal(t, rtl.Cycle(1004), res.Cycles)

	f, err := os.Open("../testdata/golden/fig8c_ring3_ace.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var label, kind string
		var op int
		var want agg
		_, err := fmt.Sscan(line, &label, &op, &kind, &want.first, &want.lastStart, &want.lastEnd, &want.n)
		require.NoError(t, err, line)
		for npu := 0; npu < 3; npu++ { // the walk-through is the same on every NPU
			g := got[fmt.Sprintf("%d %d %s", npu, op, kind)]
			require.NotNil(t, g, "sub-step %s on NPU %d missing", label, npu)
			require.Equal(t, want, *g, "sub-step %s on NPU %d", label, npu)
		}
		rows++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 7, rows)
	// Nothing else happened: no packet was absorbed into SRAM.
	require.Len(t, got, 3*rows)
}
