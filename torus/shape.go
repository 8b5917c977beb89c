package torus

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/units"
)

// MaxNPUs is the largest number of NPUs (L*V*H) a topology may have.
const MaxNPUs = 1 << 16

// Shape is the size of each dimension of the torus: L NPUs per package on
// the local ring, and packages on a V×H 2D torus.
//
// The methods of Shape other than Validate and String assume a valid shape
// (see Validate).
type Shape struct{ L, V, H int }

// ErrFile is what Parse's error wraps when the topology names a file: a
// caller that knows where topology files are read can say so.
var ErrFile = errors.New("a file, where a torus LxVxH is wanted")

// topologyExample is the example the error messages suggest.
const topologyExample = "4x8x4"

// Parse reads a topology written "LxVxH", for example "4x8x4". The separator
// may also be an upper-case X, and spaces around the whole string and around
// each size are ignored. The shape must pass Validate. Errors quote the input
// and say both what is wrong and how to fix it.
func Parse(s string) (Shape, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return Shape{}, fmt.Errorf("topology %q is empty; want three sizes LxVxH, e.g. %s", s, topologyExample)
	}
	if low := strings.ToLower(text); strings.Contains(text, "/") || strings.HasSuffix(low, ".yaml") || strings.HasSuffix(low, ".yml") || strings.HasSuffix(low, ".json") {
		return Shape{}, fmt.Errorf("topology %q: %w, e.g. %s", s, ErrFile, topologyExample)
	}
	parts := strings.Split(strings.ReplaceAll(text, "X", "x"), "x")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}

	// A part that is not a number is reported first: it is the most specific
	// problem ("axb" is better told "a is not a whole number" than "want three
	// sizes"). Numbers too large for an int are range problems, reported
	// below.
	for i, p := range parts {
		if p == "" {
			continue // a missing size is a count problem, reported below
		}
		if _, err := units.ParseInt(p); err != nil && !errors.Is(err, strconv.ErrRange) {
			name := "size " + strconv.Itoa(i+1)
			if len(parts) == NumDims {
				name = "dimension " + Dim(i).letter()
			}
			return Shape{}, fmt.Errorf("topology %q: %s %q is not a whole number (%v); want three sizes LxVxH, e.g. %s",
				s, name, p, err, topologyExample)
		}
	}
	if len(parts) > NumDims {
		return Shape{}, fmt.Errorf("topology %q: too many sizes (%d); want three sizes LxVxH, e.g. %s",
			s, len(parts), topologyExample)
	}
	if len(parts) < NumDims {
		return Shape{}, fmt.Errorf("topology %q: want three sizes LxVxH, e.g. %s", s, topologyExample)
	}

	var sizes [NumDims]int
	for i, p := range parts {
		if p == "" {
			return Shape{}, fmt.Errorf("topology %q: dimension %s is missing; want three sizes LxVxH, e.g. %s",
				s, Dim(i).letter(), topologyExample)
		}
		n, err := units.ParseInt(p)
		if err != nil || int64(int(n)) != n {
			// Out of the int range: too large or too negative.
			d := Dim(i).letter()
			if strings.HasPrefix(p, "-") {
				return Shape{}, fmt.Errorf("topology %q: dimension %s is %s; every dimension must be at least 1 (e.g. 4x4x4)",
					s, d, p)
			}
			return Shape{}, fmt.Errorf("topology %q: dimension %s is %s, too large; L*V*H must be at most %d (MaxNPUs), e.g. %s",
				s, d, p, MaxNPUs, topologyExample)
		}
		sizes[i] = int(n)
	}
	sh := Shape{L: sizes[Local], V: sizes[Vertical], H: sizes[Horizontal]}
	if err := sh.validate(strconv.Quote(s)); err != nil {
		return Shape{}, err
	}
	return sh, nil
}

// Validate checks the rules Parse applies, for a Shape built in code: every
// dimension is at least 1 and L*V*H is at most MaxNPUs. The product is checked
// without overflowing, however large the sizes.
func (s Shape) Validate() error {
	return s.validate(strconv.Quote(s.String()))
}

// validate is Validate with the topology named as quoted.
func (s Shape) validate(quoted string) error {
	sizes := s.sizes()
	for d, n := range sizes {
		if n < 1 {
			return fmt.Errorf("topology %s: dimension %s is %d; every dimension must be at least 1 (e.g. 4x4x4)",
				quoted, Dim(d).letter(), n)
		}
	}
	// Every size is >= 1 here, so p*n > MaxNPUs exactly when n > MaxNPUs/p,
	// which is checked before the multiplication can overflow.
	p := 1
	for _, n := range sizes {
		if n > MaxNPUs/p {
			return fmt.Errorf("topology %s: %s NPUs is more than MaxNPUs (%d); make L*V*H at most %d, e.g. %s",
				quoted, productText(sizes), MaxNPUs, MaxNPUs, topologyExample)
		}
		p *= n
	}
	return nil
}

// productText spells out L*V*H for an error message, with its value when it
// fits in a uint64.
func productText(sizes [NumDims]int) string {
	expr := fmt.Sprintf("%d*%d*%d", sizes[0], sizes[1], sizes[2])
	var p uint64 = 1
	for _, n := range sizes {
		u := uint64(n)
		if p > ^uint64(0)/u {
			return expr
		}
		p *= u
	}
	return expr + " = " + strconv.FormatUint(p, 10)
}

// String writes the shape the way Parse reads it, e.g. "4x8x4".
func (s Shape) String() string {
	return fmt.Sprintf("%dx%dx%d", s.L, s.V, s.H)
}

// N is the number of NPUs, L*V*H.
func (s Shape) N() int { return s.L * s.V * s.H }

// sizes returns the sizes indexed by Dim.
func (s Shape) sizes() [NumDims]int { return [NumDims]int{s.L, s.V, s.H} }

// Size is the number of NPUs on each ring of dimension d. It panics if d is
// not one of Local, Vertical, Horizontal.
func (s Shape) Size(d Dim) int {
	switch d {
	case Local:
		return s.L
	case Vertical:
		return s.V
	case Horizontal:
		return s.H
	}
	panic(fmt.Sprintf("torus: invalid dimension %d", int(d)))
}
