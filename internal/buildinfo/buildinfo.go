// Package buildinfo says which acemu is running: its module version and
// the VCS commit Go stamped into the binary, for results to record and
// for stored results to be compared by (docs/sweeps.md, "What is
// verified").
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Build is which acemu made a result: its module version and VCS commit
// (what Go stamps into the binary) and whether its tree had changes.
type Build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified,omitempty"`
}

// String is "acemu VERSION, commit REVISION", with ", modified" when the
// tree had changes.
func (b Build) String() string {
	line := fmt.Sprintf("acemu %s, commit %s", b.Version, b.Commit)
	if b.Modified {
		line += ", modified"
	}
	return line
}

// Same reports whether b and o are one build as far as the binary says:
// the same version and commit. Whether a tree had changes is not
// compared, since nothing says which changes; two builds Go stamped
// nothing into ("(devel)", "unknown") are the same.
func (b Build) Same(o Build) bool { return b.Version == o.Version && b.Commit == o.Commit }

// Of reads bi (nil for none): "(devel)" and "unknown" where Go stamped
// nothing (go run, go test, -buildvcs=false).
func Of(bi *debug.BuildInfo) Build {
	b := Build{Version: "(devel)", Commit: "unknown"}
	if bi == nil {
		return b
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// This is the running binary's build.
func This() Build {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi)
}
