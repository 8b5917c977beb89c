package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A mistyped command gets the nearest one, by edit distance, when it is
// close; else none.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args []string
		want string // the message's first line
	}{
		{[]string{"colective"}, `acemu: unknown command "colective"; did you mean collective?`},
		{[]string{"Collective"}, `acemu: unknown command "Collective"; did you mean collective?`},
		{[]string{"sewep"}, `acemu: unknown command "sewep"; did you mean sweep?`},
		{[]string{"reproduc"}, `acemu: unknown command "reproduc"; did you mean reproduce?`},
		{[]string{"topolgy"}, `acemu: unknown command "topolgy"; did you mean topology?`},
		{[]string{"HELP"}, `acemu: unknown command "HELP"; did you mean help?`},
		{[]string{"vesrion"}, `acemu: unknown command "vesrion"; did you mean version?`},
		{[]string{"bogus"}, `acemu: unknown command "bogus"`},
		{[]string{"frobnicate"}, `acemu: unknown command "frobnicate"`},
		{[]string{"cfg"}, `acemu: unknown command "cfg"`}, // 3 of 6 letters wrong: too far
		{[]string{"help", "microcdoe"}, `acemu help: unknown command "microcdoe"; did you mean microcode?`},
		{[]string{"help", "help"}, `acemu help: unknown command "help"`}, // help is no command of help
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			require.Equal(t, 2, code)
			require.Empty(t, out)
			first, rest, _ := strings.Cut(errOut, "\n")
			require.Equal(t, tc.want, first)
			require.Contains(t, rest, "Usage:")
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"sweep", "sweep", 0},
		{"colective", "collective", 1}, // a letter missing
		{"sweeep", "sweep", 1},         // one extra
		{"swaep", "sweep", 1},          // one changed
		{"sewep", "sweep", 1},          // two swapped
		{"kitten", "sitting", 3},
		{"naïve", "naive", 1}, // by runes
	}
	for _, tc := range tests {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			require.Equal(t, tc.want, editDistance(tc.a, tc.b))
			require.Equal(t, tc.want, editDistance(tc.b, tc.a))
		})
	}
}
