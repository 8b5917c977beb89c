package main

import (
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/acemu/acemu/internal/buildinfo"
	"github.com/acemu/acemu/platform"

	"github.com/spf13/pflag"
)

const versionUsage = `Usage: acemu version (or acemu --version)

Print acemu's module version and the commit it was built from, one line:
"acemu VERSION, commit REVISION", with ", modified" when the working tree
had changes. Both come from what Go stamps into a binary built in a git
checkout (go build, go install); "(devel)" and "commit unknown" where it
stamps none (go run, go test, -buildvcs=false).
`

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), versionUsage) }
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(bi))
	return 0
}

// versionLine says which acemu bi is: its module version ("(devel)" when
// unknown) and its VCS commit ("unknown" when not stamped), and whether
// the tree it was built from had changes. bi may be nil.
func versionLine(bi *debug.BuildInfo) string { return buildOf(bi).String() }

// build is which acemu made a result (buildinfo.Build).
type build = buildinfo.Build

// buildOf reads bi (nil for none): "(devel)" and "unknown" where Go
// stamped nothing.
func buildOf(bi *debug.BuildInfo) build { return buildinfo.Of(bi) }

// schemaVersion is the version of acemu's JSON documents: 2 since every
// ratio in them is a fraction of 1 (0.5 is half) and they carry
// provenance (docs/cli.md, "JSON").
const schemaVersion = 2

// provenance is what every result says of where it comes from: the build
// and the platform parameters changed from the defaults (by --config,
// --set or a named flag), key to value as the configuration file writes
// them.
type provenance struct {
	build
	Settings map[string]string `json:"settings"`
}

// provenanceOf is this binary's provenance with p's changed settings.
func provenanceOf(p platform.Platform) *provenance {
	bi, _ := debug.ReadBuildInfo()
	pv := &provenance{build: buildOf(bi), Settings: map[string]string{}}
	for _, s := range platform.Changed(p) {
		pv.Settings[s.Key] = s.Value
	}
	return pv
}

// line is the provenance as a table's last line.
func (pv *provenance) line() string {
	s := pv.build.String()
	if len(pv.Settings) == 0 {
		return s + "; platform: the defaults (acemu config dump)"
	}
	keys := slices.Sorted(maps.Keys(pv.Settings))
	for i, k := range keys {
		keys[i] = k + "=" + pv.Settings[k]
	}
	return s + "; platform: the defaults but " + strings.Join(keys, ", ")
}
