package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/units"
)

// noteBareSize says on stderr, as command (e.g. "acemu collective"), that
// a --size given as a bare number has no unit and is read as bytes: still
// accepted, but "--size 64" is more often a slip for 64MiB than a wish for
// 64 bytes. Nothing is said of a size with a unit, of --size's default,
// or of a size that does not parse (its error says what is wrong).
func noteBareSize(stderr io.Writer, command string, fs *pflag.FlagSet) {
	if !fs.Changed("size") {
		return
	}
	v := fs.Lookup("size").Value.String()
	if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
		return
	}
	n, err := units.ParseSize(v)
	if err != nil {
		return
	}
	fmt.Fprintf(stderr, "%s: --size %s has no unit, read as %d B (write %dB to say so, or e.g. 64MiB or 64MB)\n", command, v, n, n)
}
