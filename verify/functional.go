package verify

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
)

// Values is the data of one chunk on every NPU: Values[npu][i] is the
// value of byte i of the chunk. Int64 sums are exact, so results compare
// exactly.
type Values [][]int64

// InitialValue is the value byte i of a chunk starts with on NPU npu in
// functional checks: distinct per NPU and byte, so a missed or doubled
// contribution changes the sum.
func InitialValue(npu, chunk int, i int64) int64 {
	return int64(npu+1)*1_000_003 + int64(chunk)*7919 + i
}

// RunChunk executes every phase of plan for one chunk on all NPUs, phase by
// phase, delivering messages in dependence order, starting from init, and
// returns the final values. It fails when a send has no matching receive, a
// receive gets no message or two, a dependence can never be met, or a
// message's size disagrees with its receive.
func RunChunk(plan *collectives.Plan, chunk int, init Values) (Values, error) {
	n := plan.Machine.N()
	clen := plan.ChunkLen(chunk)
	vals := make(Values, n)
	for npu := range vals {
		vals[npu] = append([]int64(nil), init[npu]...)
	}
	for ph := 0; ph < plan.NumPhases(); ph++ {
		progs := make([]*collectives.Program, n)
		for npu := 0; npu < n; npu++ {
			progs[npu] = plan.Program(npu, ph, clen)
			if err := progs[npu].Validate(); err != nil {
				return nil, fmt.Errorf("phase %d: %w", ph+1, err)
			}
		}
		if err := runPhase(progs, vals); err != nil {
			return nil, fmt.Errorf("chunk %d phase %d (%s): %w", chunk, ph+1, plan.PhaseName(ph), err)
		}
	}
	return vals, nil
}

type mail[T any] struct {
	from int32
	data []T
}

// runPhase executes one phase of every NPU to completion on values of any
// type: a send copies its range, a receive stores it or, for a reduce, calls
// combine on each element (which may refuse, e.g. a double contribution).
func runPhase(progs []*collectives.Program, vals Values) error {
	return runPhaseOf(progs, vals, func(dst *int64, src int64) error { *dst += src; return nil })
}

func runPhaseOf[T any](progs []*collectives.Program, vals [][]T, combine func(dst *T, src T) error) error {
	n := len(progs)
	done := make([][]bool, n)
	inbox := make([]map[int32]mail[T], n) // by receive op index
	for i, p := range progs {
		done[i] = make([]bool, len(p.Ops))
		inbox[i] = map[int32]mail[T]{}
	}
	depsMet := func(p *collectives.Program, d []bool, op int) bool {
		for _, x := range p.Ops[op].Deps {
			if !d[x] {
				return false
			}
		}
		return true
	}
	for progress := true; progress; {
		progress = false
		for npu, p := range progs {
			for i := range p.Ops {
				op := &p.Ops[i]
				if done[npu][i] || !depsMet(p, done[npu], i) {
					continue
				}
				switch op.Kind {
				case collectives.Send:
					peer := int(op.Peer)
					if peer < 0 || peer >= n {
						return fmt.Errorf("NPU %d op %d sends to NPU %d, which does not exist", npu, i, peer)
					}
					if int(op.Match) >= len(progs[peer].Ops) || progs[peer].Ops[op.Match].Kind != collectives.Recv {
						return fmt.Errorf("NPU %d op %d sends to NPU %d op %d, which is not a receive", npu, i, peer, op.Match)
					}
					if _, dup := inbox[peer][op.Match]; dup || done[peer][op.Match] {
						return fmt.Errorf("NPU %d op %d: NPU %d op %d receives twice", npu, i, peer, op.Match)
					}
					buf := make([]T, op.Data.Len)
					for k := range buf {
						buf[k] = vals[npu][viewIndex(p.View, op.Data.Off+int64(k))]
					}
					inbox[peer][op.Match] = mail[T]{from: int32(npu), data: buf}
				case collectives.Recv:
					m, ok := inbox[npu][int32(i)]
					if !ok {
						continue
					}
					if m.from != op.Peer {
						return fmt.Errorf("NPU %d op %d expects NPU %d but got a message from NPU %d", npu, i, op.Peer, m.from)
					}
					if int64(len(m.data)) != op.Data.Len {
						return fmt.Errorf("NPU %d op %d expects %d bytes but got %d", npu, i, op.Data.Len, len(m.data))
					}
					for k, v := range m.data {
						j := viewIndex(p.View, op.Data.Off+int64(k))
						if !op.Reduce {
							vals[npu][j] = v
						} else if err := combine(&vals[npu][j], v); err != nil {
							return fmt.Errorf("NPU %d op %d (reduce from NPU %d), chunk byte %d: %w", npu, i, op.Peer, j, err)
						}
					}
					delete(inbox[npu], int32(i))
				}
				done[npu][i] = true
				progress = true
			}
		}
	}
	for npu, p := range progs {
		for i := range p.Ops {
			if !done[npu][i] {
				return fmt.Errorf("NPU %d op %d (%s %v with NPU %d) never completes: deadlock or a missing send", npu, i, p.Ops[i].Kind, p.Ops[i].Data, p.Ops[i].Peer)
			}
		}
		if len(inbox[npu]) > 0 {
			return fmt.Errorf("NPU %d: %d messages were sent but never received", npu, len(inbox[npu]))
		}
	}
	return nil
}

// viewIndex maps an offset of a view to an index of the chunk.
func viewIndex(view []collectives.Range, off int64) int64 {
	for _, r := range view {
		if off < r.Len {
			return r.Off + off
		}
		off -= r.Len
	}
	panic("offset outside view")
}

// Poison marks bytes an NPU holds no meaningful data in (outside an
// all-gather's input): any of it reaching a result shows up.
const Poison = -1 << 62

// Expectation is what a collective must produce on one chunk: the values to
// start from and, per NPU, the bytes to check and their expected values.
type Expectation struct {
	Init Values
	// Want[npu][i] is checked where Check[npu] covers i.
	Want  Values
	Check [][]collectives.Range
}

// Expect computes the inputs and expected results of plan's collective on
// one chunk, from the collective's definition (collectives.CollectiveOp),
// independently of any algorithm's programs: only the ownership of an
// all-gather's input and a reduce-scatter's output comes from the algorithm,
// and those must partition the chunk.
func Expect(plan *collectives.Plan, chunk int) (*Expectation, error) {
	n := plan.Machine.N()
	clen := plan.ChunkLen(chunk)
	e := &Expectation{Init: make(Values, n), Want: make(Values, n), Check: make([][]collectives.Range, n)}
	whole := []collectives.Range{{Off: 0, Len: clen}}
	for npu := 0; npu < n; npu++ {
		e.Init[npu] = make([]int64, clen)
		e.Want[npu] = make([]int64, clen)
		for i := range e.Init[npu] {
			e.Init[npu][i] = InitialValue(npu, chunk, int64(i))
		}
		e.Check[npu] = whole
	}
	groups := communicators(plan)
	switch plan.Op {
	case collectives.OpAllReduce, collectives.OpReduceScatter:
		for _, g := range groups {
			for i := int64(0); i < clen; i++ {
				var sum int64
				for _, npu := range g {
					sum += InitialValue(npu, chunk, i)
				}
				for _, npu := range g {
					e.Want[npu][i] = sum
				}
			}
		}
		if plan.Op == collectives.OpReduceScatter {
			for npu := 0; npu < n; npu++ {
				e.Check[npu] = plan.Algo.Output(npu, clen)
			}
			for _, g := range groups {
				if err := partitionAmong(g, e.Check, clen, "reduce-scatter output"); err != nil {
					return nil, err
				}
			}
		}
	case collectives.OpAllGather:
		owners := make([][]collectives.Range, n)
		for npu := 0; npu < n; npu++ {
			owners[npu] = plan.Algo.Input(npu, clen)
		}
		for _, g := range groups {
			if err := partitionAmong(g, owners, clen, "all-gather input"); err != nil {
				return nil, err
			}
			for _, owner := range g {
				for _, r := range owners[owner] {
					for i := r.Off; i < r.End(); i++ {
						for _, npu := range g {
							e.Want[npu][i] = InitialValue(owner, chunk, i)
							if npu != owner {
								e.Init[npu][i] = Poison
							}
						}
					}
				}
			}
		}
	case collectives.OpAllToAll:
		q := collectives.AllToAllBlock(clen, n)
		for dst := 0; dst < n; dst++ {
			copy(e.Want[dst], e.Init[dst]) // the tail stays
			for src := 0; src < n; src++ {
				for k := int64(0); k < q; k++ {
					e.Want[dst][int64(src)*q+k] = InitialValue(src, chunk, int64(dst)*q+k)
				}
			}
		}
	}
	return e, nil
}

// communicators are plan's groups of NPUs that combine their data: every
// NPU in one group, or each group of the dimensions the plan spans
// (collectives.Plan.Members), in order of their first NPU.
func communicators(plan *collectives.Plan) [][]int {
	n := plan.Machine.N()
	if plan.GroupSize() == n {
		return [][]int{plan.Members(0)}
	}
	seen := make([]bool, n)
	var out [][]int
	for npu := 0; npu < n; npu++ {
		if !seen[npu] {
			g := plan.Members(npu)
			for _, m := range g {
				seen[m] = true
			}
			out = append(out, g)
		}
	}
	return out
}

// partitionAmong checks that the ranges of the NPUs of group g cover
// [0, n) exactly once.
func partitionAmong(g []int, rs [][]collectives.Range, n int64, what string) error {
	if len(g) == len(rs) {
		return partition(rs, n, what)
	}
	sub := make([][]collectives.Range, len(g))
	for i, npu := range g {
		sub[i] = rs[npu]
	}
	if err := partition(sub, n, what); err != nil {
		return fmt.Errorf("in the group of NPUs %v (numbered from 0 there): %w", g, err)
	}
	return nil
}

// partition checks that the NPUs' ranges cover [0, n) exactly once.
func partition(rs [][]collectives.Range, n int64, what string) error {
	seen := make([]int, n)
	for npu, list := range rs {
		for _, r := range list {
			if r.Off < 0 || r.End() > n {
				return fmt.Errorf("%s of NPU %d: %v lies outside the chunk of %d bytes", what, npu, r, n)
			}
			for i := r.Off; i < r.End(); i++ {
				if seen[i] != 0 {
					return fmt.Errorf("%s: byte %d is owned by NPU %d and NPU %d", what, i, seen[i]-1, npu)
				}
				seen[i] = npu + 1
			}
		}
	}
	for i, s := range seen {
		if s == 0 {
			return fmt.Errorf("%s: byte %d is owned by no NPU", what, i)
		}
	}
	return nil
}

// Compare checks got against an expectation and names the first difference.
func (e *Expectation) Compare(got Values, chunk int) error {
	for npu, rs := range e.Check {
		for _, r := range rs {
			for i := r.Off; i < r.End(); i++ {
				if got[npu][i] != e.Want[npu][i] {
					return fmt.Errorf("chunk %d byte %d on NPU %d: got %d, want %d", chunk, i, npu, got[npu][i], e.Want[npu][i])
				}
			}
		}
	}
	return nil
}

// Check runs every chunk of plan functionally and checks the result against
// the collective's definition.
func Check(plan *collectives.Plan) error {
	for c := 0; c < plan.NumChunks(); c++ {
		if c > 0 && c < plan.NumChunks()-1 {
			continue // middle chunks have the first chunk's programs
		}
		e, err := Expect(plan, c)
		if err != nil {
			return err
		}
		vals, err := RunChunk(plan, c, e.Init)
		if err != nil {
			return err
		}
		if err := e.Compare(vals, c); err != nil {
			return err
		}
	}
	return nil
}
