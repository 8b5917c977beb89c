package ace

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// phaseProfile is what the partition and FSM heuristics need to know of a
// phase on one NPU, read off its program for a full chunk.
type phaseProfile struct {
	view    int64    // bytes of the phase's view: the room a chunk needs in its partition
	steps   int      // algorithm steps
	msg     int64    // largest message
	bw      *big.Rat // B/cycle of the distinct links its sends leave by
	link    *big.Rat // the slowest rate of a link its messages cross, B/cycle
	latency int64    // the longest latency of its messages' routes
}

// routeFunc returns the latency of the route from NPU a to NPU b and the
// slowest link on it (run.route).
type routeFunc func(a, b int) (rtl.Cycle, *fabric.Link)

// profile reads the phases of NPU npu for a full chunk: its own programs,
// or where they are shared (run.share) NPU 0's with each peer displaced by
// npu (peer), which are the same. A routed send's
// time is its route's, not its first link's: on a switch fabric the
// spine phase's messages leave by the NPU's leaf link but cross the spine
// links too, so the slowest link and the latency are those of the whole
// route (route); a send by a port goes to the neighbour on that link.
func profile(plan *collectives.Plan, top machine.Topology, net *fabric.Network, npu, src int, peer func(int32) int32, route routeFunc) []phaseProfile {
	clen := plan.ChunkLen(0)
	out := make([]phaseProfile, plan.NumPhases())
	for ph := range out {
		prog := plan.Program(src, ph, clen)
		p := phaseProfile{view: prog.ViewLen(), steps: prog.Steps, bw: new(big.Rat)}
		used := map[int]bool{}
		for _, op := range prog.Ops {
			if op.Kind != collectives.Send {
				continue
			}
			p.msg = max(p.msg, op.Data.Len)
			port := int(op.Port)
			var slowest *fabric.Link
			var latency rtl.Cycle
			if op.Port == collectives.RouteXYZ {
				hop, ok := top.NextPort(npu, int(peer(op.Peer)))
				if !ok {
					continue
				}
				port = hop
				latency, slowest = route(npu, int(peer(op.Peer)))
			} else if l := net.Out(npu, port); l != nil {
				latency, slowest = l.Params.Latency, l
			}
			if slowest != nil {
				r := slowest.Params.Rate.Rat()
				if p.link == nil || r.Cmp(p.link) < 0 {
					p.link = r
				}
				p.latency = max(p.latency, int64(latency))
			}
			if used[port] {
				continue
			}
			used[port] = true
			if l := net.Out(npu, port); l != nil {
				p.bw.Add(p.bw, l.Params.Rate.Rat())
			}
		}
		if p.bw.Sign() == 0 { // a phase that sends nothing here still needs room
			p.bw.SetInt64(1)
			p.link = big.NewRat(1, 1)
		}
		out[ph] = p
	}
	return out
}

// paperWeights are the paper's partition heuristic (Section IV-I,
// footnote 9): phase i's share is proportional to its links' bandwidth × its
// initial chunk size (what the previous phase hands it: 16 KB for the
// vertical all-reduce and the local all-gather of a 64 KB chunk on 4x4x4),
// the average of the initial chunk sizes of the collectives whose phases
// use the partition (sizes.initial: "if for each phase, there are
// different chunk sizes belonging to different collective operations, we
// use average of such chunk sizes"); the terminal partition equals the
// last phase's.
func paperWeights(prof []phaseProfile, sizes chunkSizes) []*big.Rat {
	n := len(prof)
	w := make([]*big.Rat, n+1)
	one := big.NewRat(1, 1)
	for i, p := range prof {
		initial := sizes.initial[i]
		if initial.Cmp(one) < 0 {
			initial = one
		}
		w[i] = new(big.Rat).Mul(p.bw, initial)
	}
	w[n] = w[n-1]
	return w
}

// residence is the time a chunk alone holds phase i's room (docs/ace-model.md,
// "Partitions"): the TX DMA's load of its view for the first phase, the
// receive-ready notice at entry when it is sent only as the FSM takes the
// chunk up (one link latency; granted ahead, it costs nothing to a chunk
// alone), then steps × (latency + largest message at the link's rate).
func residence(p phaseProfile, first bool, dma *big.Rat, notice string) *big.Rat {
	t := stepTime(p)
	t.Mul(t, big.NewRat(int64(p.steps), 1))
	if notice == NoticeFSM {
		t.Add(t, big.NewRat(p.latency, 1))
	}
	if first {
		t.Add(t, new(big.Rat).Quo(big.NewRat(p.view, 1), dma))
	}
	return t
}

// littleWeights size the partitions by Little's law for the chunk flow:
// every phase passes the same chunk rate, so phase i needs room ∝ the time
// a chunk holds it (residence) × the room it takes (its view); the terminal
// partition holds a result of R bytes for R / DMA rate. The time is the
// layout's phase's; the room the average view of the collectives that use
// the partition (sizes.view, footnote 9's average applied to the room; the
// terminal partition: their average result).
func littleWeights(prof []phaseProfile, sizes chunkSizes, result int64, dma *big.Rat, notice string) []*big.Rat {
	n := len(prof)
	w := make([]*big.Rat, n+1)
	for i, p := range prof {
		w[i] = new(big.Rat).Mul(residence(p, i == 0, dma, notice), sizes.view[i])
	}
	w[n] = new(big.Rat).Quo(new(big.Rat).Mul(big.NewRat(result, 1), sizes.view[n]), dma)
	return w
}

// partitions splits sram into the P+1 partitions in proportion to the
// weights w (phases, then the terminal partition), except that no partition
// gets less than it needs for one chunk (need: the largest view of a chunk
// that uses it; the terminal partition one chunk's result): a partition
// whose share falls short gets exactly its need and the rest of the SRAM
// is split among the others by their weights, until every share holds its
// need (docs/ace-model.md). It fails, naming the smallest SRAM that would
// do, when the needs add up to more than sram.
func partitions(sram int64, need []int64, w []*big.Rat) ([]int64, error) {
	n := len(need) - 1
	total := int64(0)
	for _, x := range need {
		total += x
	}
	if total > sram {
		return nil, fmt.Errorf("SRAM of %d bytes is too small: one chunk in every partition (phases 1.., terminal: %v bytes) needs %d; use an SRAM of at least %d bytes (or a smaller --chunk)",
			sram, need, total, total)
	}
	pinned := make([]bool, n+1)
	shares := make([]*big.Rat, n+1)
	for {
		left, weight := big.NewRat(sram, 1), new(big.Rat)
		for i := range need {
			if pinned[i] {
				left.Sub(left, big.NewRat(need[i], 1))
			} else {
				weight.Add(weight, w[i])
			}
		}
		short := false
		for i := range need {
			if pinned[i] {
				shares[i] = big.NewRat(need[i], 1)
				continue
			}
			shares[i] = new(big.Rat).Mul(left, w[i])
			if weight.Sign() > 0 {
				shares[i].Quo(shares[i], weight)
			}
			if shares[i].Cmp(big.NewRat(need[i], 1)) < 0 {
				pinned[i], short = true, true
			}
		}
		if !short {
			break
		}
	}
	sizes := make([]int64, n+1)
	for i, x := range shares {
		sizes[i] = new(big.Int).Quo(x.Num(), x.Denom()).Int64()
	}
	return sizes, nil
}

// splitFSMs divides f FSMs among the phases: at least one each, the rest in
// proportion to each phase's weight (largest remainders first, ties to the
// earlier phase). With mode "latency" a phase's weight is the time a chunk
// alone spends in it, steps × (latency + largest message / link rate)
// (alone); with "even" all weigh the same.
func splitFSMs(f int, prof []phaseProfile, mode string) ([]int, error) {
	times := make([]*big.Rat, len(prof))
	for i, p := range prof {
		times[i] = alone(p)
	}
	return splitFSMsBy(f, times, mode)
}

// alone is the time a chunk alone spends in phase p: steps × (latency +
// largest message / link rate).
func alone(p phaseProfile) *big.Rat {
	t := stepTime(p)
	return t.Mul(t, big.NewRat(int64(max(p.steps, 1)), 1))
}

// stepTime is one step of phase p for a chunk alone: latency + largest
// message / link rate.
func stepTime(p phaseProfile) *big.Rat {
	t := new(big.Rat).Quo(big.NewRat(p.msg, 1), p.link)
	return t.Add(t, big.NewRat(p.latency, 1))
}

// splitFSMsBy is splitFSMs with each phase's time alone given (times).
func splitFSMsBy(f int, times []*big.Rat, mode string) ([]int, error) {
	n := len(times)
	if f < n {
		return nil, fmt.Errorf("%d FSMs for a %d-phase collective: each phase needs its own FSM; use at least %d", f, n, n)
	}
	w := make([]*big.Rat, n)
	total := new(big.Rat)
	for i, t := range times {
		w[i] = big.NewRat(1, 1)
		if mode == "latency" {
			w[i] = t
		}
		total.Add(total, w[i])
	}
	out := make([]int, n)
	type rem struct {
		i int
		r *big.Rat
	}
	var rems []rem
	left := f - n
	given := 0
	for i := range out {
		share := new(big.Rat).Mul(w[i], big.NewRat(int64(left), 1))
		share.Quo(share, total)
		whole := new(big.Int).Quo(share.Num(), share.Denom()).Int64()
		out[i] = 1 + int(whole)
		given += int(whole)
		rems = append(rems, rem{i, new(big.Rat).Sub(share, new(big.Rat).SetInt64(whole))})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r.Cmp(rems[b].r) > 0 })
	for k := 0; k < left-given; k++ {
		out[rems[k].i]++
	}
	return out, nil
}
