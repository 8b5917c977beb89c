package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/acemu/acemu/topology"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/testrun"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// traced runs a two-layer workload on ACE and the ideal endpoint on a
// 4x2x1 torus, one iteration, recording each system's timeline.
func traced(t *testing.T, full bool, opt Options) (map[string]map[string]any, *compare.Report) {
	w := testrun.TwoLayers(t)
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	ss := testrun.Systems(t, "ace", "ideal")
	recs := map[string]*Recorder{}
	var mu sync.Mutex
	rep, err := compare.Run(compare.Options{Machine: topology.Torus(shape), Workload: w, Systems: ss, Iterations: 1, Full: full,
		Observe: func(system string, net *fabric.Network) observe.Observers {
			o := opt
			if net.Folded() {
				o.StandsFor = net.NPUs()
			}
			r := New(o)
			mu.Lock()
			recs[system] = r
			mu.Unlock()
			return observe.Observers{Work: r}
		}})
	require.NoError(t, err)
	out := map[string]map[string]any{}
	for name, r := range recs {
		var b bytes.Buffer
		require.NoError(t, r.Write(&b))
		var doc map[string]any
		require.NoError(t, json.Unmarshal(b.Bytes(), &doc), "the trace is JSON")
		out[name] = doc
	}
	return out, rep
}

// checkFormat checks a trace against the trace-event format: every event
// has a name, a known phase, a process and thread, and a time; complete
// events on one thread nest (none ends inside another it does not
// contain); every async begin has one end, with the same category and id,
// no earlier. It returns the events by phase.
func checkFormat(t *testing.T, doc map[string]any) map[string][]map[string]any {
	require.Equal(t, "ns", doc["displayTimeUnit"])
	byPh := map[string][]map[string]any{}
	type thread struct{ pid, tid float64 }
	type interval struct{ start, end float64 }
	xs := map[thread][]interval{}
	open := map[string]float64{}
	for _, x := range doc["traceEvents"].([]any) {
		e := x.(map[string]any)
		ph := e["ph"].(string)
		require.NotEmpty(t, e["name"])
		require.Contains(t, []string{"M", "X", "b", "e", "C"}, ph)
		pid, tid := e["pid"].(float64), e["tid"].(float64)
		byPh[ph] = append(byPh[ph], e)
		if ph == "M" {
			continue
		}
		ts := e["ts"].(float64)
		require.GreaterOrEqual(t, ts, 0.0)
		switch ph {
		case "X":
			xs[thread{pid, tid}] = append(xs[thread{pid, tid}], interval{ts, ts + e["dur"].(float64)})
		case "b":
			key := fmt.Sprint(e["cat"], "/", e["id"])
			_, dup := open[key]
			require.False(t, dup, "async %s begun twice", key)
			open[key] = ts
		case "e":
			key := fmt.Sprint(e["cat"], "/", e["id"])
			b, ok := open[key]
			require.True(t, ok, "async %s ends without a begin", key)
			require.GreaterOrEqual(t, ts, b)
			delete(open, key)
		}
	}
	require.Empty(t, open, "async events left open")
	for th, ivs := range xs {
		for i := range ivs {
			for j := range ivs {
				a, b := ivs[i], ivs[j]
				if i != j && a.start < b.start && b.start < a.end {
					require.LessOrEqual(t, b.end, a.end, "thread %v: %v and %v overlap without nesting", th, a, b)
				}
			}
		}
	}
	return byPh
}

// A folded run's trace is trace-event JSON whose events nest, says that
// its NPU stands for all eight, and shows the compute kernels (their
// durations add up to the report's compute), both collectives, every
// chunk's phases, and on ACE its sub-steps as counters.
func TestAFoldedRunsTrace(t *testing.T) {
	docs, rep := traced(t, false, Options{})
	require.True(t, rep.Folded)
	for _, s := range rep.Systems {
		doc := docs[s.Name]
		byPh := checkFormat(t, doc)
		other := doc["otherData"].(map[string]any)
		require.Equal(t, true, other["folded"])
		require.Equal(t, 8.0, other["stands_for_npus"])
		var names []string
		for _, m := range byPh["M"] {
			names = append(names, m["args"].(map[string]any)["name"].(string))
		}
		require.Contains(t, names, "NPU 0 (stands for all 8 NPUs: a folded run)")
		var compute, stalled float64
		nc, ns := 0, 0
		var kernels []string
		for _, x := range byPh["X"] {
			switch x["cat"] {
			case "compute":
				compute += x["dur"].(float64)
				nc++
				args := x["args"].(map[string]any)
				kernels = append(kernels, fmt.Sprintf("%v (iteration %v, layer %v)", x["name"], args["iteration"], args["layer"]))
			case "stall":
				stalled += x["dur"].(float64)
				ns++
				require.Contains(t, x["args"].(map[string]any)["waiting"], "iteration 1")
			default:
				t.Fatalf("complete event of category %v", x["cat"])
			}
		}
		// Each kernel is named by its layer and pass, in the order the
		// loop runs them (layer 0 has no input gradient).
		require.Equal(t, []string{"a forward (iteration 1, layer 0)", "b forward (iteration 1, layer 1)",
			"b weight-gradient (iteration 1, layer 1)", "b input-gradient (iteration 1, layer 1)", "a weight-gradient (iteration 1, layer 0)"}, kernels, s.Name)
		// µs at 1245 MHz; each duration is rounded to 0.1 ns. The waits
		// are the report's exposed communication.
		require.InDelta(t, float64(s.TotalCompute), compute*1245, float64(nc)*0.1, s.Name)
		require.Positive(t, ns, s.Name)
		require.InDelta(t, float64(s.TotalExposedComm), stalled*1245, float64(ns)*0.1, s.Name)
		colls, chunks := 0, 0
		for _, b := range byPh["b"] {
			switch b["cat"] {
			case "collective":
				colls++
			case "chunk":
				chunks++
			}
		}
		require.Equal(t, 2, colls, s.Name)
		// 1 000 000 and 200 000 B in 64 KiB chunks: 16 + 4 chunks, three
		// phases each on 4x2x1 (RS local, AR vertical, AG local).
		require.Equal(t, (16+4)*3, chunks, s.Name)
		if s.Name == "ace" {
			// Each chunk phase names the FSM that ran it.
			for _, b := range byPh["b"] {
				if b["cat"] == "chunk" {
					args := b["args"].(map[string]any)
					require.Contains(t, args, "fsm")
					require.Contains(t, b["name"], fmt.Sprintf("(FSM %v)", args["fsm"]))
				}
			}
			require.NotEmpty(t, byPh["C"])
			for _, c := range byPh["C"] {
				v := c["args"].(map[string]any)["in flight"].(float64)
				require.GreaterOrEqual(t, v, 0.0)
			}
		} else {
			require.Empty(t, byPh["C"], "the ideal endpoint has no ACE")
		}
	}
}

// A full run's trace records the NPUs asked for, each its own process.
func TestAFullRunsTraceHasEachNPU(t *testing.T) {
	docs, rep := traced(t, true, Options{All: true})
	require.False(t, rep.Folded)
	byPh := checkFormat(t, docs["ideal"])
	pids := map[float64]bool{}
	for _, b := range byPh["b"] {
		if b["cat"] == "chunk" {
			pids[b["pid"].(float64)] = true
		}
	}
	require.Len(t, pids, 8)
	require.Equal(t, false, docs["ideal"]["otherData"].(map[string]any)["folded"])
}

// tenthsOf reads a time written with four decimals of a microsecond as
// tenths of a nanosecond, exactly.
func tenthsOf(t *testing.T, v any) int64 {
	n, ok := v.(json.Number)
	require.True(t, ok, "%v is a number", v)
	whole, frac, ok := strings.Cut(n.String(), ".")
	require.True(t, ok && len(frac) == 4, "%s has four decimals", n)
	i, err := strconv.ParseInt(whole+frac, 10, 64)
	require.NoError(t, err)
	return i
}

// Slices that touch in cycles touch in the trace, neither overlapping nor
// leaving a gap, however their ends round. 16 cycles are 0.012851 µs
// (0.0129 rounded) and 32 are 0.025703 µs (0.0257): a duration rounded
// on its own would end the kernel of cycles 16 to 32 at 0.0129 + 0.0129
// = 0.0258, past the next kernel's start. Cycle 157 is 0.126104 µs
// (0.1261), the 15 cycles to 172 are 0.012048 µs (0.0120), and 172 is
// 0.138153 µs (0.1382): rounded on its own, the wait of cycles 157 to 172
// would end 0.1 ns before the next begins.
func TestTouchingSlicesTouch(t *testing.T) {
	r := New(Options{})
	bounds := []rtl.Cycle{0, 16, 32, 48, 64, 81, 97, 113}
	for i := 1; i < len(bounds); i++ {
		r.Observe(observe.Event{Kind: observe.KernelEnd, Cycle: bounds[i-1], End: bounds[i], What: fmt.Sprintf("l%d forward", i), Op: i})
	}
	stalls := []rtl.Cycle{113, 130, 146, 157, 172, 190}
	for i := 1; i < len(stalls); i++ {
		r.Observe(observe.Event{Kind: observe.Stall, Cycle: stalls[i-1], End: stalls[i], What: "w"})
	}
	var b bytes.Buffer
	require.NoError(t, r.Write(&b))
	d := json.NewDecoder(&b)
	d.UseNumber()
	var doc struct{ TraceEvents []map[string]any }
	require.NoError(t, d.Decode(&doc))
	var starts, ends []int64
	for _, e := range doc.TraceEvents {
		if e["ph"] == "X" {
			ts := tenthsOf(t, e["ts"])
			starts, ends = append(starts, ts), append(ends, ts+tenthsOf(t, e["dur"]))
		}
	}
	require.Len(t, starts, len(bounds)-1+len(stalls)-1)
	for i := 1; i < len(starts); i++ {
		require.Equal(t, ends[i-1], starts[i], "slice %d ends where slice %d starts", i-1, i)
	}
	for i, c := range append(bounds, stalls[1:]...) {
		want := int64(math.Round(float64(c) * 1e10 / rtl.ClockHz))
		if i == 0 {
			require.Equal(t, want, starts[0])
		} else {
			require.Equal(t, want, ends[i-1], "cycle %d", c)
		}
	}
	// Each duration rounded on its own overlaps, or leaves a gap, here.
	old := func(c rtl.Cycle) int64 { return int64(math.Round(float64(c) * 1e10 / rtl.ClockHz)) }
	require.Greater(t, old(16)+old(32-16), old(32))
	require.Less(t, old(157)+old(172-157), old(172))
}

// 10¹⁰/1245e6 in lowest terms is 2000/249 (gcd 5·10⁶): 249 cycles are
// 2000 tenths of a ns exactly, and one cycle 8.032, rounded to 8.
func TestTenthsRatio(t *testing.T) {
	require.Equal(t, int64(2000), tenths(249))
	require.Equal(t, int64(8), tenths(1))
}
