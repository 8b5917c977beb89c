package libra

import (
	"errors"
	"fmt"
	"math"
)

// Eps is the one tolerance of the package (docs/libra.md, [choice]
// "Tolerance"): a fraction δ_b or δ_c of Eq (9)/(10) below Eps counts as
// zero, so a residual "t_c > 0" of Eq (19) means δ_c ≥ Eps; a candidate in a
// dynamic programme replaces the best so far only when it is shorter by
// more than Eps of it (strict <, the first minimum wins).
const Eps = 1e-9

// Gamma4 is γ4 of Eq (6), the exponent the paper fixes empirically at 0.6
// (LIBRA, §III-A, Observation 2); it is used for q as for p.
const Gamma4 = 0.6

// Allreduce is the algorithm-dependent part of Eq (3), t = a + ĉ/x: the
// start-up time a and the volume ĉ an all-reduce of c gradient bytes moves.
type Allreduce interface {
	// Startup returns a, the start-up time, in the model's time unit.
	Startup() float64
	// Volume returns ĉ, the bytes transmitted for c gradient bytes.
	Volume(c int64) float64
}

// Ring is ring all-reduce, Eq (4): N workers, 2(N−1) rounds each sending
// c/N, so a = 2(N−1)·α and ĉ = 2(N−1)/N · c, with α the one-hop latency.
type Ring struct {
	n   int
	hop float64
}

// NewRing returns ring all-reduce over n ≥ 2 workers with one-hop latency
// hop ≥ 0 (in the model's time unit).
func NewRing(n int, hop float64) (Ring, error) {
	if n < 2 {
		return Ring{}, fmt.Errorf("ring all-reduce over %d workers: Eq (4) needs at least 2", n)
	}
	if !(hop >= 0) || math.IsInf(hop, 0) {
		return Ring{}, fmt.Errorf("ring all-reduce: one-hop latency %v must be finite and ≥ 0", hop)
	}
	return Ring{n: n, hop: hop}, nil
}

// Startup returns a = 2(N−1)·α of Eq (4).
func (r Ring) Startup() float64 { return float64(2*(r.n-1)) * r.hop }

// Volume returns ĉ = 2(N−1)/N · c of Eq (4).
func (r Ring) Volume(c int64) float64 { return float64(2*(r.n-1)) * float64(c) / float64(r.n) }

// AllreduceTime is Eq (3): a + ĉ/x for c gradient bytes at transmission
// rate x > 0 (bytes per time unit).
func AllreduceTime(alg Allreduce, c int64, x float64) (float64, error) {
	if c < 0 {
		return 0, fmt.Errorf("all-reduce of %d bytes: the gradient size must be ≥ 0", c)
	}
	if !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("all-reduce at rate %v: the transmission rate must be finite and > 0", x)
	}
	return alg.Startup() + alg.Volume(c)/x, nil
}

// ComputeCurve is g(b, r) of Eq (5), a black box to the optimisers: the
// time a computation that takes b alone takes while an all-reduce runs
// with r threads.
type ComputeCurve interface {
	Time(b float64, r int) (float64, error)
}

// CommCurve is p(c, r) or q(c, r) of Eq (6), a black box to the
// optimisers: the transmission time, start-up excluded, of an all-reduce
// of c gradient bytes with r threads, overlapped with computation (p) or
// alone (q).
type CommCurve interface {
	Time(c int64, r int) (float64, error)
}

// ComputeFunc adapts a function to ComputeCurve.
type ComputeFunc func(b float64, r int) (float64, error)

// Time calls f.
func (f ComputeFunc) Time(b float64, r int) (float64, error) { return f(b, r) }

// CommFunc adapts a function to CommCurve.
type CommFunc func(c int64, r int) (float64, error)

// Time calls f.
func (f CommFunc) Time(c int64, r int) (float64, error) { return f(c, r) }

// Slowdown is Eq (5): g(b, r) = b / (α1 − α2·r), compute slowed by r
// communication threads (LIBRA, §III-A, Observation 1).
type Slowdown struct {
	Alpha1, Alpha2 float64
}

// Rate returns α1 − α2·r, the share of compute left to computation; an
// error when it is not positive, where Eq (5) has no meaning.
func (s Slowdown) Rate(r int) (float64, error) {
	if r < 0 {
		return 0, fmt.Errorf("Eq (5) at %d threads: a thread count must be ≥ 0", r)
	}
	rho := s.Alpha1 - s.Alpha2*float64(r)
	if !(rho > 0) || math.IsInf(rho, 0) {
		return 0, fmt.Errorf("Eq (5) at %d threads: α1 − α2·r = %v − %v·%d = %v is not a positive rate; drop %d from the thread set or refit α1, α2", r, s.Alpha1, s.Alpha2, r, rho, r)
	}
	return rho, nil
}

// Time returns g(b, r) of Eq (5).
func (s Slowdown) Time(b float64, r int) (float64, error) {
	if !(b >= 0) || math.IsInf(b, 0) {
		return 0, fmt.Errorf("Eq (5): compute size %v must be finite and ≥ 0", b)
	}
	rho, err := s.Rate(r)
	if err != nil {
		return 0, err
	}
	return b / rho, nil
}

// Diminishing is Eq (6): ĉ / (γ1 − γ2·exp(−γ3·r^γ4)), transmission whose
// rate grows with diminishing returns in the threads r (LIBRA, §III-A,
// Observation 2). Alg gives ĉ; the same form with its own γs serves as p
// (overlapped) and as q (alone).
type Diminishing struct {
	Gamma1, Gamma2, Gamma3, Gamma4 float64
	Alg                            Allreduce
}

// Rate returns x(r) = γ1 − γ2·exp(−γ3·r^γ4), the transmission rate of
// Eq (3); an error when it is not positive.
func (d Diminishing) Rate(r int) (float64, error) {
	if r < 0 {
		return 0, fmt.Errorf("Eq (6) at %d threads: a thread count must be ≥ 0", r)
	}
	x := d.Gamma1 - d.Gamma2*math.Exp(-d.Gamma3*math.Pow(float64(r), d.Gamma4))
	if !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("Eq (6) at %d threads: γ1 − γ2·exp(−γ3·r^γ4) = %v is not a positive rate; refit γ1..γ3", r, x)
	}
	return x, nil
}

// Time returns p(c, r) (or q) of Eq (6).
func (d Diminishing) Time(c int64, r int) (float64, error) {
	if c < 0 {
		return 0, fmt.Errorf("Eq (6): gradient size %d must be ≥ 0", c)
	}
	if d.Alg == nil {
		return 0, errors.New("Eq (6): no all-reduce algorithm to give ĉ; set Alg (e.g. NewRing)")
	}
	x, err := d.Rate(r)
	if err != nil {
		return 0, err
	}
	return d.Alg.Volume(c) / x, nil
}

// Model is LIBRA's contention model (§III-A) with the start-up a of Eq (3):
// G is g of Eq (5), P is p and Q is q of Eq (6). All times are in one unit
// of the caller's choosing (ms in the paper, cycles in acemu).
type Model struct {
	G       ComputeCurve
	P, Q    CommCurve
	Startup float64
}

// Overlap is what Eq (8)–(11) give for one communication overlapping one
// computation: the overlap time f_o, the computation left to run alone
// f_b = b·δ_b and the communication left to run alone f_c = (q+a)·δ_c.
type Overlap struct {
	Time, ComputeLeft, CommLeft float64
}

// Overlap returns Eq (8)–(11) for an all-reduce of c gradient bytes with r
// threads overlapping a computation of size b (its time alone). A δ below
// Eps is zero; at most one of ComputeLeft and CommLeft is then non-zero.
func (m *Model) Overlap(c int64, b float64, r int) (Overlap, error) {
	if c < 0 {
		return Overlap{}, fmt.Errorf("gradient size %d must be ≥ 0", c)
	}
	if !(b >= 0) || math.IsInf(b, 0) {
		return Overlap{}, fmt.Errorf("compute size %v must be finite and ≥ 0", b)
	}
	if r <= 0 {
		return Overlap{}, fmt.Errorf("%d communication threads: a thread count must be > 0", r)
	}
	if m.G == nil || m.P == nil || m.Q == nil {
		return Overlap{}, errors.New("contention model without g, p or q: set Model.G, Model.P and Model.Q")
	}
	if !(m.Startup >= 0) || math.IsInf(m.Startup, 0) {
		return Overlap{}, fmt.Errorf("start-up time %v must be finite and ≥ 0", m.Startup)
	}
	var g, pa, qa float64
	var err error
	if b > 0 {
		if g, err = finite(m.G.Time(b, r)); err != nil {
			return Overlap{}, fmt.Errorf("g(%v, %d): %w", b, r, err)
		}
	}
	if c > 0 {
		p, err := finite(m.P.Time(c, r))
		if err != nil {
			return Overlap{}, fmt.Errorf("p(%d, %d): %w", c, r, err)
		}
		q, err := finite(m.Q.Time(c, r))
		if err != nil {
			return Overlap{}, fmt.Errorf("q(%d, %d): %w", c, r, err)
		}
		pa, qa = p+m.Startup, q+m.Startup // > 0: finite gives p > 0, and the start-up is ≥ 0
	}
	var o Overlap
	if b > 0 && c > 0 {
		o.Time = min(pa, g) // Eq (8)
	}
	if b > 0 {
		if db := 1 - o.Time/g; db >= Eps { // Eq (9)
			o.ComputeLeft = b * db // Eq (11)
		}
	}
	if c > 0 {
		if dc := 1 - o.Time/pa; dc >= Eps { // Eq (10)
			o.CommLeft = qa * dc // Eq (11)
		}
	}
	return o, nil
}

// finite checks a curve's answer: no error, finite, > 0 (a positive size
// takes time).
func finite(v float64, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("the curve gave %v; it must give a finite, positive time for a positive size", v)
	}
	return v, nil
}
