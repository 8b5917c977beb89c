package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// The version line: the module version and the commit Go stamped, and
// whether the tree had changes; "(devel)" and "unknown" where nothing was
// stamped.
func TestVersionLine(t *testing.T) {
	stamped := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/acemu/acemu", Version: version}}
		for i := 0; i < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "35a6d6557e825b4af1536dab74be85c90bc1cf6f"
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "acemu (devel), commit unknown"},
		{"go run: nothing stamped", stamped("(devel)"), "acemu (devel), commit unknown"},
		{"no version", stamped("", "vcs.revision", rev), "acemu (devel), commit " + rev},
		{"go build in a clean checkout", stamped("v0.0.0-20261126135155-35a6d6557e82", "vcs", "git", "vcs.revision", rev, "vcs.modified", "false"),
			"acemu v0.0.0-20261126135155-35a6d6557e82, commit " + rev},
		{"go build with changes", stamped("v0.0.0-20261126135155-35a6d6557e82+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			"acemu v0.0.0-20261126135155-35a6d6557e82+dirty, commit " + rev + ", modified"},
		{"a tagged release", stamped("v1.2.0", "vcs.revision", rev, "vcs.modified", "false"), "acemu v1.2.0, commit " + rev},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, versionLine(tc.bi))
		})
	}
}

// acemu --version and acemu version print one line on stdout, this
// binary's; extra arguments are refused.
func TestVersionCommand(t *testing.T) {
	bi, _ := debug.ReadBuildInfo()
	tests := []struct {
		name string
		args []string
	}{
		{"flag", []string{"--version"}},
		{"command", []string{"version"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			require.Equal(t, 0, code)
			require.Empty(t, errOut)
			require.Equal(t, versionLine(bi)+"\n", out, "the wiring: TestVersionLine checks the line")
		})
	}
	requireRefused(t, 2, `acemu version: unexpected argument "x"`, "version", "x")
	requireRefused(t, 2, `acemu version: unexpected argument "x"`, "--version", "x")
}
