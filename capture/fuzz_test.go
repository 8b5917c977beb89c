package capture

import "testing"

// FuzzParseFilter: no --pcap-filter panics.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "npu=0", "npu=0,coll=1,cycles=0-200000", "link=3,link=7", "npu=0-3,chunk=1", "link=2", "npu=-1", "npu=3-1", "x=1", "npu=99999999999999999999", "npu=0-9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseFilter(s)
	})
}
