package libra

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// tol is the tolerance of the golden comparisons: the goldens are exact
// fractions, the package computes in float64.
const tol = 1e-12

// modelM is the small model of the golden tests (times in ms): R = {1024,
// 2048, 4096}; Eq (5) with α1 = 1, α2 = 1/8192, so ρ = 7/8, 3/4, 1/2;
// a = 1; p = c/x_o with x_o = 1, 3/2, 2 and q = c/x_n with x_n = 2, 3, 4,
// so p + a ≥ q + a (Assumption 2) and (p + a)(1 − ρ) ≤ q + a
// (Assumption 3, see randomModel).
func modelM() *Model {
	xo := map[int]float64{1024: 1, 2048: 1.5, 4096: 2}
	xn := map[int]float64{1024: 2, 2048: 3, 4096: 4}
	return linearModel(Slowdown{Alpha1: 1, Alpha2: 1.0 / 8192}, xo, xn, 1)
}

// modelCF is modelM without contention (the MG-CF reference): ρ = 1 and
// p = q = c/4 at every thread count.
func modelCF() *Model {
	x := map[int]float64{1024: 4, 2048: 4, 4096: 4}
	return linearModel(Slowdown{Alpha1: 1}, x, x, 1)
}

// linearModel has g of Eq (5) and p, q = c / x(r) from tables.
func linearModel(g ComputeCurve, xo, xn map[int]float64, a float64) *Model {
	curve := func(x map[int]float64) CommFunc {
		return func(c int64, r int) (float64, error) {
			v, ok := x[r]
			if !ok {
				return 0, fmt.Errorf("no rate at %d threads", r)
			}
			return float64(c) / v, nil
		}
	}
	return &Model{G: g, P: curve(xo), Q: curve(xn), Startup: a}
}

var threadsM = []int{1024, 2048, 4096}

func TestRingEq4(t *testing.T) {
	for _, tc := range []struct {
		n        int
		a, ratio float64 // a in units of α (α = 1), ĉ/c
		why      string
	}{
		{2, 2, 1, "2(N−1) = 2, 2·1/2 = 1"},
		{4, 6, 1.5, "2·3 = 6, 6/4 = 1.5"},
		{8, 14, 1.75, "2·7 = 14, 14/8 = 1.75"},
		{16, 30, 1.875, "2·15 = 30, 30/16 = 1.875"},
		{2048, 4094, 1.9990234375, "2·2047 = 4094, 4094/2048 = 1.9990234375"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			r, err := NewRing(tc.n, 1)
			require.NoError(t, err)
			require.Equal(t, tc.a, r.Startup())
			require.Equal(t, tc.ratio*1024, r.Volume(1024))
		})
	}
	// 112.7 MB at N = 8: ĉ = 1.75 × 112.7e6 = 197.225e6 B; at the line rate of
	// 50 Gb/s = 6.25e6 B/ms, ĉ/x = 31.556 ms (α = 0, so a = 0).
	r, err := NewRing(8, 0)
	require.NoError(t, err)
	got, err := AllreduceTime(r, 112_700_000, 6.25e6)
	require.NoError(t, err)
	require.InDelta(t, 31.556, got, 1e-9)
}

func TestComputeEq5(t *testing.T) {
	s := Slowdown{Alpha1: 1, Alpha2: 1.0 / 8192}
	for _, tc := range []struct {
		b    float64
		r    int
		want float64
		why  string
	}{
		{10, 2048, 40.0 / 3, "ρ = 1 − 2048/8192 = 3/4, 10/(3/4) = 40/3"},
		{10, 4096, 20, "ρ = 1/2, 10/(1/2) = 20"},
		{10, 0, 10, "ρ = 1"},
		{0, 4096, 0, "no computation"},
	} {
		got, err := s.Time(tc.b, tc.r)
		require.NoError(t, err, tc.why)
		require.InDelta(t, tc.want, got, tol, tc.why)
	}
	_, err := s.Time(10, 8192) // ρ = 1 − 1 = 0: undefined
	require.ErrorContains(t, err, "not a positive rate")
	_, err = s.Time(10, 10000)
	require.ErrorContains(t, err, "drop 10000 from the thread set")
	_, err = s.Time(-1, 1024)
	require.ErrorContains(t, err, "≥ 0")
	_, err = s.Time(math.NaN(), 1024)
	require.ErrorContains(t, err, "finite")
	_, err = s.Time(1, -5)
	require.ErrorContains(t, err, "thread count")
}

func TestTransmissionEq6(t *testing.T) {
	// r^0.6 at the paper's R (2^(7·0.6) … 2^(12·0.6)); 1024^0.6 = 2^6 exactly.
	for r, want := range map[int]float64{128: 18.379174, 256: 27.857618, 512: 42.224253, 1024: 64, 2048: 97.005860, 4096: 147.033389, 32: 8} {
		require.InDelta(t, want, math.Pow(float64(r), Gamma4), 1e-6, "r = %d", r)
	}
	ring, err := NewRing(8, 0)
	require.NoError(t, err)
	d := Diminishing{Gamma1: 2, Gamma2: 1, Gamma3: math.Ln2 / 64, Gamma4: Gamma4, Alg: ring}
	// c = 12 at N = 8: ĉ = 1.75·12 = 21.
	for _, tc := range []struct {
		r    int
		want float64
		why  string
	}{
		{1024, 14, "exp(−(ln2/64)·64) = 1/2, 21/(2 − 1/2) = 14"},
		{0, 21, "exp(0) = 1, 21/(2 − 1) = 21"},
		{1 << 30, 10.5, "exp(−large) → 0, 21/2 = 10.5"},
	} {
		got, err := d.Time(12, tc.r)
		require.NoError(t, err, tc.why)
		require.InDelta(t, tc.want, got, 1e-9, tc.why)
	}
	bad := []struct {
		d    Diminishing
		c    int64
		want string
	}{
		{Diminishing{Gamma1: 1, Gamma2: 2, Gamma3: 0, Gamma4: Gamma4, Alg: ring}, 1, "not a positive rate"},
		{Diminishing{Gamma1: 2, Gamma2: 1, Gamma3: 1, Gamma4: Gamma4}, 1, "no all-reduce algorithm"},
		{d, -1, "≥ 0"},
	}
	for _, b := range bad {
		_, err := b.d.Time(b.c, 1024)
		require.ErrorContains(t, err, b.want)
	}
	_, err = d.Time(1, -1)
	require.ErrorContains(t, err, "thread count")
}

func TestRingAndAllreduceErrors(t *testing.T) {
	_, err := NewRing(1, 1)
	require.ErrorContains(t, err, "at least 2")
	_, err = NewRing(8, -1)
	require.ErrorContains(t, err, "≥ 0")
	_, err = NewRing(8, math.Inf(1))
	require.ErrorContains(t, err, "finite")
	r, err := NewRing(8, 1)
	require.NoError(t, err)
	_, err = AllreduceTime(r, 1, 0)
	require.ErrorContains(t, err, "rate")
	_, err = AllreduceTime(r, -1, 1)
	require.ErrorContains(t, err, "gradient size")
}

func TestOverlapEq8to11(t *testing.T) {
	m := modelM()
	for _, tc := range []struct {
		c    int64
		b    float64
		r    int
		want Overlap
		why  string
	}{
		{6, 6, 2048, Overlap{5, 9.0 / 4, 0},
			"g = 6/(3/4) = 8 > P = 1 + 6/(3/2) = 5: f_o = 5, δ_b = 3/8, f_b = 9/4"},
		{6, 6, 1024, Overlap{48.0 / 7, 0, 4.0 / 49},
			"g = 48/7 < P = 7: δ_c = 1/49, f_c = Q·δ_c = (1 + 6/2)/49 = 4/49"},
		{6, 0, 4096, Overlap{0, 0, 2.5}, "no computation: f_c = Q = 1 + 6/4"},
		{0, 6, 4096, Overlap{0, 6, 0}, "no communication: f_b = b"},
		{0, 0, 4096, Overlap{}, "nothing"},
		{2, 3, 4096, Overlap{2, 2, 0}, "g = 3/(1/2) = 6 > P = 1 + 2/2 = 2: δ_b = 1 − 2/6 = 2/3, f_b = 3·2/3 = 2"},
	} {
		got, err := m.Overlap(tc.c, tc.b, tc.r)
		require.NoError(t, err, tc.why)
		require.InDelta(t, tc.want.Time, got.Time, tol, tc.why)
		require.InDelta(t, tc.want.ComputeLeft, got.ComputeLeft, tol, tc.why)
		require.InDelta(t, tc.want.CommLeft, got.CommLeft, tol, tc.why)
	}
	// A tie, g = P: neither is left (δ < Eps is zero). g(3, 4096) = 6 = P(10, 4096) = 1 + 10/2.
	got, err := m.Overlap(10, 3, 4096)
	require.NoError(t, err)
	require.Equal(t, Overlap{Time: 6}, got)
}

func TestOverlapErrors(t *testing.T) {
	m := modelM()
	nan := &Model{G: m.G, P: CommFunc(func(int64, int) (float64, error) { return math.NaN(), nil }), Q: m.Q, Startup: 1}
	neg := &Model{G: ComputeFunc(func(float64, int) (float64, error) { return -1, nil }), P: m.P, Q: m.Q}
	for _, tc := range []struct {
		m    *Model
		c    int64
		b    float64
		r    int
		want string
	}{
		{m, -1, 1, 1024, "gradient size -1"},
		{m, 1, -1, 1024, "compute size -1"},
		{m, 1, math.Inf(1), 1024, "finite"},
		{m, 1, 1, 0, "0 communication threads"},
		{m, 1, 1, 512, "p(1, 512): no rate at 512"},
		{&Model{G: m.G}, 1, 1, 1024, "set Model.G, Model.P and Model.Q"},
		{&Model{G: m.G, P: m.P, Q: m.Q, Startup: -1}, 1, 1, 1024, "start-up time -1"},
		{nan, 1, 1, 1024, "p(1, 1024): the curve gave NaN"},
		{neg, 1, 1, 1024, "g(1, 1024): the curve gave -1"},
		{&Model{G: Slowdown{Alpha1: 1, Alpha2: 1.0 / 8192}, P: m.P, Q: m.Q}, 1, 1, 8192, "not a positive rate"},
	} {
		_, err := tc.m.Overlap(tc.c, tc.b, tc.r)
		require.ErrorContains(t, err, tc.want)
	}
}
