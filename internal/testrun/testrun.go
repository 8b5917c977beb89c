// Package testrun holds what several packages' tests run: a small
// workload and Table VI's systems by name.
package testrun

import (
	"strings"
	"testing"

	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// TwoLayers is an ASTRA-sim workload "small" of two layers, 5000 cycles
// of compute in each pass, all-reducing 1 000 000 and 200 000 bytes of
// weight gradients.
func TwoLayers(t testing.TB) *workload.Workload {
	w, err := workload.ParseAstraSim(strings.NewReader("DATA\n2\n"+
		"a\t-1\t5000\tNONE\t0\t5000\tNONE\t0\t5000\tALLREDUCE\t1000000\t0\n"+
		"b\t-1\t5000\tNONE\t0\t5000\tNONE\t0\t5000\tALLREDUCE\t200000\t0\n"), "small.txt")
	require.NoError(t, err)
	return w
}

// Systems returns Table VI's systems named.
func Systems(t testing.TB, names ...string) []systems.System {
	var ss []systems.System
	for _, n := range names {
		s, err := systems.Lookup(n)
		require.NoError(t, err)
		ss = append(ss, s)
	}
	return ss
}
