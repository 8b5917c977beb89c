package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/validation"
)

// Every option flag a registered figure declares is one acemu reproduce
// has, and reads as an option: a figure's flags come from the command
// line, never unknown (its help lists each).
func TestEveryFigureFlagIsAReproduceFlag(t *testing.T) {
	var out, errb bytes.Buffer
	runReproduce([]string{"--help"}, &out, &errb)
	help := out.String() + errb.String()
	for _, f := range validation.Figures() {
		for _, fl := range f.Flags {
			require.Contains(t, optionFlags, fl, f.Name)
			require.Regexp(t, `(?m)^\s+(-\w, )?--`+regexp.QuoteMeta(fl)+`\b`, help, "%s: --%s is not a flag of acemu reproduce", f.Name, fl)
		}
	}
}
