package torus

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGood(t *testing.T) {
	tests := []struct {
		in    string
		want  Shape
		wantN int
		str   string
	}{
		{"4x4x4", Shape{4, 4, 4}, 64, "4x4x4"},                // 4*4*4 = 64
		{"4x8x4", Shape{4, 8, 4}, 128, "4x8x4"},               // 4*8*4 = 128
		{"1x1x1", Shape{1, 1, 1}, 1, "1x1x1"},                 // a single NPU
		{"8x1x1", Shape{8, 1, 1}, 8, "8x1x1"},                 // one package of 8
		{" 4X2x2 ", Shape{4, 2, 2}, 16, "4x2x2"},              // upper-case X, spaces trimmed: 4*2*2 = 16
		{"2 x 3 x 4", Shape{2, 3, 4}, 24, "2x3x4"},            // spaces round each size: 2*3*4 = 24
		{"256x256x1", Shape{256, 256, 1}, 65536, "256x256x1"}, // 256*256 = 65536 = MaxNPUs, just allowed
		{"65536x1x1", Shape{65536, 1, 1}, 65536, "65536x1x1"}, // 2^16 = MaxNPUs
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantN, got.N())
			assert.Equal(t, tt.str, got.String())
			require.NoError(t, got.Validate())
		})
	}
}

func TestParseBad(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // substrings the error must contain
	}{
		{"zero", "4x0x4", []string{`topology "4x0x4"`, "dimension V is 0", "at least 1", "e.g. 4x4x4"}},
		{"trailing x", "4x", []string{`topology "4x"`, "want three sizes LxVxH", "e.g. 4x8x4"}},
		{"not numbers", "axb", []string{`topology "axb"`, `"a" is not a whole number`}},
		{"not a number in V", "4xax4", []string{"dimension V", `"a" is not a whole number`}},
		{"fraction", "4x2.5x4", []string{"dimension V", `"2.5" is not a whole number`}},
		{"two sizes", "4x4", []string{`topology "4x4"`, "want three sizes LxVxH"}},
		{"four sizes", "4x4x4x4", []string{`topology "4x4x4x4"`, "too many sizes (4)", "want three sizes LxVxH"}},
		{"negative L", "-1x4x4", []string{"dimension L is -1", "at least 1"}},
		{"negative V", "4x-2x4", []string{"dimension V is -2", "at least 1"}},
		{"empty", "", []string{`topology ""`, "empty", "want three sizes LxVxH"}},
		{"blank", "   ", []string{"empty", "want three sizes LxVxH"}},
		{"missing middle", "4xx4", []string{"dimension V is missing", "want three sizes LxVxH"}},
		// 256*256*2 = 131072 > 65536.
		{"oversized", "256x256x2", []string{"256*256*2 = 131072 NPUs", "more than MaxNPUs (65536)", "at most 65536"}},
		// 65537 > 65536 on its own.
		{"one dim oversized", "65537x1x1", []string{"65537*1*1 = 65537 NPUs", "more than MaxNPUs"}},
		// 100000^3 = 10^15 fits in an int64 but is far over the limit; the
		// check must not multiply first.
		{"huge", "100000x100000x100000", []string{"100000*100000*100000 = 1000000000000000 NPUs", "more than MaxNPUs"}},
		// (2^31)^3 = 2^93 overflows 64 bits: a wrapping product could
		// come out as 0 and pass.
		{"product overflows", "2147483648x2147483648x2147483648", []string{"2147483648*2147483648*2147483648 NPUs", "more than MaxNPUs"}},
		// 2^32 * 2^32 * 1 = 2^64 wraps to exactly 0 in uint64/int64.
		{"product wraps to zero", "4294967296x4294967296x1", []string{"4294967296*4294967296*1 NPUs", "more than MaxNPUs"}},
		// 10^20 does not fit in an int at all.
		{"size beyond int", "100000000000000000000x1x1", []string{"dimension L is 100000000000000000000, too large", "at most 65536"}},
		{"negative beyond int", "4x-100000000000000000000x1", []string{"dimension V is -100000000000000000000", "at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			require.Error(t, err)
			assert.Equal(t, Shape{}, got)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		shape Shape
		want  []string // substrings of the error; nil for a valid shape
	}{
		{"valid", Shape{4, 8, 4}, nil},
		{"zero value", Shape{}, []string{`topology "0x0x0"`, "dimension L is 0", "at least 1"}},
		{"zero H", Shape{4, 4, 0}, []string{"dimension H is 0"}},
		{"negative V", Shape{4, -3, 4}, []string{"dimension V is -3"}},
		// 256*256*2 = 131072 > 65536.
		{"oversized", Shape{256, 256, 2}, []string{"131072 NPUs", "more than MaxNPUs"}},
		// MaxInt*MaxInt*MaxInt would wrap; it must still be caught.
		{"max ints", Shape{math.MaxInt, math.MaxInt, math.MaxInt}, []string{"more than MaxNPUs"}},
		// MaxInt*2 wraps to -2 in int arithmetic.
		{"max int times two", Shape{math.MaxInt, 2, 1}, []string{"more than MaxNPUs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.shape.Validate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestSize(t *testing.T) {
	s := Shape{L: 2, V: 3, H: 4}
	tests := []struct {
		d    Dim
		want int
	}{
		{Local, 2},
		{Vertical, 3},
		{Horizontal, 4},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, s.Size(tt.d))
		})
	}
	assert.Panics(t, func() { s.Size(Dim(3)) })
}

// A topology that names a file is refused with ErrFile, which callers
// that know where topology files are read can recognise.
func TestParseNamesAFile(t *testing.T) {
	for _, s := range []string{"net.yaml", "dir/ring.json", "T.YML"} {
		_, err := Parse(s)
		require.ErrorIs(t, err, ErrFile, s)
		require.NotContains(t, err.Error(), "acemu", "the parser names no command")
	}
}
