package collectives

import (
	"fmt"
	"sort"
	"sync"

	"github.com/acemu/acemu/machine"
)

// Pipelined tree all-reduce (the C-Cube paper, Section III, Fig. 5(a)/(c); NCCL's
// double binary tree).
//
// # The tree
//
// The tree over the P NPUs is NCCL's in-order binary tree (ncclGetBtree) on
// NPU ids: NPU 0 is the root and has a single child, the largest power of
// two below P; an NPU r > 0 whose lowest set bit is b has the parent
// (r XOR b) OR 2b (or r XOR b when that is not below P) and the children
// r - b/2 and r + b/2 (the latter, when it is not below P, replaced by
// r + b/4, r + b/8, … or left out). Odd ids are the leaves, even ids are
// interior. Examples:
//
//	P = 4: 0 → 2 → {1, 3}                        depth D = 2
//	P = 8: 0 → 4 → {2, 6}, 2 → {1, 3}, 6 → {5, 7}  depth D = 3
//
// The depth is ceil(log2 P) for P ≥ 2. Tree neighbours need not be torus
// neighbours, so every message is routed (Port = RouteXYZ; dimension-order
// routing takes the direct link when they are neighbours).
//
// # Double tree
//
// The second tree is NCCL's (ncclGetDtree): for even P the first tree
// mirrored, NPU r playing the part of NPU P-1-r (root P-1); for odd P the
// first tree shifted, NPU r playing the part of NPU r-1 mod P (root 1).
// Mirroring swaps odd and even ids, so for even P the interior NPUs of one
// tree (the even, resp. odd, ids) are exactly the leaves of the other, and a
// tree edge used by both trees is used in opposite directions (Sanders et
// al.'s two-tree). For odd P the shift makes the odd ids and NPU 0 interior
// in the second tree: NPU 0 is interior in both, every other NPU in exactly
// one. No edge is used the same way by both trees, except for P = 3, where
// both trees hold 0 → 2 (checked for P up to 4096), so the trees never
// compete for a directed channel but there. The chunk is cut into pieces
// and the trees take every other piece, the first tree pieces 0, 2, 4, …,
// the second 1, 3, 5, … [choice, docs/collectives.md]: each carries half
// the chunk, and the pieces come back in the order of the buffer, both
// trees at once, as gradient queuing consumes them (the C-Cube paper,
// Section III-D: in-order delivery is what lets a layer's computation
// start on its gradients); halves would hold the second half's pieces
// until the first tree's half is back.
//
// # Schedule
//
// The chunk is cut into T·K pieces of near-equal size (as split does), T
// the trees and K = ceil(ceil(len/T)/MessageBytes), so each tree has K
// pieces of at most a message. Up: an NPU sends piece k to its
// parent once it has received and added piece k from every child (Reduce
// receives); its up-sends go in piece order, one after another. The root
// starts the broadcast when every piece is reduced (tree, one barrier) or
// piece by piece as each is reduced (tree-overlapped, C-Cube's C1). Down: an
// NPU stores piece k from its parent and forwards it to each child; sends on
// each link go in piece order. In dependences:
//
//   - up-send of piece k: the receives of piece k from every child, and the
//     up-send of piece k-1;
//   - down-send of piece k to child c: the receive of piece k from the
//     parent, or at the root the receives of piece k (overlapped) or of the
//     last piece (conventional) from every child; and the down-send of piece
//     k-1 to c;
//   - conventional root only: its receive of piece k from child c depends on
//     its receive of piece k-1 from c, so "the receives of the last piece
//     are done" means "every piece is reduced" without listing K×children
//     dependences on one op.
//
// Op.Step is the 0-based step in which the op's message crosses its
// NPU-to-NPU channel in the tree's as-soon-as-possible schedule, one message
// per directed channel per step, a message usable from the next step (a
// receive has the step of its send). Program.Steps is the number of steps:
// 2(D+K-1) for tree and double-tree (each tree: D+K-1 up, D+K-1 down),
// 2D+K-1 for tree-overlapped. For a double tree each tree is scheduled on
// its own; where the two trees want a directed channel in the same step
// (P = 3, or halves with different K whose up and down traffic meet) a
// run takes longer than Program.Steps.
//
// Ops are listed by step (receives before sends within a step), so every
// dependence points to an earlier op.

// ReduceTree is a rooted tree over the NPU ids 0..P-1.
type ReduceTree struct {
	Root int
	// Parent[n] is n's parent; -1 for the root.
	Parent []int
	// Children[n] lists n's children in order (at most two).
	Children [][]int
}

// Depth returns the largest number of hops from the root to a node.
func (t ReduceTree) Depth() int {
	depth := 0
	for _, n := range t.order() {
		d := 0
		for x := n; x != t.Root; x = t.Parent[x] {
			d++
		}
		depth = max(depth, d)
	}
	return depth
}

// order lists the nodes breadth first from the root: parents before children.
func (t ReduceTree) order() []int {
	out := []int{t.Root}
	for i := 0; i < len(out); i++ {
		out = append(out, t.Children[out[i]]...)
	}
	return out
}

// ncclBtree returns rank's parent and children in NCCL's binary tree over p
// ranks (ncclGetBtree).
func ncclBtree(p, rank int) (up int, down []int) {
	bit := 1
	for bit < p && bit&rank == 0 {
		bit <<= 1
	}
	if rank == 0 {
		if p > 1 {
			return -1, []int{bit >> 1}
		}
		return -1, nil
	}
	up = (rank ^ bit) | (bit << 1)
	if up >= p {
		up = rank ^ bit
	}
	lowbit := bit >> 1
	if lowbit == 0 {
		return up, nil
	}
	down = []int{rank - lowbit}
	for lb := lowbit; lb > 0; lb >>= 1 {
		if rank+lb < p {
			down = append(down, rank+lb)
			break
		}
	}
	return up, down
}

// NCCLBinaryTree returns NCCL's in-order binary tree over p NPUs, rooted at
// NPU 0 (see the comment at the top of tree.go).
func NCCLBinaryTree(p int) ReduceTree {
	t := ReduceTree{Root: 0, Parent: make([]int, p), Children: make([][]int, p)}
	for r := 0; r < p; r++ {
		t.Parent[r], t.Children[r] = ncclBtree(p, r)
	}
	return t
}

// relabel returns the tree in which NPU f(x) plays the part of NPU x.
func (t ReduceTree) relabel(f func(int) int) ReduceTree {
	p := len(t.Parent)
	out := ReduceTree{Root: f(t.Root), Parent: make([]int, p), Children: make([][]int, p)}
	for x := 0; x < p; x++ {
		n := f(x)
		out.Parent[n] = -1
		if t.Parent[x] >= 0 {
			out.Parent[n] = f(t.Parent[x])
		}
		for _, c := range t.Children[x] {
			out.Children[n] = append(out.Children[n], f(c))
		}
	}
	return out
}

// NCCLDoubleTree returns NCCL's two trees over p NPUs: the binary tree and
// its mirror (even p) or shift by one (odd p).
func NCCLDoubleTree(p int) (ReduceTree, ReduceTree) {
	t := NCCLBinaryTree(p)
	if p%2 == 0 {
		return t, t.relabel(func(x int) int { return p - 1 - x })
	}
	return t, t.relabel(func(x int) int { return (x + 1) % p })
}

// treeSchedule is a tree's as-soon-as-possible step schedule (0-based
// steps): up[n][k] is the step in which n sends piece k to its parent,
// down[n][k] the step in which n's parent sends piece k to n.
type treeSchedule struct {
	up, down [][]int32
	steps    int
}

func scheduleTree(t ReduceTree, k int, overlapped bool) treeSchedule {
	p := len(t.Parent)
	s := treeSchedule{up: make([][]int32, p), down: make([][]int32, p)}
	order := t.order()
	// avail[n][j]: first step in which n holds its final piece j (root) or
	// the broadcast piece j (others) and can send it down.
	avail := make([][]int32, p)
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		ready := make([]int32, k)
		for j := 0; j < k; j++ {
			for _, c := range t.Children[n] {
				ready[j] = max(ready[j], s.up[c][j]+1)
			}
		}
		if n == t.Root {
			avail[n] = ready
			if !overlapped {
				last := int32(0)
				for _, r := range ready {
					last = max(last, r)
				}
				for j := range ready {
					ready[j] = last
				}
			}
			continue
		}
		for j := 1; j < k; j++ {
			ready[j] = max(ready[j], ready[j-1]+1)
		}
		s.up[n] = ready
	}
	for _, n := range order[1:] {
		par := t.Parent[n]
		down := make([]int32, k)
		av := make([]int32, k)
		for j := 0; j < k; j++ {
			down[j] = avail[par][j]
			if j > 0 {
				down[j] = max(down[j], down[j-1]+1)
			}
			av[j] = down[j] + 1
		}
		s.down[n], avail[n] = down, av
	}
	for n := 0; n < p; n++ {
		for _, st := range s.up[n] {
			s.steps = max(s.steps, int(st)+1)
		}
		for _, st := range s.down[n] {
			s.steps = max(s.steps, int(st)+1)
		}
	}
	return s
}

// treeAllReduce is the tree, tree-overlapped and double-tree all-reduce.
type treeAllReduce struct {
	cfg        Config
	phase      string
	trees      []ReduceTree
	ports      []treePorts // per tree, where the machine's own trees are embedded; nil: every message routed
	overlapped bool

	mu    sync.Mutex
	cache map[int64][]*Program // every NPU's program, by chunk length
}

func newTreeAllReduce(cfg Config, name, phase string, double, overlapped bool) (*treeAllReduce, error) {
	a := &treeAllReduce{cfg: cfg, phase: phase, overlapped: overlapped, cache: map[int64][]*Program{}}
	p := cfg.Machine.N()
	want := 1
	if double {
		want = 2
	}
	switch own := cfg.Machine.Trees; {
	case len(own) >= want:
		for _, parent := range own[:want] {
			a.trees = append(a.trees, treeOf(parent))
		}
		a.ports = embedTrees(cfg.Machine, a.trees)
	case len(own) > 0:
		return nil, fmt.Errorf("algorithm %s embeds %d trees; machine %s declares %d (trees:), give it %d or run tree or tree-overlapped", name, want, cfg.Machine, len(own), want)
	case double:
		t1, t2 := NCCLDoubleTree(p)
		a.trees = []ReduceTree{t1, t2}
	default:
		a.trees = []ReduceTree{NCCLBinaryTree(p)}
	}
	return a, nil
}

// treeOf is the tree of a parent array (-1 for the root), each NPU's
// children in id order.
func treeOf(parent []int) ReduceTree {
	t := ReduceTree{Parent: append([]int(nil), parent...), Children: make([][]int, len(parent))}
	for n, par := range parent {
		if par < 0 {
			t.Root = n
			continue
		}
		t.Children[par] = append(t.Children[par], n)
	}
	return t
}

// treePorts are the ports a tree's sends leave by where the machine's own
// trees are embedded: up[n] is n's port to its parent, down[c] c's
// parent's port to c; RouteXYZ where the two are not neighbours.
type treePorts struct{ up, down []int8 }

// embedTrees chooses the links a machine's trees send on [choice,
// docs/collectives.md "Trees embedded in a machine"]. A tree edge
// between neighbours goes straight over one of the links joining them (a
// lane); an edge between NPUs that are not is routed (the machine's
// routing: on dgx1, a detour through the GPU the routing table names),
// and the links its messages cross, both ways, are taken first. Then the
// trees in order, their edges from the root down, each way (up, then
// down), each take the first lane from sender to receiver not taken yet,
// or the first lane when every one is: so where a pair of NPUs has links
// enough, no link carries two tree edges (dgx1's double tree: docs/topology.md).
func embedTrees(m *machine.Machine, trees []ReduceTree) []treePorts {
	out := make([]treePorts, len(trees))
	for i, t := range trees {
		out[i] = treePorts{up: make([]int8, len(t.Parent)), down: make([]int8, len(t.Parent))}
		for n := range t.Parent {
			out[i].up[n], out[i].down[n] = RouteXYZ, RouteXYZ
		}
	}
	ln, ok := m.Ports.(machine.Lanes)
	if !ok {
		return out
	}
	lanes := ln.PortsTo
	type hop struct{ npu, port int }
	taken := map[hop]bool{}
	for _, t := range trees {
		for c, par := range t.Parent {
			if par < 0 || len(lanes(c, par)) > 0 {
				continue
			}
			for _, e := range [][2]int{{c, par}, {par, c}} {
				for cur := e[0]; cur != e[1]; {
					port, ok := m.Topology.NextPort(cur, e[1])
					if !ok {
						break
					}
					taken[hop{cur, port}] = true
					nb, ok, _ := m.Ports.Neighbor(cur, port)
					if !ok { // a switch: the rest of the route is not an NPU's
						break
					}
					cur = nb
				}
			}
		}
	}
	pick := func(a, b int) int8 {
		ls := lanes(a, b)
		if len(ls) == 0 {
			return RouteXYZ
		}
		for _, l := range ls {
			if !taken[hop{a, l}] {
				taken[hop{a, l}] = true
				return int8(l)
			}
		}
		return int8(ls[0])
	}
	for i, t := range trees {
		for _, c := range t.order()[1:] {
			par := t.Parent[c]
			out[i].up[c] = pick(c, par)
			out[i].down[c] = pick(par, c)
		}
	}
	return out
}

// Phases names the single phase.
func (a *treeAllReduce) Phases() []string { return []string{a.phase} }

// Input: every NPU starts with the whole chunk.
func (a *treeAllReduce) Input(int, int64) []Range { return nil }

// Output: every NPU ends with the whole chunk.
func (a *treeAllReduce) Output(int, int64) []Range { return nil }

// Build returns npu's program for a chunk of chunkLen bytes. The programs
// of all NPUs are built together (sends must name their receive's index in
// the peer's program) and cached by chunk length; the caller gets its own
// copy.
func (a *treeAllReduce) Build(npu int, chunkLen int64) ([]*Program, error) {
	if npu < 0 || npu >= a.cfg.Machine.N() {
		return nil, fmt.Errorf("NPU %d out of range [0,%d)", npu, a.cfg.Machine.N())
	}
	if chunkLen < 0 {
		return nil, fmt.Errorf("chunk of %d bytes", chunkLen)
	}
	a.mu.Lock()
	progs, ok := a.cache[chunkLen]
	if !ok {
		progs = a.buildAll(chunkLen)
		a.cache[chunkLen] = progs
	}
	a.mu.Unlock()
	src := progs[npu]
	cp := *src
	cp.View = append([]Range(nil), src.View...)
	cp.Out = append([]Range(nil), src.Out...)
	cp.Ops = make([]Op, len(src.Ops))
	for i, op := range src.Ops {
		op.Deps = append([]int32(nil), op.Deps...)
		cp.Ops[i] = op
	}
	return []*Program{&cp}, nil
}

// treeOps collects every NPU's ops before they are sorted by step; Deps and
// Match are indices into these unsorted lists, and so are finals' ops.
type treeOps struct {
	ops    [][]Op
	finals [][]Final // per NPU, each piece's: final once these ops are done
}

func (o treeOps) add(npu int, op Op) int32 {
	o.ops[npu] = append(o.ops[npu], op)
	return int32(len(o.ops[npu]) - 1)
}

func (a *treeAllReduce) buildAll(chunkLen int64) []*Program {
	p := a.cfg.Machine.N()
	ops := treeOps{ops: make([][]Op, p), finals: make([][]Final, p)}
	steps := 0
	if p > 1 {
		// Each tree takes every other piece: K pieces a tree, as many as
		// its share of the chunk needs messages.
		n := int64(len(a.trees))
		share := (chunkLen + n - 1) / n
		k := max(1, (share+a.cfg.MessageBytes-1)/a.cfg.MessageBytes)
		pieces := split(0, chunkLen, int(n*k))
		for ti, t := range a.trees {
			var mine []Range
			for j := ti; j < len(pieces); j += len(a.trees) {
				if pieces[j].Len > 0 {
					mine = append(mine, pieces[j])
				}
			}
			if len(mine) > 0 {
				steps = max(steps, a.addTree(ops, ti, t, mine))
			}
		}
	}
	return sortTreeOps(ops, chunkLen, steps)
}

// addTree appends one tree's ops for the given pieces and returns its steps.
func (a *treeAllReduce) addTree(ops treeOps, ti int, t ReduceTree, pieces []Range) int {
	p := len(t.Parent)
	k := len(pieces)
	s := scheduleTree(t, k, a.overlapped)
	port := int8(RouteXYZ)
	up, down := func(int) int8 { return RouteXYZ }, func(int) int8 { return RouteXYZ }
	if a.ports != nil {
		up = func(n int) int8 { return a.ports[ti].up[n] }
		down = func(c int) int8 { return a.ports[ti].down[c] }
	}
	conventional := !a.overlapped
	root := t.Root
	rootKids := t.Children[root]

	// Up: for each piece, every parent's receives, then every child's send.
	upRecv := make([]int32, p) // upRecv[c]: c's parent's receive from c, this piece
	lastUp := make([]int32, p) // lastUp[n]: n's up-send of the previous piece
	rootRecv := make([][]int32, len(rootKids))
	for i := range rootRecv {
		rootRecv[i] = make([]int32, k)
	}
	for j, pc := range pieces {
		for n := 0; n < p; n++ {
			for ci, c := range t.Children[n] {
				op := Op{Kind: Recv, Peer: int32(c), Port: port, Reduce: true, Data: pc, Step: s.up[c][j]}
				if n == root && conventional && j > 0 {
					op.Deps = []int32{rootRecv[ci][j-1]}
				}
				upRecv[c] = ops.add(n, op)
				if n == root {
					rootRecv[ci][j] = upRecv[c]
				}
			}
		}
		for n := 0; n < p; n++ {
			if n == root {
				continue
			}
			var deps []int32
			for _, c := range t.Children[n] {
				deps = append(deps, upRecv[c])
			}
			if j > 0 {
				deps = append(deps, lastUp[n])
			}
			lastUp[n] = ops.add(n, Op{Kind: Send, Peer: int32(t.Parent[n]), Port: up(n), Match: upRecv[n],
				Data: pc, Deps: deps, Step: s.up[n][j]})
		}
	}

	// A piece is final at the root once it has added it from every child,
	// elsewhere once it has stored it from its parent.
	for j, pc := range pieces {
		f := Final{Data: pc}
		for ci := range rootKids {
			f.Ops = append(f.Ops, rootRecv[ci][j])
		}
		ops.finals[root] = append(ops.finals[root], f)
	}

	// Down: for each piece, every non-root's receive, then every parent's
	// sends to its children.
	downRecv := make([]int32, p) // downRecv[n]: n's receive from its parent, this piece
	lastDown := make([]int32, p) // lastDown[c]: c's parent's send to c, previous piece
	for j, pc := range pieces {
		for n := 0; n < p; n++ {
			if n != root {
				downRecv[n] = ops.add(n, Op{Kind: Recv, Peer: int32(t.Parent[n]), Port: port, Data: pc, Step: s.down[n][j]})
				ops.finals[n] = append(ops.finals[n], Final{Data: pc, Ops: []int32{downRecv[n]}})
			}
		}
		for n := 0; n < p; n++ {
			var base []int32
			switch {
			case n != root:
				base = []int32{downRecv[n]}
			case conventional:
				for ci := range rootKids {
					base = append(base, rootRecv[ci][k-1])
				}
			default:
				for ci := range rootKids {
					base = append(base, rootRecv[ci][j])
				}
			}
			for _, c := range t.Children[n] {
				deps := append([]int32(nil), base...)
				if j > 0 {
					deps = append(deps, lastDown[c])
				}
				lastDown[c] = ops.add(n, Op{Kind: Send, Peer: int32(c), Port: down(c), Match: downRecv[c],
					Data: pc, Deps: deps, Step: s.down[c][j]})
			}
		}
	}
	return s.steps
}

// sortTreeOps orders each NPU's ops by step, receives first within a step,
// and renumbers Deps and Match.
func sortTreeOps(all treeOps, chunkLen int64, steps int) []*Program {
	ops := all.ops
	p := len(ops)
	perm := make([][]int, p)    // perm[n][new] = old
	index := make([][]int32, p) // index[n][old] = new
	for n := range ops {
		perm[n] = make([]int, len(ops[n]))
		for i := range perm[n] {
			perm[n][i] = i
		}
		list := ops[n]
		sort.SliceStable(perm[n], func(a, b int) bool {
			x, y := &list[perm[n][a]], &list[perm[n][b]]
			if x.Step != y.Step {
				return x.Step < y.Step
			}
			return x.Kind == Recv && y.Kind == Send
		})
		index[n] = make([]int32, len(list))
		for nw, old := range perm[n] {
			index[n][old] = int32(nw)
		}
	}
	out := make([]*Program, p)
	for n := range ops {
		prog := &Program{NPU: n, View: []Range{{0, chunkLen}}, Out: []Range{{0, chunkLen}}, Steps: steps}
		prog.Ops = make([]Op, len(ops[n]))
		for nw, old := range perm[n] {
			op := ops[n][old]
			for i, d := range op.Deps {
				op.Deps[i] = index[n][d]
			}
			if op.Kind == Send {
				op.Match = index[op.Peer][op.Match]
			}
			prog.Ops[nw] = op
		}
		for _, f := range all.finals[n] {
			for i, o := range f.Ops {
				f.Ops[i] = index[n][o]
			}
			prog.Finals = append(prog.Finals, f)
		}
		sort.SliceStable(prog.Finals, func(a, b int) bool { return prog.Finals[a].Data.Off < prog.Finals[b].Data.Off })
		out[n] = prog
	}
	return out
}

func init() {
	allReduce := []CollectiveOp{OpAllReduce}
	for _, r := range []struct {
		name, help, phase  string
		double, overlapped bool
	}{
		{"tree", "pipelined binary-tree all-reduce over all NPUs (NCCL's tree, root 0, or the machine's first tree: dgx1's is the C-Cube paper's): pieces reduce up the tree, the root broadcasts once every piece is reduced (C-Cube's conventional tree)",
			"all-reduce on a binary tree", false, false},
		{"tree-overlapped", "pipelined binary-tree all-reduce whose root broadcasts each piece as soon as it is reduced (C-Cube's overlapped tree)",
			"all-reduce on a binary tree, broadcast overlapped with reduction", false, true},
		{"double-tree", "two binary trees (NCCL's double tree: the second mirrored or shifted so interior NPUs of one are leaves of the other; or the machine's two trees: dgx1's are the C-Cube paper's), each all-reducing every other piece of the chunk with the conventional schedule (C-Cube's B)",
			"all-reduce on two binary trees, every other piece each", true, false},
		{"double-tree-overlapped", "the double tree with each tree's broadcast overlapped with its reduction (C-Cube's C1 on the DGX-1, its trees on parallel links)",
			"all-reduce on two binary trees, every other piece each, broadcast overlapped with reduction", true, true},
	} {
		Register(r.name, allReduce, r.help, func(cfg Config) (Algorithm, error) {
			return newTreeAllReduce(cfg, r.name, r.phase, r.double, r.overlapped)
		})
	}
}
