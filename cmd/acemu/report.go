package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/validation"
)

// reportFlags are the flags `acemu reproduce all` takes; it refuses the
// others, which choose one figure's runs.
var reportFlags = []string{"quick", "out", "workers"}

// runReproduceAll is `acemu reproduce all`: every figure of the
// registry (validation.Figures), or with --quick its CI-sized subset, and
// the report (Markdown) on stdout and, with --out DIR, as DIR/report.md
// beside each figure's plots (DIR/NAME/). With --quick a finding that
// does not hold is an error (exit 1): it is the check the tests run.
func runReproduceAll(fs *pflag.FlagSet, quick bool, outDir string, workers int, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce all: %v\n", err)
		return 1
	}
	var given []string
	fs.Visit(func(f *pflag.Flag) {
		if !slices.Contains(reportFlags, f.Name) {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 0 {
		return fail(fmt.Errorf("%s chooses one figure's runs; `acemu reproduce all` runs every figure as its paper set it up and takes only --quick, --out and --workers", given[0]))
	}
	if err := checkWorkers(workers); err != nil {
		return fail(err)
	}
	e := validation.Env{Platform: platform.Default(), Quick: quick, Workers: workers, Dir: outDir}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
	}
	rep, err := validation.Run(e)
	if err != nil {
		return fail(err)
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return fail(err)
	}
	if outDir != "" {
		if err := outfile.Write(filepath.Join(outDir, "report.md"), b.Bytes()); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fail(err)
	}
	if broken := rep.Broken(); len(broken) > 0 {
		for _, s := range broken {
			fmt.Fprintf(stderr, "acemu reproduce all: finding does not hold: %s\n", s)
		}
		if quick {
			return 1
		}
	}
	return 0
}
