package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/validation"
)

// reportFlags are the flags `acemu reproduce all` takes; it refuses the
// others, which choose one figure's runs.
var reportFlags = []string{"quick", "out", "workers", "docs", "report", "only", "shard"}

// reportRun is what `acemu reproduce all` (or NAME --report) runs: the
// flags it takes, and names, the figures of NAME --report.
type reportRun struct {
	quick        bool
	outDir, docs string
	workers      int
	names, only  []string
	shard        sweep.Shard
	// keys and into are `acemu reproduce choices`'s --keys and --into.
	keys []string
	into string
}

// runReproduceAll is `acemu reproduce all`: every figure of the
// registry (validation.Figures), or with --quick its CI-sized subset, and
// the report (Markdown) on stdout and, with --out DIR, as DIR/report.md
// beside each figure's plots (DIR/NAME/). With --quick a finding that
// does not hold is an error (exit 1): it is the check the tests run.
//
// With names (`acemu reproduce NAME --report`), the same for those
// figures alone.
//
// With only (--only NAME,…, and --out DIR holding a report), it runs
// those figures alone and puts their results in place of theirs in
// DIR/report.json (their sweeps resume from DIR/NAME/): the report, and
// with --docs the page, as if every figure had run again.
//
// With a shard (--shard i/n), it runs that shard of every figure's
// sweeps into DIR and no report: acemu reproduce merge combines the
// shards' directories, and the command run again there gives it.
func runReproduceAll(fs *pflag.FlagSet, rr reportRun, stdout, stderr io.Writer) int {
	quick, outDir, docs, workers, names, only := rr.quick, rr.outDir, rr.docs, rr.workers, rr.names, rr.only
	cmd := "acemu reproduce all"
	if len(names) > 0 {
		cmd = "acemu reproduce " + strings.Join(names, " ") + " --report"
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
	if err := onlyFlags(fs, cmd, reportFlags...); err != nil {
		return fail(err)
	}
	if docs != "" && (quick || outDir == "") {
		return fail(fmt.Errorf("--docs %s writes the docs from the full report and its plots: give --out DIR, without --quick", docs))
	}
	if rr.shard.N > 1 && (docs != "" || len(only) > 0) {
		return fail(fmt.Errorf("--shard runs a slice of the figures' sweeps and writes no report: run --docs and --only on the merged directory, without --shard"))
	}
	if err := checkWorkers(workers); err != nil {
		return fail(err)
	}
	e := validation.Env{Platform: platform.Default(), Quick: quick, Workers: workers, Dir: outDir, Shard: rr.shard}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
	}
	var rep *validation.Report
	var err error
	if len(only) > 0 {
		rep, err = rerun(e, outDir, only)
	} else {
		rep, err = validation.Run(e, names...)
	}
	if err != nil {
		return fail(err)
	}
	if rr.shard.N > 1 {
		shardDone(stdout, rr.shard.String(), outDir)
		return 0
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return fail(err)
	}
	if outDir != "" {
		if err := writeReportFiles(rep, b.Bytes(), outDir); err != nil {
			return fail(err)
		}
	}
	if docs != "" {
		if err := writeDocs(rep, outDir, docs); err != nil {
			return fail(fmt.Errorf("--docs: %w", err))
		}
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fail(err)
	}
	if broken := rep.Broken(); len(broken) > 0 {
		for _, s := range broken {
			fmt.Fprintf(stderr, "%s: finding not as expected: %s\n", cmd, s)
		}
		if quick {
			return 1
		}
	}
	return 0
}

// writeReportFiles writes the report into dir as report.md (md, its
// Markdown) and report.json.
func writeReportFiles(rep *validation.Report, md []byte, dir string) error {
	if err := outfile.Write(filepath.Join(dir, "report.md"), md); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := writeReportJSON(rep, filepath.Join(dir, "report.json")); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeReportJSON writes the report as JSON to path.
func writeReportJSON(rep *validation.Report, path string) error {
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return err
	}
	return outfile.Write(path, b.Bytes())
}

// writeDocs writes the docs file (docs/validation.md) from the report and
// the analysis beside it (docs/validation/: its intro.md, NAME.md per
// figure, more.md), keeping the report there as report.json and each
// figure's SVGs, copied from the run's directory, under plots/NAME/.
func writeDocs(rep *validation.Report, outDir, docs string) error {
	dir := strings.TrimSuffix(docs, ".md")
	if dir == docs {
		return fmt.Errorf("%s: name a Markdown file such as docs/validation.md (its analysis in docs/validation/)", docs)
	}
	// The page first: a report or analysis it refuses writes nothing.
	var b bytes.Buffer
	if err := rep.WriteDocs(&b, os.DirFS(dir), filepath.ToSlash(filepath.Join(filepath.Base(dir), "plots"))); err != nil {
		return err
	}
	for _, res := range rep.Results {
		for _, p := range res.Plots {
			if filepath.Ext(p) != ".svg" {
				continue
			}
			svg, err := os.ReadFile(filepath.Join(outDir, res.Figure.Name, p))
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, "plots", res.Figure.Name, p)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := outfile.Write(dst, svg); err != nil {
				return err
			}
		}
	}
	if err := writeReportJSON(rep, filepath.Join(dir, "report.json")); err != nil {
		return err
	}
	return outfile.Write(docs, b.Bytes())
}

// runReproduceChoices is `acemu reproduce choices`: the report's figures
// (with --quick their quick subsets) at the defaults, then with each of
// the model's choices set to its other values, one at a time
// (validation.Choices), and what each moved, as Markdown on stdout and,
// with --out DIR, in DIR/choices.md (and the runs in DIR/choices.json).
func runReproduceChoices(fs *pflag.FlagSet, rr reportRun, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce choices: %v\n", err)
		return 1
	}
	quick, outDir, workers := rr.quick, rr.outDir, rr.workers
	if err := onlyFlags(fs, "acemu reproduce choices", "quick", "out", "workers", "shard", "keys", "into"); err != nil {
		return fail(err)
	}
	if err := checkWorkers(workers); err != nil {
		return fail(err)
	}
	choices, err := validation.ChoicesOf(rr.keys)
	if err != nil {
		return fail(fmt.Errorf("--keys: %w", err))
	}
	var earlier []validation.ChoiceRun
	if rr.into != "" {
		if rr.shard.N > 1 {
			return fail(fmt.Errorf("--into merges a whole run's results: run the shards without it, merge them (acemu reproduce merge), then run with --into on the merged directory"))
		}
		// A file not there yet is the first part's.
		if earlier, err = validation.ReadChoiceRuns(rr.into); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail(fmt.Errorf("--into: %w", err))
		}
	}
	e := validation.Env{Platform: platform.Default(), Quick: quick, Workers: workers, Dir: outDir, Shard: rr.shard}
	_, runs, err := validation.RunChoices(e, choices, func(k, v string) {
		fmt.Fprintf(stderr, "acemu reproduce choices: %s=%s\n", k, v)
	})
	if rr.shard.N > 1 && errors.Is(err, sweep.ErrSharded) {
		shardDone(stdout, rr.shard.String(), outDir)
		return 0
	}
	if err != nil {
		return fail(err)
	}
	if outDir != "" {
		// This run's own runs first: a merge refused below loses nothing.
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
		if err := validation.WriteChoiceRuns(filepath.Join(outDir, "choices.json"), runs); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
	}
	if rr.into != "" {
		merged, err := validation.MergeChoiceRuns(earlier, runs)
		if err != nil {
			kept := "rerun with --out DIR to keep this run's runs"
			if outDir != "" {
				kept = "this run's runs are in " + filepath.Join(outDir, "choices.json")
			}
			return fail(fmt.Errorf("--into %s: %w (%s)", rr.into, err, kept))
		}
		if err := validation.WriteChoiceRuns(rr.into, merged); err != nil {
			return fail(fmt.Errorf("--into: %w", err))
		}
		runs = merged
	}
	var b bytes.Buffer
	if err := validation.WriteChoices(&b, validation.Choices, runs, quick); err != nil {
		return fail(err)
	}
	if outDir != "" {
		if err := outfile.Write(filepath.Join(outDir, "choices.md"), b.Bytes()); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fail(err)
	}
	return 0
}

// rerun runs the figures named under e and puts their results in place of
// theirs in DIR/report.json's report, which must be a full run's; every
// figure's declaration (paper, place, title) is this build's.
func rerun(e validation.Env, outDir string, only []string) (*validation.Report, error) {
	if outDir == "" || e.Quick {
		return nil, fmt.Errorf("--only reruns figures of the full report in --out DIR: give --out DIR, without --quick")
	}
	f, err := os.Open(filepath.Join(outDir, "report.json"))
	if err != nil {
		return nil, fmt.Errorf("--only: %w (run acemu reproduce all --out DIR first)", err)
	}
	old, err := validation.ReadReport(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	if old.Quick {
		return nil, fmt.Errorf("--only: %s holds a quick report; run acemu reproduce all --out DIR first", outDir)
	}
	fresh, err := validation.Run(e, only...)
	if err != nil {
		return nil, err
	}
	for i, res := range old.Results {
		// The figures not run again keep their outcomes; what each is
		// (its paper, place and title) is this build's declaration.
		fig, ok := validation.Lookup(res.Figure.Name)
		if !ok {
			return nil, fmt.Errorf("--only: %s's report has %s, which no figure of this build is; run acemu reproduce all --out DIR", outDir, res.Figure.Name)
		}
		old.Results[i].Figure = fig
	}
	for _, res := range fresh.Results {
		i := slices.IndexFunc(old.Results, func(r validation.Result) bool { return r.Figure.Name == res.Figure.Name })
		if i < 0 {
			return nil, fmt.Errorf("--only: %s is not in %s's report; run acemu reproduce all --out DIR", res.Figure.Name, outDir)
		}
		old.Results[i] = res
	}
	return old, nil
}

// onlyFlags refuses a flag given to cmd other than those allowed: the
// others choose one figure's runs, and cmd runs each figure as its paper
// set it up.
func onlyFlags(fs *pflag.FlagSet, cmd string, allowed ...string) error {
	first := ""
	fs.Visit(func(f *pflag.Flag) {
		if first == "" && !slices.Contains(allowed, f.Name) {
			first = f.Name
		}
	})
	if first == "" {
		return nil
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = "--" + a
	}
	takes := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	// The other commands' own flags are not for cmd; every other flag
	// chooses a figure's runs (its options or its platform).
	if slices.Contains([]string{"docs", "only", "report", "keys", "into", "format", "plot"}, first) {
		return fmt.Errorf("--%s is not for `%s`, which takes only %s", first, cmd, takes)
	}
	return fmt.Errorf("--%s chooses one figure's runs; `%s` runs each figure as its paper set it up and takes only %s", first, cmd, takes)
}

// shardDone tells that a shard (what: "0/2", or "0/2 of fig5") has run
// its points into dir, and how its shards combine.
func shardDone(w io.Writer, what, dir string) {
	fmt.Fprintf(w, "shard %s: its points are in %s; acemu reproduce merge DIR... --out DIR combines the shards\n", what, dir)
}
