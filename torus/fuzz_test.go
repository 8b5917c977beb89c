package torus

import "testing"

// FuzzParse: no topology string panics; one that parses is valid and
// reads back from its own text to the same shape.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"4x8x4", " 4 X 2 x 2 ", "0x4x4", "4x4", "4x4x4x4", "axbxc", "1000000x1000000x1000000", "-1x2x2", "99999999999999999999x1x1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := Parse(s)
		if err != nil {
			return
		}
		if sh.Validate() != nil || sh.N() < 1 {
			t.Fatalf("%q parsed to an invalid shape %+v", s, sh)
		}
		back, err := Parse(sh.String())
		if err != nil || back != sh {
			t.Fatalf("%q -> %v does not read back (%v, %v)", s, sh, back, err)
		}
	})
}
