package validation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
)

// TestQuickFindingsHold runs every figure's quick subset and requires
// each of the papers' findings to hold on acemu: ACE ahead of every
// baseline, less memory bandwidth for 90 % of ideal than the baseline,
// returns diminishing past the paper's design point, and the rest.
func TestQuickFindingsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every figure's quick subset")
	}
	for _, f := range Figures() {
		if !f.Quick {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			start := time.Now()
			o, err := f.Run(Env{Platform: platform.Default(), Quick: true})
			require.NoError(t, err)
			t.Logf("%s: %s", f.Name, time.Since(start))
			require.NotEmpty(t, o.Findings, "a figure in the quick subset checks at least one finding")
			for _, x := range o.Findings {
				require.True(t, x.OK(), "%s: %s (%s); holds %v, known disagreement %q", x.Where, x.Claim, x.Measured, x.Holds, x.Known)
			}
		})
	}
}
