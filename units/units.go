// Package units reads and writes the quantities of acemu's parameters and
// flags: byte counts (64MiB, 8KB) and bandwidths in GB/s (10^9 B/s, as the
// ACE paper counts), exactly.
package units

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize accepts: binary (KiB = 1024) and
// decimal (KB = 1000) prefixes, in any case but for the B (a lower-case b
// is bits, refused), with or without a space.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50}, {"eib", 1 << 60},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"pb", 1e15}, {"eb", 1e18},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// MaxSize is the largest size acemu takes, 1 PiB: beyond any collective
// it can run (a workload file's sizes are bounded alike).
const MaxSize = 1 << 50

// ParseSize reads a byte count such as "64MiB", "8 KiB", "1.5GB" or "4096".
// KiB, MiB, GiB are powers of 1024; KB, MB, GB powers of 1000; a bare K, M,
// G is binary. The result must be a whole number of bytes.
func ParseSize(s string) (int64, error) {
	if bits(s) {
		return 0, fmt.Errorf("size %q: a lower-case b is bits; acemu counts bytes: write B (e.g. 64KiB, 8MB)", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("size is empty; give bytes with an optional unit, e.g. 64MiB or 8KiB")
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q: not a number with a unit; use e.g. 64MiB, 8KiB, 1GB or 4096", s)
	}
	b := v * float64(mult)
	if b < 1 {
		return 0, fmt.Errorf("size %q: must be at least 1 byte", s)
	}
	if b > MaxSize {
		return 0, fmt.Errorf("size %q: more than 1 PiB is not a size this model can run", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("size %q is %g bytes: not a whole number of bytes", s, b)
	}
	return int64(b), nil
}

// ParseBandwidth reads a bandwidth in GB/s (10^9 B/s, as the paper counts):
// "128GB/s", "128 GB/s", "128GBps" or a bare "128". It returns an exact
// fraction.
func ParseBandwidth(s string) (*big.Rat, error) {
	if bits(s) {
		return nil, fmt.Errorf("bandwidth %q: a lower-case b is bits; acemu counts bytes: write GB/s (e.g. 128GB/s)", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"gb/s", "gbps", "gbs"} {
		t = strings.TrimSpace(strings.TrimSuffix(t, suf))
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok || t == "" {
		return nil, fmt.Errorf("bandwidth %q: not a number of GB/s; write e.g. 128GB/s", s)
	}
	if r.Sign() <= 0 {
		return nil, fmt.Errorf("bandwidth %q: must be positive", s)
	}
	return r, nil
}

// bits reports whether s's unit ends in a lower-case b (Kib, Mb, 8b,
// Gb/s, Gbps): bits, which acemu does not take.
func bits(s string) bool {
	t := strings.TrimSpace(s)
	for _, suf := range []string{"/s", "/S", "ps", "pS", "s"} {
		if u, ok := strings.CutSuffix(t, suf); ok && strings.HasSuffix(u, "b") {
			t = u
			break
		}
	}
	return len(t) > 1 && strings.HasSuffix(t, "b")
}

// FormatSize writes n bytes as ParseSize reads them back: in the largest
// binary unit (GiB, MiB, KiB) it is a whole number of, or in B.
func FormatSize(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.m == 0 {
			return fmt.Sprintf("%d%s", n/u.m, u.s)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// SizeLabel writes n bytes as a figure or table labels them: in the
// largest binary unit it is a whole number of (as FormatSize), else in
// whole decimal MB (the papers' "100 MB"), else in B; sep goes between
// the number and the unit ("" for "64MiB", " " for "64 MiB").
func SizeLabel(n int64, sep string) string {
	if n != 0 && n%(1<<10) == 0 {
		s := FormatSize(n)
		i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		return s[:i] + sep + s[i:]
	}
	if n != 0 && n%1_000_000 == 0 {
		return strconv.FormatInt(n/1_000_000, 10) + sep + "MB"
	}
	return strconv.FormatInt(n, 10) + sep + "B"
}

// FormatBandwidth writes a bandwidth in GB/s as ParseBandwidth reads it
// back: a decimal when it has one of at most 9 digits, else a fraction.
func FormatBandwidth(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String() + "GB/s"
	}
	s := r.FloatString(9)
	if x, ok := new(big.Rat).SetString(s); ok && x.Cmp(r) == 0 {
		return strings.TrimRight(strings.TrimRight(s, "0"), ".") + "GB/s"
	}
	return r.RatString() + "GB/s"
}

// Count writes n and a noun, plural unless n is 1: "1 iteration", "2
// iterations", "0 chunks". The noun's plural is its singular and "s".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Ratio writes a ratio (a speed-up, a time over another) with two decimals,
// or with as many more as it takes (up to six) not to print 1.00 for a
// ratio that is not 1: 0.9995 is "0.9995", 1.004 is "1.004", 1 is "1.00".
func Ratio(v float64) string {
	for d := 2; d < 6; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if v == 1 || s != "1."+strings.Repeat("0", d) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}
