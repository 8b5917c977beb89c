package verify

import (
	"fmt"
	"math/bits"

	"github.com/acemu/acemu/collectives"
)

// contributors is the set of NPUs whose data a byte holds (up to 256 NPUs).
type contributors [4]uint64

func single(npu int) contributors {
	var c contributors
	c[npu/64] = 1 << (npu % 64)
	return c
}

func (c contributors) count() int {
	n := 0
	for _, w := range c {
		n += bits.OnesCount64(w)
	}
	return n
}

// CheckContributions runs plan's programs on sets of contributing NPUs
// instead of values: every reduce must join two disjoint sets (nothing is
// reduced twice), and at the end every byte the collective defines must
// hold exactly the contributors it should (nothing is missed): all NPUs
// after an all-reduce and in a reduce-scatter's output, the owner after an
// all-gather, the source NPU after an all-to-all. It needs at most 256 NPUs.
func CheckContributions(plan *collectives.Plan) error {
	n := plan.Machine.N()
	if n > 256 {
		return fmt.Errorf("contribution check handles at most 256 NPUs, not %d", n)
	}
	group := make([]contributors, n) // each NPU's communicator group
	for _, g := range communicators(plan) {
		var all contributors
		for _, npu := range g {
			all[npu/64] |= 1 << (npu % 64)
		}
		for _, npu := range g {
			group[npu] = all
		}
	}
	for _, c := range []int{0, plan.NumChunks() - 1} {
		clen := plan.ChunkLen(c)
		e, err := Expect(plan, c)
		if err != nil {
			return err
		}
		sets := make([][]contributors, n)
		for npu := range sets {
			sets[npu] = make([]contributors, clen)
			for i := range sets[npu] {
				if e.Init[npu][i] != Poison {
					sets[npu][i] = single(npu)
				}
			}
		}
		for ph := 0; ph < plan.NumPhases(); ph++ {
			progs := make([]*collectives.Program, n)
			for npu := range progs {
				progs[npu] = plan.Program(npu, ph, clen)
			}
			err := runPhaseOf(progs, sets, func(dst *contributors, src contributors) error {
				for w := range dst {
					if dst[w]&src[w] != 0 {
						return fmt.Errorf("contributions reduced twice (%d NPUs already, %d more, overlapping)", dst.count(), src.count())
					}
					dst[w] |= src[w]
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("chunk %d phase %d (%s): %w", c, ph+1, plan.PhaseName(ph), err)
			}
		}
		q := int64(0)
		if plan.Op == collectives.OpAllToAll {
			q = collectives.AllToAllBlock(clen, n)
		}
		for npu := 0; npu < n; npu++ {
			for _, r := range e.Check[npu] {
				for i := r.Off; i < r.End(); i++ {
					want := group[npu]
					switch plan.Op {
					case collectives.OpAllGather:
						want = contributors{}
						for owner := 0; owner < n; owner++ {
							if group[npu] == group[owner] && e.Init[owner][i] != Poison {
								want = single(owner)
							}
						}
					case collectives.OpAllToAll:
						want = single(npu)
						if i < int64(n)*q {
							want = single(int(i / q))
						}
					}
					if sets[npu][i] != want {
						return fmt.Errorf("chunk %d byte %d on NPU %d holds %d NPUs' contributions, want %d: a contribution is missing or extra", c, i, npu, sets[npu][i].count(), want.count())
					}
				}
			}
		}
	}
	return nil
}
