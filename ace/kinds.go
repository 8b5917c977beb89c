package ace

// This file: collectives of other kinds than the layout's (reduce-scatter,
// all-gather, all-reduce and all-to-all, over every NPU or a group) on the
// layout's partitions and FSMs, and the partition sizes for several kinds
// (docs/ace-model.md, "Several kinds of collective").

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/acemu/acemu/collectives"
)

// phaseParts maps plan's phases onto the partitions of layout's phases
// [choice, docs/ace-model.md]: the first phase takes partition 1, into
// which the TX DMA loads every chunk; each later phase the first partition
// after the previous phase's whose layout phase combines the same groups
// (the same dimension's links: machine.SameGroups), or, when none of the
// later ones does, the next partition. Each phase of a chunk so holds a
// partition of its own, later phases later partitions, as the layout's own
// phases do. The layout maps onto itself phase by phase; a single-phase
// all-to-all onto partition 1.
func phaseParts(layout, plan *collectives.Plan) ([]int, error) {
	np, nl := plan.NumPhases(), layout.NumPhases()
	if np > nl {
		return nil, fmt.Errorf("%s has %d phases, more than its layout, %s, has partitions for phases (%d): each phase of a chunk takes room in a partition of its own (docs/ace-model.md, \"Several kinds of collective\"); %s",
			describe(plan), np, describe(layout), nl, layFor(np))
	}
	parts := make([]int, np)
	for ph := 1; ph < np; ph++ {
		at := parts[ph-1] + 1
		if t, ok := plan.PhaseTier(ph); ok {
			for p := at; p < nl; p++ {
				if lt, ok := layout.PhaseTier(p); ok && lt.SameGroups(t) {
					at = p
					break
				}
			}
		}
		if at >= nl {
			return nil, fmt.Errorf("%s: its phase %d (%s) finds no partition left after its phase %d's (partition %d of the %d of its layout's %s): each phase of a chunk takes a later partition than the one before (docs/ace-model.md, \"Several kinds of collective\"); %s",
				describe(plan), ph+1, plan.PhaseName(ph), ph, parts[ph-1]+1, nl, describe(layout), layFor(np))
		}
		parts[ph] = at
	}
	return parts, nil
}

// describe names a plan for a message: its operation, communicator,
// algorithm and phases.
func describe(p *collectives.Plan) string {
	comm := ""
	switch {
	case p.Groups != nil:
		comm = " over listed groups"
	case len(p.Span) > 0:
		comm = " over " + strings.Join(p.Span, ",")
	}
	names := make([]string, p.NumPhases())
	for i := range names {
		names[i] = p.PhaseName(i)
	}
	article := "a"
	if op := p.Op.String(); op != "" && strings.ContainsRune("aeiou", rune(op[0])) {
		article = "an"
	}
	return fmt.Sprintf("%s %s%s (%s: %s)", article, p.Op, comm, p.Algorithm, strings.Join(names, "; "))
}

// layFor is the fix for a collective of np phases that its engine's layout
// cannot hold.
func layFor(np int) string {
	return fmt.Sprintf("lay ACE out for a collective of at least %d phases: the hierarchical all-reduce over every dimension has the most (--set collectives.allreduce=hierarchical, the default)", np)
}

// chunkSizes are what the partition heuristics take of the chunks each
// partition holds (the layout's phases, then the terminal partition): the
// average over the collectives that use it of a chunk's initial size there
// (what the phase before hands it) and of its view (the room it takes;
// the terminal partition: its result), and the largest view, the room one
// chunk of any of them needs (the ACE paper, Section IV-I, footnote 9:
// "if for each phase, there are different chunk sizes belonging to
// different collective operations, we use average of such chunk sizes").
type chunkSizes struct {
	initial, view []*big.Rat
	need          []int64
}

// kindSizes is one collective's chunk on one NPU: per phase its initial
// size and view, its result, and the partition of each phase.
type kindSizes struct {
	initial, view []int64
	result        int64
	parts         []int
}

// sizesOf reads a full chunk of plan on NPU npu's programs.
func sizesOf(plan *collectives.Plan, npu int, parts []int) kindSizes {
	clen := plan.ChunkLen(0)
	np := plan.NumPhases()
	k := kindSizes{initial: make([]int64, np), view: make([]int64, np), parts: parts}
	for ph := 0; ph < np; ph++ {
		prog := plan.Program(npu, ph, clen)
		k.view[ph] = prog.ViewLen()
		k.initial[ph] = k.view[ph]
		if ph > 0 {
			k.initial[ph] = k.result
		}
		k.result = 0
		for _, o := range prog.Out {
			k.result += o.Len
		}
	}
	return k
}

// averageSizes are the chunk sizes per partition of the kinds listed; a
// partition that none of them uses takes the layout's own (lay: the
// layout's chunk, its phases on their own partitions). Every partition's
// need is at least the layout's.
func averageSizes(lay kindSizes, kinds []kindSizes) chunkSizes {
	n := len(lay.view)
	s := chunkSizes{initial: make([]*big.Rat, n+1), view: make([]*big.Rat, n+1), need: make([]int64, n+1)}
	initial, view, count := make([]int64, n+1), make([]int64, n+1), make([]int64, n+1)
	add := func(k kindSizes) {
		for ph, p := range k.parts {
			initial[p] += k.initial[ph]
			view[p] += k.view[ph]
			count[p]++
			s.need[p] = max(s.need[p], k.view[ph])
		}
		view[n] += k.result
		count[n]++
		s.need[n] = max(s.need[n], k.result)
	}
	for _, k := range kinds {
		add(k)
	}
	for p := 0; p <= n; p++ {
		if count[p] == 0 { // no kind listed uses it: the layout's own
			if p < n {
				initial[p], view[p] = lay.initial[p], lay.view[p]
			} else {
				view[p] = lay.result
			}
			count[p] = 1
		}
		s.initial[p] = big.NewRat(initial[p], count[p])
		s.view[p] = big.NewRat(view[p], count[p])
	}
	for p := 0; p < n; p++ {
		s.need[p] = max(s.need[p], lay.view[p])
	}
	s.need[n] = max(s.need[n], lay.result)
	return s
}

// partsFor checks that the engine can run plan and returns the partition
// of each of its phases (phaseParts), worked out once per plan: the
// layout's message size, a partition for every phase, and room in each
// for a full chunk on every NPU.
func (r *run) partsFor(plan *collectives.Plan) ([]int, error) {
	if p, ok := r.parts[plan]; ok {
		return p, nil
	}
	l := r.layout
	if plan.MessageBytes != l.MessageBytes {
		return nil, fmt.Errorf("ACE: %s in messages of %d B on an engine laid out for messages of %d B: its FSMs and port buffers are set for one message size; issue it with the layout's message size",
			describe(plan), plan.MessageBytes, l.MessageBytes)
	}
	parts, err := phaseParts(l, plan)
	if err != nil {
		return nil, fmt.Errorf("ACE: %w", err)
	}
	src := -1 // every node's own programs, unless they are all NPU 0's translated
	if r.share && collectives.CheckEquivariant(plan) == nil {
		src = 0
	}
	for _, nd := range r.nodes {
		npu := nd.id
		if src >= 0 {
			npu = src
		}
		k := sizesOf(plan, npu, parts)
		for ph, p := range parts {
			if k.view[ph] > nd.part[p] {
				return nil, fmt.Errorf("ACE: %s: its phase %d needs %d B of room for a chunk in partition %d, which holds %d B on NPU %d; name it among the collectives ACE is laid out for (afi.Config.Kinds), or give a larger --sram or a smaller --chunk",
					describe(plan), ph+1, k.view[ph], p+1, nd.part[p], nd.id)
			}
		}
		if t := len(nd.part) - 1; k.result > nd.part[t] {
			return nil, fmt.Errorf("ACE: %s: its result, %d B a chunk, does not fit the terminal partition's %d B on NPU %d; name it among the collectives ACE is laid out for (afi.Config.Kinds), or give a larger --sram or a smaller --chunk",
				describe(plan), k.result, nd.part[t], nd.id)
		}
		if src >= 0 && r.shareLayout {
			break // every node's partitions are NPU 0's too (the layout is shared)
		}
	}
	r.parts[plan] = parts
	return parts, nil
}

// averageTimes are, per partition for a phase, the average over the kinds
// listed of the time a chunk alone spends in their phase that uses it
// (alone, the FSM split's weight: footnote 9's average, applied to the
// FSMs as to the room; docs/ace-model.md, "Several kinds of collective");
// a partition that none of them uses takes the layout's phase's (prof).
// A single-phase all-to-all is left out: it takes every FSM in turn, not
// a partition's.
func averageTimes(prof []phaseProfile, kinds []kindProfile) []*big.Rat {
	n := len(prof)
	sum, count := make([]*big.Rat, n), make([]int64, n)
	for p := range sum {
		sum[p] = new(big.Rat)
	}
	for _, k := range kinds {
		if k.allToAll {
			continue
		}
		for ph, p := range k.parts {
			sum[p].Add(sum[p], alone(k.prof[ph]))
			count[p]++
		}
	}
	out := make([]*big.Rat, n)
	for p := range out {
		if count[p] == 0 {
			out[p] = alone(prof[p])
			continue
		}
		out[p] = sum[p].Quo(sum[p], big.NewRat(count[p], 1))
	}
	return out
}

// kindProfile is a listed kind's phases on one NPU (profile) and the
// partition of each.
type kindProfile struct {
	prof     []phaseProfile
	parts    []int
	allToAll bool // a single-phase all-to-all
}
