package ace

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// The paper's Fig. 8(c) walk-through on ACE, each sub-step (first start,
// last start, last end, packets) compared with values computed by hand; the
// arithmetic is in the golden file's header, for the paper read literally
// (one 64 B read and one write port per bank, the paper's partition
// heuristic, the receive-ready notice sent as the FSM takes the chunk up).
//
// With the notice sent when the room is made (the default), the one chunk
// takes its room at admission, cycle 0, so its notice reaches the sender at
// 90, long before the TX DMA ends at 240: sub-step 1.2 starts at 240
// instead of 330, and every sub-step after it runs 90 cycles earlier (the
// same packets meet the same resources, the notice no longer on the path):
// the collective ends at 1004 − 90 = 914. Two partitions, one chunk: the
// partition rule does not change the timing.
func TestFig8cGoldenTraceACE(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   func(*Config)
		shift rtl.Cycle
	}{
		{"literal", func(c *Config) { c.PortsPerBank, c.Partition, c.Notice = 1, PartitionPaper, NoticeFSM }, 0},
		{"notice at room", func(c *Config) { c.PortsPerBank = 1 }, -90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Default()
			tc.cfg(&cfg)
			fig8cGolden(t, cfg, tc.shift)
		})
	}
}

func fig8cGolden(t *testing.T, cfg Config, shift rtl.Cycle) {
	s := torus.Shape{L: 3, V: 1, H: 1}
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192, Unidirectional: true}, "ring", 3*8192, 3*8192)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	type agg struct {
		first, lastStart, lastEnd rtl.Cycle
		n                         int
	}
	got := map[string]*agg{}
	res, err := Run(k, net, plan, cfg, &Hooks{Observer: observe.Func(func(x observe.Event) {
		if x.Kind != observe.SubStep {
			return
		}
		key := fmt.Sprintf("%d %d %s", x.NPU, x.Op, x.What)
		a := got[key]
		if a == nil {
			a = &agg{first: x.Cycle}
			got[key] = a
		}
		a.lastStart, a.lastEnd = x.Cycle, x.End
		a.n++
	})})
	require.NoError(t, err)
	require.Equal(t, rtl.Cycle(1004)+shift, res.Cycles)

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
		if kind != "dma-in" {
			want.first, want.lastStart, want.lastEnd = want.first+shift, want.lastStart+shift, want.lastEnd+shift
		}
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
