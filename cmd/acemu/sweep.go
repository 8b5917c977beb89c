package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/workload"
)

const sweepUsage = `Usage: acemu sweep [--set KEY=V1,V2,...|KEY=FROM..TO:STEP ...] [--workload W1,W2] [--topo T1,T2] [--systems S1,S2] [flags]
       acemu sweep --file sweep.yaml [flags]
       acemu sweep merge DIR... [--format F] [--out DIR]

Run the comparator at every point of a grid: any platform parameter as an
axis (acemu config dump lists them), a list (ace.sram=1MiB,2MiB,4MiB) or a
range (ace.fsms=4..20:4, ace.sram=1MiB..8MiB:x2), times the workloads and
topologies; every system at every point. Prints every metric per point and
system, and an aggregate normalised to a reference point (each axis at its
default unless --reference says otherwise) and averaged over workloads and
topologies, with ACE's area and power from Table IV (docs/sweeps.md).

Points run in parallel. With --out DIR every finished point is kept in DIR,
and the same command again runs only the missing ones (Ctrl-C keeps what
finished). --shard i/n runs every n-th point from i (i = 0..n-1, e.g.
$SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX) into its own --out; merge
combines the shards' directories into exactly what one run prints. Each
kept point is verified before it is used (an edited one is refused: delete
it to run it again), and a directory or shards of another acemu build
are refused (docs/sweeps.md, "What is verified").

Flags:
`

// runSweep is acemu sweep.
func runSweep(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runSweepMerge(args[1:], stdout, stderr)
	}
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	file := fs.String("file", "", "sweep file (YAML or JSON): set, workloads, topologies, systems, reference (docs/sweeps.md)")
	sets := fs.StringArray("set", nil, "a parameter's value for every point (KEY=VALUE) or an axis: KEY=V1,V2,... or KEY=FROM..TO:STEP or KEY=FROM..TO:xFACTOR (repeatable, after the file's)")
	config := fs.String("config", "", "platform configuration file every point starts from (acemu config dump writes one)")
	wl := fs.String("workload", "resnet50", "workloads, comma-separated: built-in ("+strings.Join(workload.BuiltinNames(), ", ")+") or ASTRA-sim files (overrides the file's)")
	topo := fs.String("topo", "4x4x4", "machines, comma-separated: tori LxVxH, dgx1, switch:P0xP1 (overrides the file's; not topology files)")
	sysList := fs.String("systems", strings.Join(systems.Names()[:5], ","), "systems run at every point, comma-separated (overrides the file's)")
	refs := fs.StringArray("reference", nil, "the aggregate's reference value of an axis, KEY=VALUE (default: the axis parameter's default; repeatable)")
	workers := intFlag(fs, "workers", 0, "points run at once (default GOMAXPROCS)")
	shard := fs.String("shard", "", "run only shard i/n: the points whose index modulo n is i (i from 0)")
	out := fs.String("out", "", "keep the sweep and each finished point in this directory; run again to finish it; the results too when it is whole")
	format := fs.String("format", "table", "output: "+formats)
	var wide bool
	registerWide(fs, &wide)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", sweepUsage, fs.FlagUsages()) }
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu sweep: %v\n", err)
		return 1
	}
	if err := checkFormat(*format); err != nil {
		return fail(err)
	}
	if err := checkWorkers(*workers); err != nil {
		return fail(err)
	}
	base, err := platformFlags{config: *config}.buildWith(fs, nil)
	if err != nil {
		return fail(err)
	}
	req := sweep.Request{Base: base}
	if *file != "" {
		data, err := limited.ReadFile(*file, 1<<20, "a sweep file is a few KB")
		if err != nil {
			return fail(fmt.Errorf("--file: %w", err))
		}
		f, err := sweep.ReadFile(*file, data)
		if err != nil {
			return fail(fmt.Errorf("--file %w", err))
		}
		req.Sets, req.Workloads, req.Topologies, req.Systems, req.Reference = f.Sets, f.Workloads, f.Topologies, f.Systems, f.Reference
		req.Names.Workloads, req.Names.Topologies, req.Names.Systems = *file+": workloads", *file+": topologies", *file+": systems"
		for _, at := range f.SetsAt {
			req.Names.SetsFrom = append(req.Names.SetsFrom, "--file "+at)
		}
	}
	req.Sets = append(req.Sets, *sets...)
	req.Reference = append(req.Reference, *refs...)
	// A list flag given wins over the file's list (and errors then name
	// the flag: an empty name); a list neither gives takes the flag's
	// default.
	for _, l := range []struct {
		flag string
		val  string
		dst  *[]string
		name *string
	}{{"workload", *wl, &req.Workloads, &req.Names.Workloads}, {"topo", *topo, &req.Topologies, &req.Names.Topologies}, {"systems", *sysList, &req.Systems, &req.Names.Systems}} {
		if fs.Changed(l.flag) {
			*l.name = ""
		}
		if fs.Changed(l.flag) || *l.dst == nil {
			*l.dst = strings.Split(l.val, ",")
		}
	}
	spec, err := sweep.New(req)
	if err != nil {
		return fail(fileHint(err))
	}
	inputs := append([]fileUse{{flag: "--config", path: *config}, {flag: "--file", path: *file}}, listedFiles("--workload", req.Workloads)...)
	outs := append(dirFiles("--out", *out, sweepResultFiles...), sweepDirFiles("--out", *out, "")...)
	if err := refuseClashes(inputs, outs); err != nil {
		return fail(err)
	}
	var sh sweep.Shard
	if *shard != "" {
		if sh, err = sweep.ParseShard(*shard); err != nil {
			return fail(err)
		}
		if *out == "" {
			return fail(fmt.Errorf("--shard needs --out: a shard's points are kept for acemu sweep merge"))
		}
	}
	// Ctrl-C: the finished points are on disk (each written whole); say
	// so and stop at once.
	var finished atomic.Int64
	total := spec.Len()
	if sh.N > 0 {
		total = (spec.Len() - sh.I + sh.N - 1) / sh.N
	}
	pb := newProgressBars(stderr, []string{"points"}, barsRunning)
	defer onInterrupt(func(stderr io.Writer) {
		pb.finish() // the bars stop before the message
		kept := "not kept (no --out)"
		if *out != "" {
			kept = "kept in " + *out + "; the same command runs the rest"
		}
		fmt.Fprintf(stderr, "acemu sweep: interrupted: %d of %d points finished, %s\n", finished.Load(), total, kept)
	})()
	oc, err := sweep.Run(context.Background(), spec, sweep.Options{Workers: *workers, Shard: sh, Dir: *out,
		Progress: func(done, total int) {
			finished.Store(int64(done))
			if pb != nil {
				pb.update("points", int64(done), int64(total))
			}
		}})
	pb.finish()
	if err != nil {
		return fail(err)
	}
	if oc.Kept > 0 && sh.N == 0 {
		fmt.Fprintf(stderr, "acemu sweep: %d of %d points were kept in %s from an earlier run; ran the other %d\n", oc.Kept, len(oc.Points), *out, oc.Ran)
	}
	if sh.N > 0 {
		fmt.Fprintf(stdout, "shard %s: %d points in %s (%d run now, %d kept from before); acemu sweep merge DIR... combines the shards\n",
			sh, len(oc.Points), *out, oc.Ran, oc.Kept)
		return 0
	}
	return writeSweep(spec, oc.Points, oc.Build, *format, wide, *out, stdout, stderr)
}

// maxWorkers bounds --workers: more goroutines than this would not run
// anything faster on any machine acemu runs on (and no command starts more
// than it has jobs).
const maxWorkers = 1024

// checkWorkers refuses a --workers outside 0 (every core) to maxWorkers.
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("--workers %d: give 0 (every core) to %d", n, maxWorkers)
	}
	return nil
}

// runSweepMerge is acemu sweep merge.
func runSweepMerge(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("sweep merge", pflag.ContinueOnError)
	format := fs.String("format", "table", "output: "+formats)
	out := fs.String("out", "", "also write the results (result.txt, result.csv, result.json, aggregate.csv) into this directory (not a sweep's own)")
	var wide bool
	registerWide(fs, &wide)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", sweepUsage, fs.FlagUsages()) }
	if done, code := parseFlagsArgs(fs, args, 1<<20, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "acemu sweep merge: name the directories of the shards (their --out), e.g. acemu sweep merge out/shard-*\n")
		return 2
	}
	if err := checkFormat(*format); err != nil {
		fmt.Fprintf(stderr, "acemu sweep merge: %v\n", err)
		return 1
	}
	if err := sweep.CheckMergeOut(*out, fs.Args()); err != nil {
		fmt.Fprintf(stderr, "acemu sweep %v\n", err)
		return 1
	}
	var inputs []fileUse
	for _, dir := range fs.Args() {
		inputs = append(inputs, sweepDirFiles("a shard", dir, "")...)
	}
	if err := refuseClashes(inputs, dirFiles("--out", *out, sweepResultFiles...)); err != nil {
		fmt.Fprintf(stderr, "acemu sweep merge: %v\n", err)
		return 1
	}
	m, err := sweep.Merge(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "acemu sweep %v\n", err)
		return 1
	}
	return writeSweep(m.Spec, m.Points, m.Build, *format, wide, *out, stdout, stderr)
}

// sweepResultFiles are the results a whole sweep writes into --out.
var sweepResultFiles = []string{"result.txt", "result.csv", "result.json", "aggregate.csv"}

// writeSweep prints a whole sweep's report, its points run by build b
// (its provenance's), its tables in one piece when wide, and writes it
// into dir when set. The tables' key columns are the axes and the system,
// and a point's workload and topology.
func writeSweep(spec *sweep.Spec, pts []sweep.PointResult, b build, format string, wide bool, dir string, stdout, stderr io.Writer) int {
	rep, err := sweep.NewReport(spec, pts)
	if err != nil {
		fmt.Fprintf(stderr, "acemu sweep: %v\n", err)
		return 1
	}
	ph, prows := rep.PointTable()
	axes := len(spec.Axes)
	pv := provenanceOf(spec.BasePlatform()) // the axes are in every row
	pv.build = b
	points := result{header: ph, rows: prows, doc: rep, keys: axes + 3, wide: wide, prov: pv}
	var agg result
	if len(rep.Aggregate) > 0 {
		ah, arows := rep.AggregateTable()
		agg = result{header: ah, rows: arows, keys: axes + 1, wide: wide}
	}
	render := func(w io.Writer, format string) error {
		if format != "table" {
			return points.write(w, format)
		}
		table := points
		table.prov = nil // the last line, under the aggregate and the notes
		if err := table.write(w, format); err != nil {
			return err
		}
		if agg.header != nil {
			fmt.Fprintln(w)
			if err := agg.write(w, "table"); err != nil {
				return err
			}
		}
		return writeProse(w, append(rep.Notes(), pv.line()), fitWidth(wide))
	}
	if dir != "" {
		files := []struct {
			name string
			fn   func(io.Writer) error
		}{
			{"result.txt", func(w io.Writer) error { return render(w, "table") }},
			{"result.csv", func(w io.Writer) error { return points.write(w, "csv") }},
			{"result.json", func(w io.Writer) error { return points.write(w, "json") }},
		}
		if agg.header != nil {
			files = append(files, struct {
				name string
				fn   func(io.Writer) error
			}{"aggregate.csv", func(w io.Writer) error { return agg.write(w, "csv") }})
		}
		if err := makeDir("--out", dir); err != nil {
			fmt.Fprintf(stderr, "acemu sweep: %v\n", err)
			return 1
		}
		for _, f := range files {
			var b bytes.Buffer
			if err := f.fn(&b); err != nil {
				fmt.Fprintf(stderr, "acemu sweep: --out: %v\n", err)
				return 1
			}
			if err := outfile.Write(filepath.Join(dir, f.name), b.Bytes()); err != nil {
				fmt.Fprintf(stderr, "acemu sweep: --out: %v\n", err)
				return 1
			}
		}
	}
	if err := render(stdout, format); err != nil {
		fmt.Fprintf(stderr, "acemu sweep: %v\n", err)
		return 1
	}
	return 0
}
