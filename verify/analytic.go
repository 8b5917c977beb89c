package verify

import (
	"math/big"

	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/torus"
)

// Link figures of Table V, written here independently of the simulator's
// configuration: GB/s per direction, 94 % payload efficiency.
var (
	intraGBps  = big.NewRat(200, 1)
	interGBps  = big.NewRat(25, 1)
	efficiency = big.NewRat(94, 100)
)

// HierarchicalAllReduceBytes returns, per NPU and per dimension, the bytes a
// hierarchical all-reduce of n bytes sends (Section VI-A's counting): a ring
// all-reduce on p NPUs sends 2(p-1)/p of its data, a reduce-scatter or an
// all-gather (p-1)/p. Local: reduce-scatter then all-gather of n on L NPUs,
// 2(L-1)/L·n; vertical: all-reduce of n/L on V NPUs, 2(V-1)/V·n/L;
// horizontal: all-reduce of n/L on H NPUs, 2(H-1)/H·n/L.
func HierarchicalAllReduceBytes(s torus.Shape, n int64) [torus.NumDims]*big.Rat {
	frac := func(p int) *big.Rat { return big.NewRat(2*int64(p-1), int64(p)) }
	data := new(big.Rat).SetInt64(n)
	local := new(big.Rat).Mul(frac(s.L), data)
	perPkg := new(big.Rat).Quo(data, big.NewRat(int64(s.L), 1))
	return [torus.NumDims]*big.Rat{
		local,
		new(big.Rat).Mul(frac(s.V), perPkg),
		new(big.Rat).Mul(frac(s.H), perPkg),
	}
}

// HierarchicalAllReduceBound returns the network bandwidth per NPU (bytes
// sent per NPU per second, in GB/s) that a hierarchical all-reduce cannot
// exceed when chunks pipeline so that every dimension's links work at once:
// total bytes sent divided by the time the busiest dimension needs, each
// dimension having two outgoing links per NPU (one per ring direction) at
// 94 % of their raw bandwidth.
func HierarchicalAllReduceBound(s torus.Shape) *big.Rat {
	const n = 1 << 20 // any size: the bound is a ratio
	bytes := HierarchicalAllReduceBytes(s, n)
	total := new(big.Rat)
	var worst *big.Rat // seconds·1e9 (bytes / GB/s)
	for d := torus.Dim(0); d < torus.NumDims; d++ {
		total.Add(total, bytes[d])
		if s.Size(d) < 2 {
			continue
		}
		bw := interGBps
		if d == torus.Local {
			bw = intraGBps
		}
		perNPU := new(big.Rat).Mul(big.NewRat(2, 1), bw)
		perNPU.Mul(perNPU, efficiency)
		t := new(big.Rat).Quo(bytes[d], perNPU)
		if worst == nil || t.Cmp(worst) > 0 {
			worst = t
		}
	}
	if worst == nil {
		return new(big.Rat)
	}
	return new(big.Rat).Quo(total, worst)
}

// HierarchicalAllReduceBoundOn is HierarchicalAllReduceBound on machine
// m when m is a torus; ok is false on any other machine, which has no
// such bound yet.
func HierarchicalAllReduceBoundOn(m *machine.Machine) (bound *big.Rat, ok bool) {
	s := torus.ShapeOf(m)
	if s.N() == 0 {
		return nil, false
	}
	return HierarchicalAllReduceBound(s), true
}
