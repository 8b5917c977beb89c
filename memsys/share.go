// Package memsys holds the arithmetic of one memory shared by clients:
// weighted max-min fairness with per-client limits, exact in rationals. It
// is what contend uses to divide an NPU's memory between compute and
// communication; which weights and limits model the hardware is the
// caller's policy (docs/memory-system.md).
package memsys

import "math/big"

// Claim is one client's claim on a shared rate: its weight (its share
// relative to the others' when all want more; zero: only what the others
// leave) and its limit (the most it can use; nil: no limit of its own).
type Claim struct {
	Weight *big.Rat
	Limit  *big.Rat
}

// Share divides rate among claims by weighted max-min fairness: each gets
// rate × its weight / the weights of those still sharing; a claim whose
// share exceeds its limit gets its limit and the rest is shared again.
// Claims of zero weight share equally what the weighted ones leave. The
// result is exact and in the claims' order; the sum never exceeds rate.
// Weights must be non-negative and limits positive (or nil).
func Share(rate *big.Rat, claims []Claim) []*big.Rat {
	out := make([]*big.Rat, len(claims))
	for i := range out {
		out[i] = new(big.Rat)
	}
	left := new(big.Rat).Set(rate)
	var weighted, zero []int
	for i, c := range claims {
		if c.Weight.Sign() > 0 {
			weighted = append(weighted, i)
		} else {
			zero = append(zero, i)
		}
	}
	one := big.NewRat(1, 1)
	for _, open := range [][]int{weighted, zero} {
		for len(open) > 0 && left.Sign() > 0 {
			w := new(big.Rat)
			for _, i := range open {
				w.Add(w, weightOf(claims[i], one))
			}
			var rest []int
			capped := new(big.Rat)
			for _, i := range open {
				share := new(big.Rat).Quo(new(big.Rat).Mul(left, weightOf(claims[i], one)), w)
				if l := claims[i].Limit; l != nil && l.Cmp(share) <= 0 {
					out[i].Set(l)
					capped.Add(capped, l)
					continue
				}
				rest = append(rest, i)
			}
			if capped.Sign() == 0 {
				for _, i := range open {
					out[i].Quo(new(big.Rat).Mul(left, weightOf(claims[i], one)), w)
				}
				left.SetInt64(0)
				break
			}
			left.Sub(left, capped)
			open = rest
		}
	}
	return out
}

// weightOf is c's weight, or one for a claim of zero weight (zero-weight
// claims share among themselves equally).
func weightOf(c Claim, one *big.Rat) *big.Rat {
	if c.Weight.Sign() > 0 {
		return c.Weight
	}
	return one
}
