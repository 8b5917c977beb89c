package units

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseInt reads whole numbers as written and refuses, with what to
// write instead, every form another reader takes in another sense.
func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		msg  string // what the error names; "" for a number read
	}{
		{in: "0", want: 0},
		{in: "7", want: 7},
		{in: "16", want: 16},
		{in: "10", want: 10},
		{in: "-1", want: -1},
		{in: " 5", want: 5},
		{in: "5\t", want: 5},
		{in: "9223372036854775807", want: 1<<63 - 1},
		{in: "-9223372036854775808", want: -1 << 63},
		{in: "010", msg: `"010" has a leading zero, which some readers take as octal; write 10 (or 8 if octal was meant)`},
		{in: "09", msg: `"09" has a leading zero; write 9`},
		{in: "00", msg: "leading zero"},
		{in: "-0", msg: "leading zero"},
		{in: "-010", msg: "leading zero"},
		{in: "0x10", msg: `"0x10" is not a whole number in decimal digits: no base prefix (acemu reads decimal only); write 16 if that is what 0x10 means`},
		{in: "0X10", msg: "write 16"},
		{in: "0o10", msg: "write 8"},
		{in: "0b10", msg: "write 2"},
		{in: "1_6", msg: "no underscores; write 16"},
		{in: "1_000", msg: "no underscores; write 1000"},
		{in: "+5", msg: "no plus sign; write 5"},
		{in: "1e3", msg: "no decimal point or exponent; write 1000"},
		{in: "3.0", msg: "no decimal point or exponent; write 3"},
		{in: "1.5", msg: `"1.5" is not a whole number`},
		{in: "1 000", msg: "not a whole number"},
		{in: "", msg: "empty"},
		{in: " ", msg: "empty"},
		{in: "-", msg: "not a whole number"},
		{in: "abc", msg: "digits 0-9 only"},
		{in: "１６", msg: "not a whole number"},
		{in: "0x1p4", msg: "not a whole number"},
		{in: "Inf", msg: "not a whole number"},
		{in: "NaN", msg: "not a whole number"},
		{in: "99999999999999999999", msg: "beyond what acemu counts"},
		{in: strings.Repeat("9", 1<<20), msg: `"99999999999999999999999999999999"… (1048576 digits) is beyond what acemu counts`},
		{in: "1" + strings.Repeat("0", 1<<20) + ".0", msg: "(1048579 characters) is not a whole number in decimal digits; write e.g. 16"},
	}
	for _, tc := range tests {
		t.Run(tc.in[:min(len(tc.in), 32)], func(t *testing.T) {
			got, err := ParseInt(tc.in)
			if tc.msg == "" {
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
				return
			}
			require.ErrorContains(t, err, tc.msg)
			require.Less(t, len(err.Error()), 200, "the message does not grow with the input")
			require.Equal(t, int64(0), got)
		})
	}
}

// TestParseIntRange lets a caller tell a number too large from one
// malformed.
func TestParseIntRange(t *testing.T) {
	_, err := ParseInt("99999999999999999999")
	require.True(t, errors.Is(err, strconv.ErrRange))
	_, err = ParseInt("0x10")
	require.False(t, errors.Is(err, strconv.ErrRange))
}
