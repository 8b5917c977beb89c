// Package runner executes a Chakra execution trace (package chakra) on
// acemu's machine: every rank's graph of compute and communication nodes
// on its own NPU, a node starting when its dependences are done, compute
// timed by the training loop's rules on that NPU (train.Timer,
// contend.NPU) and each collective issued to the AFI once every rank of
// its process group has reached it (docs/chakra.md).
package runner

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// Units is how a node's duration_micros is read [choice, docs/chakra.md
// "Time"].
type Units int

const (
	// Micros reads it as its name says, microseconds (ASTRA-sim 2.x's
	// replay multiplies it by 1000 into nanoseconds).
	Micros Units = iota
	// Nanos reads it as nanoseconds: what Chakra's converter from
	// ASTRA-sim text workloads writes there (the text file's numbers
	// unchanged), and what acemu's generator writes.
	Nanos
)

// String names the reading as --chakra-time spells it.
func (u Units) String() string {
	if u == Nanos {
		return "ns"
	}
	return "us"
}

// ParseUnits reads a reading's name: us (micros) or ns.
func ParseUnits(s string) (Units, error) {
	switch strings.ToLower(s) {
	case "us", "micros", "µs":
		return Micros, nil
	case "ns", "nanos":
		return Nanos, nil
	}
	return 0, fmt.Errorf("duration unit %q: us (duration_micros as microseconds, as ASTRA-sim 2.x reads it) or ns (as nanoseconds, as Chakra's converter from ASTRA-sim text files writes it)", s)
}

// Collective is one collective the runner issues: its type and size per
// NPU as the trace gives them (comm_size), and its communicator: nil for
// every NPU, else a partition of the NPUs into equally large groups
// (afi.IssueOptions.Groups).
type Collective struct {
	Type   workload.CommType
	Bytes  int64
	Groups [][]int
}

// Comm runs collectives: Issue starts one at now; done is called from a
// kernel event when it has completed on every NPU of its communicator,
// once.
type Comm interface {
	Issue(now rtl.Cycle, c Collective, done func(now rtl.Cycle)) error
}

// Config is how a trace runs.
type Config struct {
	// Units is how duration_micros is read.
	Units Units
	// Train gives compute's resources and timing rules (Compute,
	// MemBoundShare, ComputeSpeed, Policy, Observer); its Comm is
	// replaced by Side's per rank.
	Train train.Config
	// Side, when set, is communication's side of rank r's NPU under
	// contend.Share (endpoint.Endpoint.SideOf); nil: Train.Comm for
	// every rank.
	Side func(rank int) contend.Comm
	// Groups maps process-group names (pg_name) to their ranks
	// (LoadGroups); nil when the trace names none.
	Groups map[string][]int
}

// Rank is one rank's account of a run.
type Rank struct {
	// End is when its last node completed.
	End rtl.Cycle
	// ComputeCycles is the cycles its NPU ran compute nodes.
	ComputeCycles int64
	// Nodes is its nodes, of which Compute ran on its NPU and
	// Collectives were issued to the AFI.
	Nodes, Compute, Collectives int
}

// Result is a run's account.
type Result struct {
	Start, End rtl.Cycle
	Ranks      []Rank
	// Critical is the rank that ended last (the lowest of those ending
	// together), whose compute the comparator reports.
	Critical int
	// Collectives and CollectiveBytes count the collectives issued to
	// the AFI (one per matched set of nodes) and their bytes per NPU;
	// ByType splits them.
	Collectives     int
	CollectiveBytes int64
	ByType          map[workload.CommType]train.CommStats
}

// nodeKind is what a node does in a run.
type nodeKind uint8

const (
	kNothing nodeKind = iota // metadata, invalid, or compute of no time: done when ready
	kCompute
	kColl
)

type node struct {
	n        *chakra.Node
	kind     nodeKind
	kernel   contend.Kernel
	children []int32
	deps     int32 // left
	// a collective's
	part  *partition
	coll  Collective
	seq   int // its place among the rank's collectives on its partition
	ready bool
	done  bool
}

type rank struct {
	r       int
	nodes   []node
	npu     *contend.NPU
	queue   []int32    // compute nodes ready, a heap by id (readyQueue)
	ready   readyQueue // the heap's view of queue, made once (not an allocation per push and pop)
	running int32      // -1: none
	at      rtl.Cycle
	left    int
	res     Rank
	comms   int // collectives in flight
	seqs    map[*partition]int
}

// instance is the k-th collective on a partition: the node each rank
// that reached it has there.
type instance struct {
	reached []int32 // per rank: node index, -1 not yet
	count   int
	issued  bool
}

type run struct {
	k      *rtl.Kernel
	comm   Comm
	ranks  []*rank
	insts  map[*partition][]*instance
	parts  map[string]*partition
	res    Result
	err    error
	queued []doneAt // nodes done, to be handled
	busy   int      // ranks with nodes left
	// kernels holds the kernel of each work, made once for every node of
	// that work.
	kernels map[workload.Work]contend.Kernel
}

type doneAt struct {
	r, i int
}

// Run runs the trace set s on kernel k, the collectives through comm, and
// returns its account. It fails before running on a trace it cannot run
// (a cycle, a dependence on a missing node, a node type or collective
// acemu does not model, a process group that does not fit the machine),
// and, without hanging, on a run that can make no progress (a collective
// some ranks of its group never reach).
func Run(k *rtl.Kernel, s *chakra.Set, cfg Config, comm Comm) (res *Result, err error) {
	defer rtl.RecoverOverflow(&err)
	if k == nil || s == nil || comm == nil {
		return nil, errors.New("chakra: Run needs a kernel, a trace and a Comm")
	}
	timer, err := train.NewTimer(1e9, cfg.Train)
	if err != nil {
		return nil, err
	}
	rn := &run{k: k, comm: comm, insts: map[*partition][]*instance{}, kernels: map[workload.Work]contend.Kernel{}}
	if rn.parts, err = partitions(len(s.Ranks), usedGroups(s), cfg.Groups); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	for r, t := range s.Ranks {
		rk, err := rn.build(r, t, timer, cfg)
		if err != nil {
			return nil, err
		}
		tc := contend.Config{Policy: cfg.Train.Policy, Compute: cfg.Train.Compute, Comm: cfg.Train.Comm, Observer: cfg.Train.Observer}
		if cfg.Side != nil {
			tc.Comm = cfg.Side(r)
		}
		if rk.npu, err = contend.New(k, tc); err != nil {
			return nil, fmt.Errorf("rank %d: %w", r, err)
		}
		rn.ranks = append(rn.ranks, rk)
	}
	rn.res = Result{Start: k.Now(), Ranks: make([]Rank, len(s.Ranks)), ByType: map[workload.CommType]train.CommStats{}}
	for _, rk := range rn.ranks {
		if rk.left > 0 {
			rn.busy++
		}
	}
	now := k.Now()
	for _, rk := range rn.ranks { // the nodes with no dependences, rank by rank, in file order
		for i := range rk.nodes {
			if rk.nodes[i].deps == 0 {
				rn.ready(rk, i, now)
			}
		}
		rn.drain(now)
		rn.start(rk, now)
	}
	k.Run()
	if rn.err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, rn.err)
	}
	if err := k.StallError(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%v", s.Name, err, rn.stuck())
	}
	if err := rn.stuck(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	rn.res.End = rn.res.Start
	for i, rk := range rn.ranks {
		rn.res.Ranks[i] = rk.res
		if rk.res.End > rn.res.End {
			rn.res.End, rn.res.Critical = rk.res.End, i
		}
	}
	return &rn.res, nil
}

// Check refuses, before any run, a trace set that Run would refuse
// before running (its structure: node types, collectives, dependences,
// cycles, process groups; its compute timed on the whole NPU), so that a
// caller running it on several systems says so once.
func Check(s *chakra.Set, cfg Config) error {
	cfg.Train.Compute, cfg.Train.MemBoundShare, cfg.Train.ComputeSpeed = npu.FullNPU(), nil, nil
	timer, err := train.NewTimer(1e9, cfg.Train)
	if err != nil {
		return err
	}
	rn := &run{kernels: map[workload.Work]contend.Kernel{}}
	if rn.parts, err = partitions(len(s.Ranks), usedGroups(s), cfg.Groups); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	for r, t := range s.Ranks {
		if _, err := rn.build(r, t, timer, cfg); err != nil {
			return err
		}
	}
	return nil
}

// usedGroups lists the process groups the set's collectives name, once
// each, sorted ("" for every NPU).
func usedGroups(s *chakra.Set) []string {
	var used []string
	for _, t := range s.Ranks {
		for i := range t.Nodes {
			if t.Nodes[i].Type == chakra.CommCollNode {
				if pg, _, err := t.Nodes[i].Text("pg_name"); err == nil {
					used = append(used, pg)
				}
			}
		}
	}
	slices.Sort(used)
	return slices.Compact(used)
}

// nodeName names a node for messages: its id and name.
func nodeName(n *chakra.Node) string {
	if n.Name == "" {
		return fmt.Sprintf("node %d", n.ID)
	}
	return fmt.Sprintf("node %d (%s)", n.ID, n.Name)
}

// build checks rank r's trace and makes its graph.
func (rn *run) build(r int, t *chakra.Trace, timer train.Timer, cfg Config) (*rank, error) {
	rk := &rank{r: r, nodes: make([]node, len(t.Nodes)), running: -1, left: len(t.Nodes), seqs: map[*partition]int{}}
	rk.ready.rk = rk
	rk.res.Nodes = len(t.Nodes)
	at := make(map[uint64]int, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if j, dup := at[n.ID]; dup {
			return nil, fmt.Errorf("%s: %s and %s have the same id; give every node its own", t.Name, nodeName(&t.Nodes[j]), nodeName(n))
		}
		at[n.ID] = i
	}
	var total int64
	for i := range t.Nodes {
		n := &t.Nodes[i]
		nd := &rk.nodes[i]
		nd.n = n
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s: %s: %s", t.Name, nodeName(n), fmt.Sprintf(format, a...))
		}
		for _, d := range n.Deps() {
			j, ok := at[d]
			switch {
			case !ok:
				return nil, fail("depends on node %d, which the trace does not have; every data_deps and ctrl_deps entry must be a node of the same rank's file", d)
			case j == i:
				return nil, fail("depends on itself")
			}
			rk.nodes[j].children = append(rk.nodes[j].children, int32(i))
			nd.deps++
		}
		switch n.Type {
		case chakra.MetadataNode, chakra.InvalidNode:
		case chakra.CompNode:
			if cpu, _, err := n.Flag("is_cpu_op"); err != nil {
				return nil, fail("%v", err)
			} else if cpu {
				return nil, fail("is_cpu_op is true: host CPU compute is not modelled, only the NPU's (docs/chakra.md, \"Nodes\"); set it false or drop the node")
			}
			work, err := workOf(n, cfg.Units)
			if err != nil {
				return nil, fail("%v", err)
			}
			c, err := timer.Cycles(work)
			if err != nil {
				return nil, fail("%v", err)
			}
			if total += c; c > rtl.MaxCycle || total > rtl.MaxCycle {
				return nil, fail("the rank's compute reaches %d cycles, beyond the %d cycles (%s of simulated time) acemu simulates; shorten its durations (is --chakra-time right? now %s)", total, int64(rtl.MaxCycle), rtl.MaxCycleText, cfg.Units)
			}
			if c > 0 {
				kern, ok := rn.kernels[work]
				if !ok { // nodes of the same work share one kernel: the NPU only reads it
					kern = timer.Kernel(work)
					rn.kernels[work] = kern
				}
				nd.kind, nd.kernel = kCompute, kern
				rk.res.Compute++
			}
		case chakra.CommCollNode:
			c, err := collectiveOf(n)
			if err != nil {
				return nil, fail("%v", err)
			}
			pg, _, err := n.Text("pg_name")
			if err != nil {
				return nil, fail("%v", err)
			}
			nd.kind, nd.coll, nd.part = kColl, c, rn.parts[pg]
			nd.coll.Groups = nd.part.groups
			if nd.part.groups != nil && !slices.ContainsFunc(nd.part.groups[slices.IndexFunc(nd.part.names, func(s string) bool { return s == pg })], func(m int) bool { return m == r }) {
				return nil, fail("a collective on process group %q %v, of which rank %d is not a member; a rank issues collectives only on its own groups", pg, cfg.Groups[pg], r)
			}
			rk.res.Collectives++
		case chakra.CommSendNode, chakra.CommRecvNode:
			return nil, fail("%s: point-to-point sends and receives are not modelled (docs/chakra.md, \"Nodes\"); use collectives", n.Type)
		case chakra.MemLoadNode, chakra.MemStoreNode:
			return nil, fail("%s: remote memory loads and stores are not modelled (docs/chakra.md, \"Nodes\")", n.Type)
		default:
			return nil, fail("%s: not a node type of the schema (0 to 7)", n.Type)
		}
	}
	if cyc := findCycle(rk); cyc != nil {
		var names []string
		for _, i := range cyc {
			names = append(names, nodeName(&t.Nodes[i]))
		}
		return nil, fmt.Errorf("%s: the dependences form a cycle, so none of its nodes can ever start: %s → back to the first; remove one of its dependences", t.Name, strings.Join(names, " → "))
	}
	return rk, nil
}

// workOf is a compute node's work [choice, docs/chakra.md "Compute"]:
// its duration (read as cfg's units, in ns) with the shape num_ops and
// tensor_size give (FLOPs and bytes), or, with no duration, that shape as
// roofline work, as ASTRA-sim 2.x's roofline runs it.
func workOf(n *chakra.Node, u Units) (workload.Work, error) {
	var w workload.Work
	ops, hasOps, err := n.Integer("num_ops")
	if err != nil {
		return w, err
	}
	bytes, hasBytes, err := n.Integer("tensor_size")
	if err != nil {
		return w, err
	}
	if ops > math.MaxInt64 || bytes > math.MaxInt64 {
		return w, fmt.Errorf("num_ops %d or tensor_size %d beyond int64", ops, bytes)
	}
	if hasOps && hasBytes {
		w.FLOPs, w.Bytes = int64(ops), int64(bytes)
	}
	d := n.DurationMicros
	if u == Micros {
		if d > math.MaxInt64/1000 {
			return w, fmt.Errorf("duration_micros %d µs is beyond what acemu simulates", d)
		}
		d *= 1000
	}
	if d > math.MaxInt64 {
		return w, fmt.Errorf("duration_micros %d beyond int64", d)
	}
	w.Cycles = int64(d)
	return w, nil
}

// collectiveOf is a COMM_COLL_NODE's collective.
func collectiveOf(n *chakra.Node) (Collective, error) {
	var c Collective
	t, ok, err := n.Integer("comm_type")
	if err != nil {
		return c, err
	}
	if !ok {
		return c, fmt.Errorf("no comm_type attribute: a COMM_COLL_NODE names its collective (%s)", strings.Join(chakra.CollectiveNames(), ", "))
	}
	ct := chakra.CollectiveType(min(t, math.MaxInt64))
	i := slices.IndexFunc(modelled, func(m modelledType) bool { return m.c == ct })
	if i >= 0 {
		c.Type = modelled[i].t
	} else {
		return c, fmt.Errorf("comm_type %s: acemu runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER and ALL_TO_ALL (docs/collectives.md); %s is not modelled", ct, ct)
	}
	size, ok, err := n.Integer("comm_size")
	if err != nil {
		return c, err
	}
	switch {
	case !ok:
		return c, fmt.Errorf("no comm_size attribute: a collective's size in bytes per NPU")
	case size == 0:
		return c, fmt.Errorf("comm_size 0: a collective of no bytes; give its size, or drop the node")
	case size > workload.MaxCommBytes:
		return c, fmt.Errorf("comm_size %d bytes, more than %d (1 PiB), beyond any collective acemu can run", size, int64(workload.MaxCommBytes))
	}
	c.Bytes = int64(size)
	return c, nil
}

// findCycle returns the nodes of a dependence cycle of rk, in order, or
// nil when there is none.
func findCycle(rk *rank) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(rk.nodes))
	parent := make([]int, len(rk.nodes))
	type frame struct{ v, next int }
	for s := range rk.nodes {
		if color[s] != white {
			continue
		}
		stack := []frame{{s, 0}}
		color[s] = grey
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			ch := rk.nodes[f.v].children
			if f.next == len(ch) {
				color[f.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			w := int(ch[f.next])
			f.next++
			switch color[w] {
			case white:
				color[w], parent[w] = grey, f.v
				stack = append(stack, frame{w, 0})
			case grey: // w … f.v → w
				cyc := []int{f.v}
				for v := f.v; v != w; {
					v = parent[v]
					cyc = append(cyc, v)
				}
				slices.Reverse(cyc)
				return cyc
			}
		}
	}
	return nil
}

// ready handles node i of rk becoming ready at now: compute joins the
// NPU's queue, a collective is reached, anything else is done at once.
func (rn *run) ready(rk *rank, i int, now rtl.Cycle) {
	nd := &rk.nodes[i]
	nd.ready = true
	switch nd.kind {
	case kCompute:
		heap.Push(&rk.ready, int32(i))
	case kColl:
		rn.reach(rk, i, now)
	default:
		rn.queued = append(rn.queued, doneAt{rk.r, i})
	}
}

// reach records that rk reached its collective i; when every rank of the
// partition has reached its collective there of the same place, they are
// issued as one.
func (rn *run) reach(rk *rank, i int, now rtl.Cycle) {
	nd := &rk.nodes[i]
	p := nd.part
	nd.seq = rk.seqs[p]
	rk.seqs[p]++
	list := rn.insts[p]
	for len(list) <= nd.seq {
		in := &instance{reached: make([]int32, len(rn.ranks))}
		for j := range in.reached {
			in.reached[j] = -1
		}
		list = append(list, in)
	}
	rn.insts[p] = list
	in := list[nd.seq]
	in.reached[rk.r] = int32(i)
	in.count++
	if in.count < len(rn.ranks) {
		return
	}
	first := rn.ranks[0].nodes[in.reached[0]].coll
	for r, j := range in.reached {
		c := rn.ranks[r].nodes[j].coll
		if c.Type != first.Type || c.Bytes != first.Bytes {
			rn.fail(fmt.Errorf("collective %d on %s: rank 0 reaches %s of %d bytes (%s), rank %d %s of %d bytes (%s): the ranks of a communicator must issue the same collectives in the same order",
				nd.seq+1, p.describe(), article(first.Type), first.Bytes, nodeName(rn.ranks[0].nodes[in.reached[0]].n), r, article(c.Type), c.Bytes, nodeName(rn.ranks[r].nodes[j].n)))
			return
		}
	}
	lead := make([]int, max(1, len(p.groups))) // each group's first rank, + 1
	for r, j := range in.reached {
		g := p.groupOf(r)
		if lead[g] == 0 {
			lead[g] = r + 1
			continue
		}
		f := lead[g] - 1
		if a, b := rn.ranks[f].nodes[in.reached[f]].n, rn.ranks[r].nodes[j].n; a.Name != b.Name && a.Name != "" && b.Name != "" {
			rn.fail(fmt.Errorf("collective %d on %s: rank %d reaches %s, rank %d %s, both %s of %d bytes: the ranks of a communicator must issue the same collectives in the same order, and these two differ by name, so they are reached in different orders, which would deadlock or mix tensors (the MXNet-MPI paper, Section 2.3; docs/chakra.md, \"Errors\")",
				nd.seq+1, p.describe(), f, nodeName(a), r, nodeName(b), article(first.Type), first.Bytes))
			return
		}
	}
	in.issued = true
	for r := range in.reached {
		ork := rn.ranks[r]
		if ork.comms++; ork.comms == 1 {
			ork.npu.SetCommBusy(now, true)
		}
	}
	rn.res.Collectives++
	rn.res.CollectiveBytes += first.Bytes
	st := rn.res.ByType[first.Type]
	st.Count++
	st.Bytes += first.Bytes
	rn.res.ByType[first.Type] = st
	called := false
	err := rn.comm.Issue(now, first, func(now rtl.Cycle) {
		if called {
			rn.fail(fmt.Errorf("collective %d on %s (%s): completed twice", nd.seq+1, p.describe(), first.Type))
			return
		}
		called = true
		rn.k.Progress()
		for r, j := range in.reached {
			ork := rn.ranks[r]
			if ork.comms--; ork.comms == 0 {
				ork.npu.SetCommBusy(now, false)
			}
			rn.queued = append(rn.queued, doneAt{r, int(j)})
		}
		rn.drain(now)
		for _, ork := range rn.ranks {
			rn.start(ork, now)
		}
	})
	if err != nil {
		rn.fail(fmt.Errorf("rank %d %s: issue the %s of %d bytes on %s: %w", rk.r, nodeName(nd.n), first.Type, first.Bytes, p.describe(), err))
	}
}

// drain completes the nodes queued as done, and those that become done
// in turn, at now.
func (rn *run) drain(now rtl.Cycle) {
	for len(rn.queued) > 0 && rn.err == nil {
		d := rn.queued[0]
		rn.queued = rn.queued[1:]
		rk := rn.ranks[d.r]
		nd := &rk.nodes[d.i]
		nd.done = true
		rk.res.End = now
		if rk.left--; rk.left == 0 {
			if rn.busy--; rn.busy == 0 { // the run is over: later events stay scheduled, as the training loop leaves them
				rn.k.Halt()
			}
		}
		for _, c := range nd.children {
			if rk.nodes[c].deps--; rk.nodes[c].deps == 0 {
				rn.ready(rk, int(c), now)
			}
		}
	}
}

// readyQueue is rk's ready compute nodes as a heap, the lowest id on top.
type readyQueue struct{ rk *rank }

func (q *readyQueue) Len() int { return len(q.rk.queue) }
func (q *readyQueue) Less(i, j int) bool {
	return q.rk.nodes[q.rk.queue[i]].n.ID < q.rk.nodes[q.rk.queue[j]].n.ID
}
func (q *readyQueue) Swap(i, j int) { q.rk.queue[i], q.rk.queue[j] = q.rk.queue[j], q.rk.queue[i] }
func (q *readyQueue) Push(x any)    { q.rk.queue = append(q.rk.queue, x.(int32)) }
func (q *readyQueue) Pop() any {
	n := len(q.rk.queue) - 1
	x := q.rk.queue[n]
	q.rk.queue = q.rk.queue[:n]
	return x
}

// start runs rk's next compute node on its NPU if it is idle.
func (rn *run) start(rk *rank, now rtl.Cycle) {
	if rn.err != nil || rk.running >= 0 || len(rk.queue) == 0 {
		return
	}
	i := heap.Pop(&rk.ready).(int32)
	rk.running, rk.at = i, now
	if err := rk.npu.Run(now, rk.nodes[i].kernel, func(now rtl.Cycle) { rn.computed(rk, now) }); err != nil {
		rn.fail(fmt.Errorf("rank %d %s: %w", rk.r, nodeName(rk.nodes[i].n), err))
	}
}

// computed ends rk's compute node at now.
func (rn *run) computed(rk *rank, now rtl.Cycle) {
	rn.k.Progress()
	rk.res.ComputeCycles += int64(now - rk.at)
	i := rk.running
	rk.running = -1
	rn.queued = append(rn.queued, doneAt{rk.r, int(i)})
	rn.drain(now)
	rn.start(rk, now)
}

// fail records the first error and stops the kernel.
func (rn *run) fail(err error) {
	if rn.err == nil {
		rn.err = err
	}
	rn.k.Halt()
}

// stuck says why a run that ended left nodes undone: the collectives some
// ranks of their communicator reached and others did not, else what each
// rank waits for; nil when every node is done.
func (rn *run) stuck() error {
	var msgs []string
	for _, p := range slices.SortedFunc(maps.Keys(rn.insts), func(a, b *partition) int { return cmp.Compare(a.describe(), b.describe()) }) {
		for k, in := range rn.insts[p] {
			if in.issued {
				continue
			}
			var got, not []int
			var at string
			for r, j := range in.reached {
				if j < 0 {
					not = append(not, r)
				} else {
					got = append(got, r)
					if at == "" {
						nd := &rn.ranks[r].nodes[j]
						at = fmt.Sprintf("%s of %d bytes, rank %d's %s", article(nd.coll.Type), nd.coll.Bytes, r, nodeName(nd.n))
					}
				}
			}
			msgs = append(msgs, fmt.Sprintf("collective %d on %s (%s) was reached by ranks %s and never by ranks %s", k+1, p.describe(), at, ranges(got), ranges(not)))
		}
	}
	for _, rk := range rn.ranks {
		if rk.left == 0 {
			continue
		}
		var waiting []string
		for i := range rk.nodes {
			nd := &rk.nodes[i]
			if nd.kind == kColl && nd.ready && !nd.done {
				waiting = append(waiting, nodeName(nd.n))
			}
		}
		msg := fmt.Sprintf("rank %d has %d of %d nodes undone", rk.r, rk.left, len(rk.nodes))
		if len(waiting) > 0 {
			msg += ", waiting for its collectives " + strings.Join(waiting[:min(len(waiting), 5)], ", ")
		}
		msgs = append(msgs, msg)
		if len(msgs) > 20 {
			msgs = append(msgs, "…")
			break
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("the run can make no progress: %s; every rank of a communicator must reach each of its collectives, in the same order (docs/chakra.md, \"Errors\")", strings.Join(msgs, "; "))
}

// ranges writes ranks as 0-3,5.
func ranges(rs []int) string {
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
		} else {
			parts = append(parts, fmt.Sprint(rs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// CollectiveOf is the collective of a COMM_COLL_NODE, its communicator
// not yet set; nil for any other node.
func CollectiveOf(n *chakra.Node) (*Collective, error) {
	if n.Type != chakra.CommCollNode {
		return nil, nil
	}
	c, err := collectiveOf(n)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// modelledType pairs a collective of the schema acemu runs with the
// workload's kind it runs as.
type modelledType struct {
	c chakra.CollectiveType
	t workload.CommType
}

// modelled are the schema's collectives acemu runs (docs/chakra.md).
var modelled = []modelledType{
	{chakra.AllReduce, workload.CommAllReduce},
	{chakra.AllGather, workload.CommAllGather},
	{chakra.ReduceScatter, workload.CommReduceScatter},
	{chakra.AllToAll, workload.CommAllToAll},
}

// SchemaCollective is the schema's comm_type a workload's collective is
// written with; ok is false for one acemu does not run (CommNone).
func SchemaCollective(t workload.CommType) (c chakra.CollectiveType, ok bool) {
	i := slices.IndexFunc(modelled, func(m modelledType) bool { return m.t == t })
	if i < 0 {
		return 0, false
	}
	return modelled[i].c, true
}

// article is the collective's name with its article: "an ALLREDUCE".
func article(t workload.CommType) string {
	if s := t.String(); strings.HasPrefix(s, "A") {
		return "an " + s
	}
	return "a " + t.String()
}
