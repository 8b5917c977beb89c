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
// phase, delivering messages in dependence order, and returns the final
// values. It fails when a send has no matching receive, a receive gets no
// message, a dependence can never be met, or a message's size disagrees with
// its receive.
func RunChunk(plan *collectives.Plan, chunk int) (Values, error) {
	n := plan.Shape.N()
	clen := plan.ChunkLen(chunk)
	vals := make(Values, n)
	for npu := range vals {
		vals[npu] = make([]int64, clen)
		for i := range vals[npu] {
			vals[npu][i] = InitialValue(npu, chunk, int64(i))
		}
	}
	for ph := range plan.Phases {
		progs := make([]*collectives.Program, n)
		for npu := 0; npu < n; npu++ {
			progs[npu] = plan.Program(npu, ph, clen)
			if err := progs[npu].Validate(); err != nil {
				return nil, fmt.Errorf("phase %d: %w", ph+1, err)
			}
		}
		if err := runPhase(progs, vals); err != nil {
			return nil, fmt.Errorf("chunk %d phase %d (%s): %w", chunk, ph+1, plan.Phases[ph], err)
		}
	}
	return vals, nil
}

type mail struct {
	from int32
	data []int64
}

// runPhase executes one phase of every NPU to completion.
func runPhase(progs []*collectives.Program, vals Values) error {
	n := len(progs)
	done := make([][]bool, n)
	inbox := make([]map[int32]mail, n) // by receive op index
	for i, p := range progs {
		done[i] = make([]bool, len(p.Ops))
		inbox[i] = map[int32]mail{}
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
					buf := make([]int64, op.Data.Len)
					copyView(buf, vals[npu], p.View, op.Data.Off)
					inbox[peer][op.Match] = mail{from: int32(npu), data: buf}
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
					applyView(vals[npu], p.View, op.Data.Off, m.data, op.Reduce)
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

func copyView(dst []int64, chunk []int64, view []collectives.Range, off int64) {
	for i := range dst {
		dst[i] = chunk[viewIndex(view, off+int64(i))]
	}
}

func applyView(chunk []int64, view []collectives.Range, off int64, src []int64, reduce bool) {
	for i, v := range src {
		j := viewIndex(view, off+int64(i))
		if reduce {
			chunk[j] += v
		} else {
			chunk[j] = v
		}
	}
}

// CheckAllReduce runs every chunk of plan functionally and checks that every
// NPU ends with the element-wise sum over all NPUs of the initial values.
func CheckAllReduce(plan *collectives.Plan) error {
	n := plan.Shape.N()
	for c := 0; c < plan.NumChunks(); c++ {
		vals, err := RunChunk(plan, c)
		if err != nil {
			return err
		}
		for i := int64(0); i < plan.ChunkLen(c); i++ {
			var want int64
			for npu := 0; npu < n; npu++ {
				want += InitialValue(npu, c, i)
			}
			for npu := 0; npu < n; npu++ {
				if vals[npu][i] != want {
					return fmt.Errorf("chunk %d byte %d on NPU %d: got %d, want the sum %d", c, i, npu, vals[npu][i], want)
				}
			}
		}
	}
	return nil
}
