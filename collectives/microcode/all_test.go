package microcode

import (
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// Every registered algorithm's listing round-trips through the text form
// and installs back into its plan.
func TestEveryAlgorithmRoundTripsAndInstalls(t *testing.T) {
	shapes := []torus.Shape{{L: 4, V: 1, H: 1}, {L: 2, V: 3, H: 4}, {L: 4, V: 2, H: 2}}
	for _, a := range collectives.Algorithms() {
		for _, op := range a.Ops {
			for _, shape := range shapes {
				name := a.Name + " " + op.String() + " " + shape.String()
				t.Run(name, func(t *testing.T) {
					plan, err := collectives.NewPlan(collectives.Config{Machine: shape.Machine(), Op: op, MessageBytes: 8192}, a.Name, 100_003, 64<<10)
					if err != nil {
						t.Skipf("no plan: %v", err)
					}
					secs := CompilePlan(plan)
					text := writeText(t, secs)
					got, err := Parse("all.ucode", strings.NewReader(text))
					require.NoError(t, err)
					require.Equal(t, secs, withoutPositions(t, got, "all.ucode"))
					require.Equal(t, text, writeText(t, got))
					require.NoError(t, Install(plan, got))
				})
			}
		}
	}
}

// withoutPositions requires that Parse recorded where it read each section
// (file, and an out line per phase) and returns the sections without it,
// to compare with compiled ones.
func withoutPositions(t *testing.T, secs []Section, file string) []Section {
	t.Helper()
	out := make([]Section, len(secs))
	for i, s := range secs {
		require.Equal(t, file, s.File)
		require.Len(t, s.OutLines, len(s.Phases))
		for _, l := range s.OutLines {
			require.Positive(t, l)
		}
		s.File, s.OutLines = "", nil
		out[i] = s
	}
	return out
}
