// Package libra holds LIBRA's contention model and its optimisers, from
// "LIBRA: Contention-Aware GPU Thread Allocation for Data Parallel Training
// in High Speed Networks" (Liu et al.): the all-reduce time of Eq (3)–(4),
// the contention curves g (Eq 5) and p, q (Eq 6), the overlap of one
// all-reduce with one computation (Eq 8–11), the backward time of tensor
// groups under an allocation (Eq 12–15, Evaluate), the thread-allocation
// programme for a fixed fusion plan (Eq 17–19, Allocate, §IV-A) and its
// co-optimisation with tensor fusion (Eq 21/23, Algorithm 1, Fuse, §IV-B).
//
// It is pure algorithm: g, p and q are black boxes the caller supplies
// (ComputeCurve, CommCurve), as the paper treats them (§III-A), so that
// curves measured on acemu's own contention model can be plugged in; the
// parametric forms of Eq (5) and (6) are Slowdown and Diminishing. Times
// are in one unit of the caller's choosing. docs/libra.md describes the
// model, the programmes, their cost and bound, and how they run in acemu:
// curves measured by package libra/measure, the systems baseline-libra and
// baseline-libra-fusion of the comparator.
//
// The choices the paper leaves open, each with its reason:
//
//   - [choice] Numbers. Times are float64: p and q hold exp(), so no exact
//     arithmetic carries the model, and the programmes evaluate millions of
//     stages. Compute sizes b and gradient sizes c are integers (Layer), so
//     the one comparison that decides feasibility, GetMinChunkID's
//     id·w ≥ n(l), is made exactly as id·total ≥ Z·n(l). Everything runs in
//     one goroutine in a fixed order, so results are identical run to run.
//   - [choice] Tolerance. One constant, Eps = 1e-9, relative: a fraction δ_b
//     or δ_c of Eq (9)/(10) below Eps is zero, so "t_c > 0" of Eq (19) means
//     δ_c ≥ Eps; in Eq (13) a residual computation below Eps of the total is
//     zero; a candidate replaces the best so far only when shorter by more
//     than Eps of it, so of equal candidates the first in Algorithm 1's
//     order (l', z', j ascending) wins, as with its strict <. Rounding in a
//     few dozen float64 operations is near 1e-15 relative, so exact ties of
//     the model (g = p + a, equal plans) are ties here, while 1e-9 is far
//     below any difference that matters (a nanosecond in a second).
//   - [choice] Algorithm 1's "t_2 > 0" (line 24) is read as t_c > 0, the
//     condition of Eq (19).
//   - [choice] Empty groups. Algorithm 1's loop l' = 0..l allows l' = l, a
//     group with no layers: free when it overlaps no computation, pure
//     computation otherwise. So K is at most K groups; backtracking drops
//     empty groups (Plan.Empty counts them) and T-hat evaluates the
//     non-empty ones.
//   - [choice] The K-limited programme's cost and bound, which the paper
//     does not state: Algorithm 1's loops give time O(K·L²·Z²·J) and space
//     O(K·L·Z); Theorem 1's proof applied to the best plan with at most K
//     groups gives T(K, L, Z) ≤ T* + (min(K, L) − 1)·w. Both chains are
//     checked against brute force in the tests.
//   - [choice] γ4 = 0.6 (Gamma4) serves q as well as p: q "has the same
//     form as p(c, r) but with a different set of parameters" (§III-A).
//   - [choice] α1 is the caller's fit and is not forced to 1, though the
//     residual computation of Eq (11) runs at rate 1, so g(b, 0) = b/α1 is
//     consistent with it only when α1 = 1; fits should keep α1 near 1.
//   - [choice] Layers and groups are in backward order (layer 1 is the
//     first whose gradients exist), since n(l) is the computation that
//     must be done before group l's all-reduce may start (§III-B).
//   - [choice] Stage times h of Eq (18)–(19) depend only on the group's
//     bytes, the number of chunks d = z − z' it overlaps, the thread count
//     and whether z = Z; they are tabulated once per group (per pair (l', l)
//     in Fuse), which changes no value and no order of comparison, and cuts
//     the curves' evaluations from K·Z²·J to K·Z·J.
//   - [choice] A thread count must be positive and R must list each count
//     once; the programmes need a positive total computation to cut into
//     chunks.
package libra
