package units

import "testing"

// FuzzParseSize: no size panics; one that parses is not negative and reads
// back from FormatSize to the same bytes.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"64MiB", "8KiB", "1GB", "4096", "1.5MiB", "-1", "0", "1EiB", "99999999999999999999", "12XB", "", " 2 MiB "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("%q parsed to %d bytes", s, n)
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, n, FormatSize(n), back, err)
		}
	})
}

// FuzzParseBandwidth: no bandwidth panics; one that parses is positive and
// reads back from FormatBandwidth to the same exact value.
func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"128GB/s", "128 GB/s", "128GBps", "0.5", "3/2", "-1", "0", "1e9999999", "abc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 {
			return // big.Rat reads any length; a flag value is short
		}
		r, err := ParseBandwidth(s)
		if err != nil {
			return
		}
		if r.Sign() <= 0 {
			t.Fatalf("%q parsed to %s", s, r)
		}
		back, err := ParseBandwidth(FormatBandwidth(r))
		if err != nil || back.Cmp(r) != 0 {
			t.Fatalf("%q -> %s -> %q -> %v, %v", s, r, FormatBandwidth(r), back, err)
		}
	})
}
