package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/validation"
)

// Every option flag a registered figure declares is one acemu reproduce
// has: a figure's flags are read from the command line, never unknown.
func TestEveryFigureFlagIsAReproduceFlag(t *testing.T) {
	for _, f := range validation.Figures() {
		for _, fl := range f.Flags {
			require.Contains(t, optionFlags, fl, f.Name)
		}
	}
}
