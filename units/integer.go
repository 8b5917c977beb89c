package units

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ParseInt reads a whole number as it is written: decimal digits, with a
// minus sign for a negative one, and surrounding white space ignored
// (docs/cli.md, "Numbers"). It refuses what other readers take in another
// sense or round: a leading zero (010, octal 8 to some readers), a base
// prefix (0x10, 0o10, 0b10), underscores (1_000), a plus sign, a decimal
// point (3.0) or an exponent (1e3). Each refusal says what to write
// instead. A number beyond int64 is refused with an error that wraps
// strconv.ErrRange, so that a caller can give its own range.
func ParseInt(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty: give a whole number in decimal digits, e.g. 16")
	}
	if len(t) > maxIntText {
		q := strconv.Quote(t[:maxIntText/2]) + "…"
		if strings.Trim(strings.TrimPrefix(t, "-"), "0123456789") == "" {
			return 0, fmt.Errorf("%s (%d digits) is beyond what acemu counts (%d): %w", q, len(t), int64(1<<63-1), strconv.ErrRange)
		}
		return 0, fmt.Errorf("%s (%d characters) is not a whole number in decimal digits; write e.g. 16", q, len(t))
	}
	digits := strings.TrimPrefix(t, "-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		if len(digits) > 1 && digits[0] == '0' || digits != t && strings.Trim(digits, "0") == "" {
			return 0, leadingZero(t, digits)
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is beyond what acemu counts (%d): %w", t, int64(1<<63-1), strconv.ErrRange)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%q is not a whole number in decimal digits%s", t, suggestInt(t))
}

// maxIntText is the longest text ParseInt reads: an int64 has at most 20
// digits, and a longer text is quoted in part, so that neither the time
// nor the message grows with the input.
const maxIntText = 64

// leadingZero is ParseInt's error for t, whose digits start with a zero:
// what to write instead, and what an octal reader makes of it.
func leadingZero(t, digits string) error {
	x, err := strconv.ParseInt(strings.TrimLeft(digits, "0"), 10, 64)
	if err != nil || digits != t {
		return fmt.Errorf("%q has a leading zero; write it without (acemu reads decimal digits only)", t)
	}
	if o, err := strconv.ParseInt(digits, 8, 64); err == nil && o != x {
		return fmt.Errorf("%q has a leading zero, which some readers take as octal; write %d (or %d if octal was meant)", t, x, o)
	}
	return fmt.Errorf("%q has a leading zero; write %d", t, x)
}

// suggestInt says what to write instead of t, a number not written in
// decimal digits, when t is one in another form (0x10, 1_000, +5, 3.0,
// 1e3), or how to write a number.
func suggestInt(t string) string {
	if n, err := strconv.ParseInt(t, 0, 64); err == nil {
		switch {
		case strings.Contains(t, "_"):
			return fmt.Sprintf(": no underscores; write %d", n)
		case strings.HasPrefix(t, "+"):
			return fmt.Sprintf(": no plus sign; write %d", n)
		default:
			return fmt.Sprintf(": no base prefix (acemu reads decimal only); write %d if that is what %s means", n, t)
		}
	}
	if f, ok := new(big.Float).SetString(t); ok && f.IsInt() && !strings.ContainsAny(t, "xXpP_") {
		if n, acc := f.Int64(); acc == big.Exact {
			return fmt.Sprintf(": no decimal point or exponent; write %d", n)
		}
	}
	return "; write e.g. 16 (digits 0-9 only)"
}
