package torus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShapeSizesAreReadAsWritten reads LxVxH's sizes by the rule of every
// number (units.ParseInt): decimal digits, nothing else.
func TestShapeSizesAreReadAsWritten(t *testing.T) {
	tests := []struct{ text, msg string }{
		{"4x2x1", ""},
		{" 4 x 2 x 1 ", ""},
		{"04x2x1", `dimension L "04" is not a whole number ("04" has a leading zero`},
		{"+4x2x1", `dimension L "+4" is not a whole number ("+4" is not a whole number in decimal digits: no plus sign; write 4)`},
		{"4x2x1.0", `dimension H "1.0" is not a whole number`},
		{"4x2_0x1", "no underscores; write 20"},
		{"4x99999999999999999999x1", "dimension V is 99999999999999999999, too large"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			s, err := Parse(tc.text)
			if tc.msg == "" {
				require.NoError(t, err)
				require.Equal(t, Shape{L: 4, V: 2, H: 1}, s)
				return
			}
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
