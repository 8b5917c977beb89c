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
					require.Equal(t, secs, got)
					require.Equal(t, text, writeText(t, got))
					require.NoError(t, Install(plan, got))
				})
			}
		}
	}
}
