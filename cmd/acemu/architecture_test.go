package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docs/architecture.md's list of packages says what each imports of this
// module (internal/* helpers left out); it is checked against the import
// declarations of every package's non-test files, so it cannot go stale.
func TestArchitectureListsEveryPackagesImports(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "## Packages and their direction")
	require.GreaterOrEqual(t, start, 0)
	block := text[start:]
	block = block[strings.Index(block, "```\n")+4:]
	block = block[:strings.Index(block, "```")]
	listed := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		var deps []string
		if len(f) > 2 && f[1] == "→" {
			for _, d := range f[2:] { // "a, b, c   what it is": the names up to the first without a comma
				deps = append(deps, strings.TrimSuffix(d, ","))
				if !strings.HasSuffix(d, ",") {
					break
				}
			}
		}
		listed[pkg] = deps
	}
	const module = "github.com/acemu/acemu/"
	actual := map[string][]string{}
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, ".") && rel != "." || strings.HasPrefix(rel, "cmd") || strings.HasPrefix(rel, "internal") ||
			strings.Contains(rel, "testdata") || rel == "workload/builtin/gen" || rel == "scripts" || rel == "docs" {
			if rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ImportsOnly)
		if err != nil || len(pkgs) == 0 {
			return err
		}
		set := map[string]bool{}
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, imp := range f.Imports {
					q, _ := strconv.Unquote(imp.Path.Value)
					if dep, ok := strings.CutPrefix(q, module); ok && !strings.HasPrefix(dep, "internal/") {
						set[dep] = true
					}
				}
			}
		}
		var deps []string
		for d := range set {
			deps = append(deps, d)
		}
		slices.Sort(deps)
		actual[rel] = deps
		return nil
	}))
	for pkg, deps := range actual {
		got, ok := listed[pkg]
		require.True(t, ok, "docs/architecture.md does not list package %s", pkg)
		slices.Sort(got)
		require.Equal(t, deps, got, "docs/architecture.md: what %s imports", pkg)
	}
	for pkg := range listed {
		_, ok := actual[pkg]
		require.True(t, ok, "docs/architecture.md lists %s, which is not a package", pkg)
	}
}
