package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// acemu chakra gen --kind data-parallel writes the trace of an ASTRA-sim
// DATA file; acemu --workload on it, durations read as nanoseconds, prints
// the CSV rows the file prints for one iteration, every column alike
// (docs/chakra.md, "Equivalence"); the table's line above names the
// reading, and the default reading (microseconds) is a thousand times
// slower compute.
func TestChakraGenAndRunMatchTheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "three.txt")
	require.NoError(t, os.WriteFile(file, []byte("DATA\n3\n"+
		"a\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t300000\t2000\n"+
		"b\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t700000\t2000\n"+
		"c\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t65536\t2000\n"), 0o644))
	prefix := filepath.Join(dir, "tr", "three")
	code, out, errOut := runCLI("chakra", "gen", "--kind", "data-parallel", "--workload", file, "--npus", "8", "--out", prefix)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote 8 ranks of 11 nodes each") // 3 forward, 3 weight-gradient, 3 all-reduces, 2 input-gradient (none for layer 0)
	args := []string{"--topo", "2x2x2", "--systems", "ideal,baseline-compopt,ace", "--format", "csv"}
	code, want, errOut := runCLI(append(args, "--workload", file, "--iterations", "1")...)
	require.Equal(t, 0, code, errOut)
	code, got, errOut := runCLI(append(args, "--workload", prefix+".0.et", "--chakra-time", "ns")...)
	require.Equal(t, 0, code, errOut)
	// Every column but ACE's utilisation by pass, which a trace, having
	// no passes, leaves empty.
	rows := func(csv string) (out []string) {
		for _, l := range strings.Split(strings.TrimSpace(csv), "\n")[:4] {
			f := strings.Split(l, ",")
			out = append(out, strings.Join(f[:len(f)-2], ","))
		}
		return out
	}
	require.Equal(t, rows(want), rows(got))
	require.True(t, strings.HasSuffix(strings.Split(got, "\n")[3], ",,"), "ACE's utilisation by pass is empty")

	code, table, errOut := runCLI("--topo", "2x2x2", "--systems", "ideal", "--workload", prefix)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, table, "duration_micros read as microseconds (--chakra-time us")
	require.Contains(t, table, "Chakra trace three on 2x2x2 (8 NPUs, one rank each)")
}
