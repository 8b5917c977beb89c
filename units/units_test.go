package units

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want int64
	}{
		{"64MiB", 64 << 20},
		{"64 MiB", 64 << 20},
		{"8KiB", 8192},
		{"8KIB", 8192}, // the prefix in any case; a lower-case b is bits (TestBitsAreRefused)
		{"1GiB", 1 << 30},
		{"64MB", 64_000_000},
		{"8KB", 8000},
		{"1.5GB", 1_500_000_000},
		{"4096", 4096},
		{"4096B", 4096},
		{"0.5KiB", 512},
		{"64M", 64 << 20},
	}
	for _, tc := range good {
		got, err := ParseSize(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	bad := []struct{ in, msg string }{
		{"", "empty"},
		{"abc", "not a number"},
		{"64XB", "not a number"},
		{"0", "at least 1 byte"},
		{"-5MiB", "at least 1 byte"},
		{"0.3B", "at least 1 byte"},
		{"1.0001KB", "whole number"},
		{"2PiB", "more than 1 PiB"}, // a unit, beyond the limit
		{"9999TB", "1 PiB"},
		{"NaN", "not a number"},
	}
	for _, tc := range bad {
		_, err := ParseSize(tc.in)
		require.ErrorContains(t, err, tc.msg, tc.in)
	}
}

// A lower-case b is bits, which acemu does not take: refused with the fix,
// in sizes and bandwidths; B (bytes) is read in any case of its prefix.
func TestBitsAreRefused(t *testing.T) {
	for _, s := range []string{"64Kib", "64Mb", "64kb", "8b", "1Gb"} {
		_, err := ParseSize(s)
		require.ErrorContains(t, err, "lower-case b is bits", s)
	}
	for _, s := range []string{"100Gb/s", "100Gbps", "100gb/s", "100gbs"} {
		_, err := ParseBandwidth(s)
		require.ErrorContains(t, err, "lower-case b is bits", s)
	}
	for s, want := range map[string]int64{"64KB": 64000, "64kB": 64000, "2MiB": 2 << 20, "8B": 8, "1PiB": 1 << 50} {
		n, err := ParseSize(s)
		require.NoError(t, err, s)
		require.Equal(t, want, n, s)
	}
	for _, s := range []string{"128GB/s", "128 GB/s", "128GBps", "128gB/s", "128"} {
		r, err := ParseBandwidth(s)
		require.NoError(t, err, s)
		require.Equal(t, "128", r.RatString(), s)
	}
}

// Count's noun is plural but for one: "1 iteration", "2 iterations",
// "0 chunks".
func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 chunks", 1: "1 chunk", 2: "2 chunks"} {
		require.Equal(t, want, Count(n, "chunk"))
	}
}

// Ratio has two decimals, and more where two would print a ratio that is
// not 1 as 1.00.
func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{1, "1.00"},
		{1.5604, "1.56"},
		{0.91, "0.91"},
		{1.004, "1.004"},   // 1.00 at two decimals
		{0.9995, "0.9995"}, // 1.00 at two, 1.000 at three (0.9995 is 0.99950000000000005507 in binary)
		{0.996, "0.996"},
		{2.675, "2.67"}, // 2.67499999999999982236431605997495353221893310546875
	} {
		require.Equal(t, tc.want, Ratio(tc.v), "%v", tc.v)
	}
}

// SizeLabel: a whole number of the largest binary unit, else whole
// decimal MB, else bytes, with sep before the unit.
func TestSizeLabel(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		sep  string
		want string
	}{
		{64 << 20, "", "64MiB"},      // 67108864 = 64 × 2²⁰
		{64 << 10, " ", "64 KiB"},    // 65536 = 64 × 2¹⁰
		{3 << 30, " ", "3 GiB"},      // 3 × 2³⁰
		{100_000_000, "", "100MB"},   // 10⁸ = 100 × 10⁶, not a whole number of KiB (10⁸ / 1024 = 97656.25)
		{100_000_000, " ", "100 MB"}, // the same, spaced
		{1000, "", "1000B"},
		{0, " ", "0 B"},
	} {
		require.Equal(t, tc.want, SizeLabel(tc.n, tc.sep), "%d", tc.n)
	}
}
