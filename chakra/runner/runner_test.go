package runner

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// fixedComm completes every collective lat cycles after its issue, and
// records the issues.
type fixedComm struct {
	k      *rtl.Kernel
	lat    rtl.Cycle
	issued []string
	never  bool // never completes
}

func (c *fixedComm) Issue(now rtl.Cycle, x Collective, done func(now rtl.Cycle)) error {
	c.issued = append(c.issued, fmt.Sprintf("%d:%s:%d:%v", now, x.Type, x.Bytes, x.Groups))
	if !c.never {
		c.k.Schedule(now+c.lat, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { done(now) }), 0, 0)
	}
	return nil
}

// comp is a compute node of d ns (read as Nanos) after deps.
func comp(id, d uint64, deps ...uint64) chakra.Node {
	return chakra.Node{ID: id, Name: fmt.Sprintf("c%d", id), Type: chakra.CompNode, DurationMicros: d, DataDeps: deps}
}

// coll is an all-reduce of b bytes on process group pg ("" every NPU)
// after deps.
func coll(id uint64, b int64, pg string, deps ...uint64) chakra.Node {
	n := chakra.Node{ID: id, Name: fmt.Sprintf("ar%d", id), Type: chakra.CommCollNode, DataDeps: deps,
		Attrs: []chakra.Attr{chakra.IntAttr("comm_type", int64(chakra.AllReduce)), chakra.IntAttr("comm_size", b)}}
	if pg != "" {
		n.Attrs = append(n.Attrs, chakra.StringAttr("pg_name", pg))
	}
	return n
}

// named is n named name.
func named(n chakra.Node, name string) chakra.Node {
	n.Name = name
	return n
}

func set(ranks ...[]chakra.Node) *chakra.Set {
	s := &chakra.Set{Name: "toy"}
	for r, nodes := range ranks {
		s.Ranks = append(s.Ranks, &chakra.Trace{Name: fmt.Sprintf("toy.%d.et", r), Nodes: nodes})
	}
	return s
}

// runToy runs s on the whole NPU under Partition (a pass of t ns takes
// ⌈t × 249/200⌉ cycles: docs/astrasim-workloads.md, "Converting the
// times", at the ridge, nothing taken away), collectives taking lat.
func runToy(t *testing.T, s *chakra.Set, lat rtl.Cycle, groups map[string][]int) (*Result, *fixedComm, error) {
	t.Helper()
	k := rtl.NewKernel()
	c := &fixedComm{k: k, lat: lat}
	res, err := Run(k, s, Config{Units: Nanos, Groups: groups, Train: train.Config{Compute: npu.FullNPU(), Policy: contend.Partition}}, c)
	return res, c, err
}

func TestTwoRankTimelines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lat      rtl.Cycle // each collective's
		set      *chakra.Set
		groups   map[string][]int
		end      rtl.Cycle
		ends     []rtl.Cycle
		compute  []int64
		critical int
		issued   []string
	}{
		{
			// Rank 0: c0 1000 ns = 1245 cycles, rank 1: c0 400 ns = 498.
			// The all-reduce starts when the later rank reaches it, 1245,
			// and ends at 1245 + 100 = 1345; c1 (200 ns = 249) follows on
			// both: 1345 + 249 = 1594. Rank 0 computed 1245 + 249 = 1494,
			// rank 1 498 + 249 = 747; both end at 1594, rank 0 is the
			// critical one (the lowest).
			name:    "a collective waits for its last rank",
			lat:     100,
			set:     set([]chakra.Node{comp(0, 1000), coll(1, 64, "", 0), comp(2, 200, 1)}, []chakra.Node{comp(0, 400), coll(1, 64, "", 0), comp(2, 200, 1)}),
			end:     1594,
			ends:    []rtl.Cycle{1594, 1594},
			compute: []int64{1494, 747},
			issued:  []string{"1245:ALLREDUCE:64:[]"},
		},
		{
			// c1 depends on c0 only, so it runs under the all-reduce: on
			// both ranks c0 0–249 (200 ns), c1 249–498; the all-reduce
			// 249–1249 (1000 cycles); each rank ends with it at 1249.
			name:    "compute overlaps a collective",
			lat:     1000,
			set:     set([]chakra.Node{comp(0, 200), coll(1, 64, "", 0), comp(2, 200, 0)}, []chakra.Node{comp(0, 200), coll(1, 64, "", 0), comp(2, 200, 0)}),
			end:     1249,
			ends:    []rtl.Cycle{1249, 1249},
			compute: []int64{498, 498},
			issued:  []string{"249:ALLREDUCE:64:[]"},
		},
		{
			// Two independent nodes share one NPU, the lower id first:
			// rank 0 runs c0 (400 ns = 498) then c1 (200 ns = 249), ending
			// at 747; rank 1 only c0, ending at 498. Rank 0 is critical.
			name:    "one NPU runs compute nodes one at a time, lowest id first",
			lat:     100,
			set:     set([]chakra.Node{comp(1, 200), comp(0, 400)}, []chakra.Node{comp(0, 400)}),
			end:     747,
			ends:    []rtl.Cycle{747, 498},
			compute: []int64{747, 498},
		},
		{
			// Rank 1 is the later: c0 1000 ns (1245) against rank 0's 200
			// (249); the all-reduce 1245–1345, then nothing on rank 0
			// and c1 on rank 1 (200 ns, 249): rank 1 ends at 1594 and is
			// critical.
			name:     "the rank that ends last is critical",
			lat:      100,
			set:      set([]chakra.Node{comp(0, 200), coll(1, 64, "", 0)}, []chakra.Node{comp(0, 1000), coll(1, 64, "", 0), comp(2, 200, 1)}),
			end:      1594,
			ends:     []rtl.Cycle{1345, 1594},
			compute:  []int64{249, 1494},
			critical: 1,
			issued:   []string{"1245:ALLREDUCE:64:[]"},
		},
		{
			// A process group of both ranks is every NPU.
			name:    "a group of every rank",
			lat:     1000,
			set:     set([]chakra.Node{coll(0, 64, "7")}, []chakra.Node{coll(0, 64, "7")}),
			groups:  map[string][]int{"7": {1, 0}},
			end:     1000,
			ends:    []rtl.Cycle{1000, 1000},
			compute: []int64{0, 0},
			issued:  []string{"0:ALLREDUCE:64:[]"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, c, err := runToy(t, tc.set, tc.lat, tc.groups)
			require.NoError(t, err)
			require.Equal(t, tc.end, res.End)
			require.Equal(t, tc.critical, res.Critical)
			for r := range tc.ends {
				require.Equal(t, tc.ends[r], res.Ranks[r].End, "rank %d end", r)
				require.Equal(t, tc.compute[r], res.Ranks[r].ComputeCycles, "rank %d compute", r)
			}
			require.Equal(t, tc.issued, c.issued)
			require.Equal(t, len(tc.issued), res.Collectives)
		})
	}
}

// Four ranks in two groups of two: the groups' collectives are issued
// together, on the partition, when every rank has reached its own.
func TestProcessGroupsIssueOnTheirPartition(t *testing.T) {
	g := map[string][]int{"0": {0, 1}, "1": {2, 3}}
	s := set(
		[]chakra.Node{coll(0, 64, "0")},
		[]chakra.Node{coll(0, 64, "0")},
		[]chakra.Node{comp(0, 200), named(coll(1, 64, "1", 0), "ar0")}, // the same collective as rank 3's
		[]chakra.Node{coll(0, 64, "1")},
	)
	res, c, err := runToy(t, s, 1000, g)
	require.NoError(t, err)
	// Rank 2 reaches its all-reduce after 200 ns = 249 cycles.
	require.Equal(t, []string{"249:ALLREDUCE:64:[[0 1] [2 3]]"}, c.issued)
	require.Equal(t, rtl.Cycle(1249), res.End)
}

func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    *chakra.Set
		groups map[string][]int
		want   string
	}{
		{"cycle", set([]chakra.Node{comp(0, 10, 2), comp(1, 10, 0), comp(2, 10, 1)}), nil,
			"toy.0.et: the dependences form a cycle, so none of its nodes can ever start: node 0 (c0) → node 1 (c1) → node 2 (c2) → back to the first"},
		{"missing dependence", set([]chakra.Node{comp(0, 10, 9)}), nil, "toy.0.et: node 0 (c0): depends on node 9, which the trace does not have"},
		{"self", set([]chakra.Node{comp(0, 10, 0)}), nil, "node 0 (c0): depends on itself"},
		{"duplicate id", set([]chakra.Node{comp(0, 10), comp(0, 10)}), nil, "have the same id"},
		{"unreached", set([]chakra.Node{coll(0, 64, "")}, []chakra.Node{comp(0, 10)}), nil,
			"the run can make no progress: collective 1 on every NPU (an ALLREDUCE of 64 bytes, rank 0's node 0 (ar0)) was reached by ranks 0 and never by ranks 1"},
		{"mismatch", set([]chakra.Node{coll(0, 64, "")}, []chakra.Node{coll(0, 128, "")}), nil,
			"collective 1 on every NPU: rank 0 reaches an ALLREDUCE of 64 bytes (node 0 (ar0)), rank 1 an ALLREDUCE of 128 bytes (node 0 (ar0))"},
		{"unknown group", set([]chakra.Node{coll(0, 64, "5")}, []chakra.Node{coll(0, 64, "5")}), map[string][]int{"1": {0, 1}},
			`process group "5" is not in the communicator-group file; it lists 1`},
		{"no groups", set([]chakra.Node{coll(0, 64, "5")}, []chakra.Node{coll(0, 64, "5")}), nil, "no process groups given"},
		{"group beyond the machine", set([]chakra.Node{coll(0, 64, "5")}, []chakra.Node{coll(0, 64, "5")}), map[string][]int{"5": {0, 2}},
			`process group "5" lists rank 2, but the machine has 2 NPUs`},
		{"group not a partition", set([]chakra.Node{coll(0, 64, "a")}, []chakra.Node{}, []chakra.Node{}, []chakra.Node{}), map[string][]int{"a": {0, 1}},
			`process group "a" [0 1] does not fit the machine`},
		{"not a member", set([]chakra.Node{coll(0, 64, "a")}, []chakra.Node{}, []chakra.Node{}, []chakra.Node{}), map[string][]int{"a": {2, 3}, "b": {0, 1}},
			`a collective on process group "a" [2 3], of which rank 0 is not a member`},
		{"send", set([]chakra.Node{{ID: 0, Type: chakra.CommSendNode}}), nil, "COMM_SEND_NODE: point-to-point sends and receives are not modelled"},
		{"barrier", set([]chakra.Node{{ID: 0, Type: chakra.CommCollNode, Attrs: []chakra.Attr{chakra.IntAttr("comm_type", int64(chakra.Barrier))}}}), nil,
			"comm_type BARRIER: acemu runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER and ALL_TO_ALL"},
		{"no size", set([]chakra.Node{{ID: 0, Type: chakra.CommCollNode, Attrs: []chakra.Attr{chakra.IntAttr("comm_type", 0)}}}), nil, "no comm_size attribute"},
		{"size as a string", set([]chakra.Node{{ID: 0, Type: chakra.CommCollNode, Attrs: []chakra.Attr{chakra.IntAttr("comm_type", 0), chakra.StringAttr("comm_size", "8")}}}), nil,
			"attribute comm_size holds a string, not a whole number"},
		{"cpu", set([]chakra.Node{{ID: 0, Type: chakra.CompNode, DurationMicros: 5, Attrs: []chakra.Attr{chakra.BoolAttr("is_cpu_op", true)}}}), nil, "is_cpu_op is true"},
		{"too long", set([]chakra.Node{comp(0, 1<<62)}), nil, "beyond the 20000000000 cycles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runToy(t, tc.set, 100, tc.groups)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A Comm that never completes ends the run with the collective named,
// without hanging.
func TestCommThatNeverCompletes(t *testing.T) {
	k := rtl.NewKernel()
	c := &fixedComm{k: k, never: true}
	_, err := Run(k, set([]chakra.Node{coll(0, 64, "")}, []chakra.Node{coll(0, 64, "")}), Config{Units: Nanos, Train: train.Config{Compute: npu.FullNPU()}}, c)
	require.ErrorContains(t, err, "rank 0 has 1 of 1 nodes undone, waiting for its collectives node 0 (ar0)")
}

func TestUnits(t *testing.T) {
	n := comp(0, 3)
	w, err := workOf(&n, Micros)
	require.NoError(t, err)
	require.Equal(t, workload.Work{Cycles: 3000}, w, "3 µs is 3000 ns")
	w, err = workOf(&n, Nanos)
	require.NoError(t, err)
	require.Equal(t, workload.Work{Cycles: 3}, w)
	n.Attrs = []chakra.Attr{chakra.UintAttr("num_ops", 100), chakra.UintAttr("tensor_size", 10)}
	w, err = workOf(&n, Nanos)
	require.NoError(t, err)
	require.Equal(t, workload.Work{Cycles: 3, FLOPs: 100, Bytes: 10}, w, "the shape with the time")
	for _, s := range []string{"us", "ns", "micros"} {
		_, err := ParseUnits(s)
		require.NoError(t, err)
	}
	_, err = ParseUnits("ms")
	require.ErrorContains(t, err, `duration unit "ms"`)
}

// Random small traces (dependences that may be missing or cyclic,
// collectives that ranks may not all reach) end in a result or an error,
// never a panic or a hang; a result has every rank computing within its
// time.
func TestRandomTracesEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		ranks := 1 + rng.IntN(3)
		var nodes [][]chakra.Node
		for r := 0; r < ranks; r++ {
			var ns []chakra.Node
			for id := uint64(0); id < uint64(rng.IntN(7)); id++ {
				var deps []uint64
				for d := 0; d < rng.IntN(3); d++ {
					deps = append(deps, uint64(rng.IntN(8)))
				}
				switch rng.IntN(3) {
				case 0:
					ns = append(ns, comp(id, uint64(rng.IntN(500)), deps...))
				case 1:
					ns = append(ns, coll(id, int64(1+rng.IntN(2)), "", deps...))
				default:
					ns = append(ns, chakra.Node{ID: id, Type: chakra.MetadataNode, CtrlDeps: deps})
				}
			}
			nodes = append(nodes, ns)
		}
		res, _, err := runToy(t, set(nodes...), rtl.Cycle(1+rng.IntN(50)), nil)
		if err != nil {
			continue
		}
		for r, rk := range res.Ranks {
			require.LessOrEqual(t, rk.ComputeCycles, int64(rk.End-res.Start), "case %d rank %d", i, r)
		}
	}
}

// The deadlock of the MXNet-MPI paper's Section 2.3 (Fig. 1): a layer
// with two operators in parallel, whose gradients g2 and g3 (the same
// size) are ready in different orders on two workers, each all-reducing
// whichever is ready first on one communicator. Matched by order alone
// they would pass (the same kind and size); their names tell them apart,
// and the run stops naming both. Chained in one order on both (DepCha's
// write chain) the same trace runs.
func TestMismatchedOrderIsCaught(t *testing.T) {
	worker := func(first, second string) []chakra.Node {
		return []chakra.Node{comp(0, 10), named(coll(1, 64, "", 0), first), comp(2, 20), named(coll(3, 64, "", 2), second)}
	}
	_, _, err := runToy(t, set(worker("ar_g2", "ar_g3"), worker("ar_g3", "ar_g2")), 100, nil)
	require.ErrorContains(t, err, "collective 1 on every NPU: rank 0 reaches node 1 (ar_g2), rank 1 node 1 (ar_g3), both an ALLREDUCE of 64 bytes: the ranks of a communicator must issue the same collectives in the same order")

	_, _, err = runToy(t, set(worker("ar_g2", "ar_g3"), worker("ar_g2", "ar_g3")), 100, nil)
	require.NoError(t, err)
}
