package main

import (
	"fmt"
	"io"
	"runtime/debug"

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
func versionLine(bi *debug.BuildInfo) string {
	version, rev, modified := "(devel)", "unknown", false
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := fmt.Sprintf("acemu %s, commit %s", version, rev)
	if modified {
		line += ", modified"
	}
	return line
}
