// Package systems names the endpoints the ACE paper compares, Table VI of
// Rashidi et al., "Enabling Compute-Communication Overlap in Distributed Deep
// Learning Training Platforms" (ISCA 2021), as presets: how many SMs and how
// much memory bandwidth each gives to communication, what is left to
// compute, and whether communication overlaps compute. docs/baseline-model.md
// describes them; how compute uses what it gets is the roofline of
// npu.Compute.
//
// The presets, in Table VI's order:
//
//	name                 kind      comm SMs  comm GB/s  compute SMs  compute GB/s  overlap
//	baseline-nooverlap   baseline  80        900        80           900           no
//	baseline-commopt     baseline  6         450        74           450           yes
//	baseline-compopt     baseline  2         128        78           772           yes
//	ace                  ace       0         128        80           772           yes
//	ideal                ideal     0         0          80           900           yes
//
// and baseline, a baseline with no defaults whose communication SMs and
// memory bandwidth must be given; then LIBRA's baselines, baseline-libra
// (LIBRA-M) and baseline-libra-fusion (LIBRA), on 450 GB/s, whose
// weight-gradient all-reduces run one at a time on the SMs LIBRA's
// programmes choose (docs/libra.md). Bandwidths are per direction, in GB/s
// (10^9 B/s), held exactly as big.Rat. When communication overlaps compute,
// compute gets the NPU's 80 SMs and 900 GB/s minus communication's share;
// BaselineNoOverlap runs communication after compute, so each gets the
// whole NPU in its turn.
package systems
