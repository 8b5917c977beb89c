package systems

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func rat(n int64) *big.Rat { return big.NewRat(n, 1) }

// tableVI is the ACE paper's Table VI, written out here independently of
// the presets in systems.go.
var tableVI = []struct {
	name        string
	kind        Kind
	commSMs     int
	commGBps    int64
	computeSMs  int
	computeGBps int64
	overlap     bool
}{
	{"baseline-nooverlap", Baseline, 80, 900, 80, 900, false},
	{"baseline-commopt", Baseline, 6, 450, 74, 450, true},
	{"baseline-compopt", Baseline, 2, 128, 78, 772, true},
	{"ace", ACE, 0, 128, 80, 772, true},
	{"ideal", Ideal, 0, 0, 80, 900, true},
}

func TestPresetsMatchTableVI(t *testing.T) {
	for _, want := range tableVI {
		t.Run(want.name, func(t *testing.T) {
			s, err := Lookup(want.name)
			require.NoError(t, err)
			require.Equal(t, want.name, s.Name)
			require.Equal(t, want.kind, s.Kind)
			require.Equal(t, want.commSMs, s.CommSMs)
			require.NotNil(t, s.CommMemGBps)
			require.Equal(t, 0, s.CommMemGBps.Cmp(rat(want.commGBps)), "comm memory %s GB/s", s.CommMemGBps.RatString())
			require.Equal(t, want.computeSMs, s.ComputeSMs)
			require.Equal(t, 0, s.ComputeMemGBps.Cmp(rat(want.computeGBps)), "compute memory %s GB/s", s.ComputeMemGBps.RatString())
			require.Equal(t, want.overlap, s.Overlap)
			require.NotEmpty(t, s.Help)
			require.NoError(t, s.Validate())

			c := s.Compute()
			require.Equal(t, want.computeSMs, c.SMs)
			require.Equal(t, 0, c.MemGBps.Cmp(rat(want.computeGBps)))
			require.NoError(t, c.Validate())

			// Table VI is consistent with the rule With applies: no override
			// changes nothing.
			same, err := s.With(nil, nil)
			require.NoError(t, err)
			require.Equal(t, s, same)
		})
	}
}

func TestNames(t *testing.T) {
	require.Equal(t, []string{"baseline-nooverlap", "baseline-commopt", "baseline-compopt", "ace", "ideal", "baseline", "baseline-libra", "baseline-libra-fusion"}, Names())
	for _, n := range Names() {
		s, err := Lookup(n)
		require.NoError(t, err)
		require.Equal(t, n, s.Name)
	}
}

func TestKindString(t *testing.T) {
	require.Equal(t, "ideal", Ideal.String())
	require.Equal(t, "ace", ACE.String())
	require.Equal(t, "baseline", Baseline.String())
	require.Equal(t, "Kind(7)", Kind(7).String())
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("gpu")
	require.Error(t, err)
	require.Contains(t, err.Error(), `"gpu"`)
	for _, n := range []string{"baseline-nooverlap", "baseline-commopt", "baseline-compopt", "ace", "ideal", "baseline"} {
		require.Contains(t, err.Error(), n)
	}
}

// Lookup returns fresh values: changing one does not change the preset.
func TestLookupIsACopy(t *testing.T) {
	s, err := Lookup("ace")
	require.NoError(t, err)
	s.CommMemGBps.SetInt64(1)
	s.ComputeMemGBps.SetInt64(1)
	again, err := Lookup("ace")
	require.NoError(t, err)
	require.Equal(t, "128", again.CommMemGBps.RatString())
	require.Equal(t, "772", again.ComputeMemGBps.RatString())
}

func TestWithRecomputesCompute(t *testing.T) {
	tests := []struct {
		name        string
		system      string
		sms         *int
		mem         *big.Rat
		commSMs     int
		commGBps    *big.Rat
		computeSMs  int
		computeGBps *big.Rat
	}{
		// 80 − 8 = 72 SMs; memory kept at 450, so 900 − 450 = 450.
		{"commopt 8 SMs", "baseline-commopt", ptr(8), nil, 8, rat(450), 72, rat(450)},
		// 900 − 300 = 600 GB/s; SMs kept at 6, so 74.
		{"commopt 300 GB/s", "baseline-commopt", nil, rat(300), 6, rat(300), 74, rat(600)},
		// 80 − 4 = 76, 900 − 200 = 700.
		{"compopt both", "baseline-compopt", ptr(4), rat(200), 4, rat(200), 76, rat(700)},
		// 900 − 133.5 = 766.5, exact.
		{"ace fractional memory", "ace", nil, big.NewRat(267, 2), 0, big.NewRat(267, 2), 80, big.NewRat(1533, 2)},
		// ACE with the 80 GB/s of Fig. 12's embedding optimisation added: 900 − 208 = 692.
		{"ace 208 GB/s", "ace", nil, rat(208), 0, rat(208), 80, rat(692)},
		// No overlap: communication runs after compute, so compute keeps all.
		{"nooverlap 10 SMs 100 GB/s", "baseline-nooverlap", ptr(10), rat(100), 10, rat(100), 80, rat(900)},
		{"nooverlap all 80 SMs", "baseline-nooverlap", ptr(80), rat(900), 80, rat(900), 80, rat(900)},
		// The baseline without defaults: 80 − 6 = 74, 900 − 450 = 450 (= commopt).
		{"baseline as commopt", "baseline", ptr(6), rat(450), 6, rat(450), 74, rat(450)},
		// Largest overlapping split: 80 − 79 = 1 SM, 900 − 899.5 = 0.5 GB/s.
		{"baseline at the limit", "baseline", ptr(79), big.NewRat(1799, 2), 79, big.NewRat(1799, 2), 1, big.NewRat(1, 2)},
		// The ideal endpoint takes no overrides and needs none.
		{"ideal unchanged", "ideal", nil, nil, 0, rat(0), 80, rat(900)},
		// An explicit 0 SMs is what the ideal endpoint and ACE use.
		{"ideal 0 SMs", "ideal", ptr(0), nil, 0, rat(0), 80, rat(900)},
		{"ace 0 SMs", "ace", ptr(0), nil, 0, rat(128), 80, rat(772)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Lookup(tc.system)
			require.NoError(t, err)
			before := s.clone()
			var mem *big.Rat
			if tc.mem != nil {
				mem = new(big.Rat).Set(tc.mem)
			}
			got, err := s.With(tc.sms, mem)
			require.NoError(t, err)
			require.Equal(t, tc.system, got.Name)
			require.Equal(t, s.Kind, got.Kind)
			require.Equal(t, s.Overlap, got.Overlap)
			require.Equal(t, tc.commSMs, got.CommSMs)
			require.Equal(t, 0, got.CommMemGBps.Cmp(tc.commGBps), "comm %s", got.CommMemGBps.RatString())
			require.Equal(t, tc.computeSMs, got.ComputeSMs)
			require.Equal(t, 0, got.ComputeMemGBps.Cmp(tc.computeGBps), "compute %s", got.ComputeMemGBps.RatString())
			require.NoError(t, got.Validate())
			require.Equal(t, before, s, "With must not modify its receiver")
			if mem != nil {
				mem.SetInt64(1) // the result must not alias the argument
				require.Equal(t, 0, got.CommMemGBps.Cmp(tc.commGBps))
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		system string
		sms    *int
		mem    *big.Rat
		want   []string // substrings of the error
	}{
		{"baseline without values", "baseline", nil, nil, []string{"baseline", "--comm-sms", "--comm-mem-bw", "missing --comm-sms and --comm-mem-bw"}},
		{"baseline without memory", "baseline", ptr(6), nil, []string{"pass --comm-sms", "missing --comm-mem-bw"}},
		{"baseline without SMs", "baseline", nil, rat(450), []string{"pass --comm-sms", "missing --comm-sms"}},
		{"commopt 81 SMs", "baseline-commopt", ptr(81), nil, []string{"baseline-commopt", "--comm-sms 81", "1..79"}},
		{"commopt 80 SMs leaves none to compute", "baseline-commopt", ptr(80), nil, []string{"--comm-sms 80", "compute", "1..79"}},
		{"nooverlap 81 SMs", "baseline-nooverlap", ptr(81), nil, []string{"--comm-sms 81", "1..80"}},
		{"negative SMs", "baseline-compopt", ptr(-2), nil, []string{"--comm-sms -2", "1..79"}},
		{"baseline 0 SMs", "baseline-commopt", ptr(0), nil, []string{"--comm-sms 0", "1..79"}},
		{"nooverlap 0 SMs", "baseline-nooverlap", ptr(0), rat(100), []string{"--comm-sms 0", "1..80"}},
		{"baseline zero memory", "baseline-commopt", nil, rat(0), []string{"--comm-mem-bw 0 GB/s", "positive", "(0, 900)"}},
		{"baseline negative memory", "baseline-commopt", nil, rat(-10), []string{"--comm-mem-bw -10 GB/s", "(0, 900)"}},
		{"commopt 900 GB/s leaves none to compute", "baseline-commopt", nil, rat(900), []string{"--comm-mem-bw 900 GB/s", "compute", "(0, 900)"}},
		{"nooverlap 901 GB/s", "baseline-nooverlap", nil, rat(901), []string{"--comm-mem-bw 901 GB/s", "(0, 900]"}},
		{"fractional memory named exactly", "baseline-compopt", nil, big.NewRat(2704, 3), []string{"901.333333 (2704/3) GB/s"}},
		{"ace zero memory", "ace", nil, rat(0), []string{"ace", "--comm-mem-bw 0 GB/s", "positive"}},
		{"ace too much memory", "ace", nil, rat(1000), []string{"--comm-mem-bw 1000 GB/s", "(0, 900)"}},
		{"ace SMs", "ace", ptr(2), nil, []string{"--comm-sms 2", "no SMs", "drop --comm-sms"}},
		{"ideal SMs", "ideal", ptr(1), nil, []string{"ideal", "--comm-sms 1", "drop --comm-sms"}},
		{"ideal memory", "ideal", nil, rat(128), []string{"--comm-mem-bw 128 GB/s", "drop --comm-mem-bw"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Lookup(tc.system)
			require.NoError(t, err)
			got, err := s.With(tc.sms, tc.mem)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
			require.Equal(t, s, got, "on error With returns its receiver unchanged")
		})
	}
}

// The baseline preset is not usable until its values are given.
func TestBaselineNeedsValues(t *testing.T) {
	s, err := Lookup("baseline")
	require.NoError(t, err)
	require.Equal(t, Baseline, s.Kind)
	require.True(t, s.Overlap)
	err = s.Validate()
	require.Error(t, err)
	require.Contains(t, err.Error(), "pass --comm-sms")
	require.Contains(t, err.Error(), "--comm-mem-bw")
}

// Validate also checks systems built by hand.
func TestValidateHandBuilt(t *testing.T) {
	bad := System{Name: "mine", Kind: Kind(9), CommMemGBps: rat(1), ComputeSMs: 80, ComputeMemGBps: rat(900)}
	err := bad.Validate()
	require.Error(t, err)
	require.Contains(t, err.Error(), "Kind(9)")

	noCompute := System{Name: "mine", Kind: ACE, CommMemGBps: rat(128), ComputeSMs: 0, ComputeMemGBps: rat(772), Overlap: true}
	err = noCompute.Validate()
	require.Error(t, err)
	require.Contains(t, err.Error(), "mine: compute SMs 0")

	noMem := System{Name: "mine", Kind: ACE, ComputeSMs: 80, ComputeMemGBps: rat(772), Overlap: true}
	err = noMem.Validate()
	require.Error(t, err)
	require.Contains(t, err.Error(), "--comm-mem-bw")
}

func TestFmtGBps(t *testing.T) {
	require.Equal(t, "450", fmtGBps(rat(450)))
	require.Equal(t, "133.5", fmtGBps(big.NewRat(267, 2)))
	require.Equal(t, "0.333333 (1/3)", fmtGBps(big.NewRat(1, 3)))
}

// ACE's memory share comes from its design point: ACE takes it (compute
// keeps the rest of 900 GB/s), the others ignore it.
func TestWithACEMemory(t *testing.T) {
	a, err := Lookup("ace")
	require.NoError(t, err)
	got, err := a.WithACEMemory(big.NewRat(200, 1))
	require.NoError(t, err)
	require.Zero(t, got.CommMemGBps.Cmp(big.NewRat(200, 1)))
	require.Zero(t, got.ComputeMemGBps.Cmp(big.NewRat(700, 1)))
	c, err := Lookup("baseline-commopt")
	require.NoError(t, err)
	same, err := c.WithACEMemory(big.NewRat(200, 1))
	require.NoError(t, err)
	require.Zero(t, same.CommMemGBps.Cmp(big.NewRat(450, 1)))
}

// ptr returns a pointer to n, for With's SMs.
func ptr(n int) *int { return &n }
