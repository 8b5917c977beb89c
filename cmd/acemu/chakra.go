package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/chakra/gen"
	"github.com/acemu/acemu/chakra/runner"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
)

// isChakra reports whether --workload names a Chakra trace set: a file
// <prefix>.<rank>.et, any .et file (refused there with what to name), or
// a prefix with <prefix>.0.et beside it.
func isChakra(wl string) bool {
	return strings.HasSuffix(wl, ".et") || chakra.IsTrace(wl)
}

// traceFlags are the comparator's flags for a Chakra trace.
type traceFlags struct {
	units, groups *string
}

func (t *traceFlags) register(fs *pflag.FlagSet) {
	t.units = fs.String("chakra-time", "us", "for a Chakra trace (--workload PREFIX.0.et): how to read its nodes' duration_micros: us (microseconds, as its name says and ASTRA-sim 2.x reads it) or ns (nanoseconds: what Chakra's converter from ASTRA-sim text files and acemu chakra gen write; docs/chakra.md)")
	t.groups = fs.String("comm-groups", "", "for a Chakra trace: its process groups, a JSON file of group names (pg_name) to lists of ranks, ASTRA-sim 2.x's communicator-group file (docs/chakra.md)")
}

// traceOnly are the flags that only a Chakra trace reads.
var traceOnly = []string{"chakra-time", "comm-groups"}

// notForTraces are the comparator's flags that a Chakra trace does not
// take: the trace holds its iterations and its schedule, and the
// per-layer and per-window outputs are the training loop's.
var notForTraces = []string{"iterations", "schedule", "ccube", "per-layer", "timeseries", "plot", "out", "pcap", "pcap-filter", "trace", "trace-npus", "links", "compute", "batch"}

// runTraceCompare is the comparator on a Chakra trace set: every system
// runs it on every NPU (docs/chakra.md, "In the comparator").
func runTraceCompare(fs *pflag.FlagSet, wl, topo, sysList, format string, workers int, pf *platformFlags, tf traceFlags, wide bool, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu: %v\n", err)
		return 1
	}
	if err := refuseFlags(fs, notForTraces, "is not for a Chakra trace (--workload "+wl+"), which holds its own iterations and schedule (docs/chakra.md)"); err != nil {
		return fail(err)
	}
	units, err := runner.ParseUnits(*tf.units)
	if err != nil {
		return fail(fmt.Errorf("--chakra-time: %w", err))
	}
	machine, err := parseTopoFlag(topo)
	if err != nil {
		return fail(err)
	}
	p, err := pf.build(fs)
	if err != nil {
		return fail(err)
	}
	if p.Micro != platform.Default().Micro {
		return fail(fmt.Errorf("training.micro = %s: a Chakra trace is not a MICRO workload, and the mode says only how a MICRO workload issues its collectives, so it would change nothing; drop it", paramText(p, "training.micro")))
	}
	if set := changedIssueKeys(p); len(set) > 0 {
		return fail(fmt.Errorf("%s: a Chakra trace fixes when each collective is issued and what it holds (docs/chakra.md), so issue policies and tensor fusion do not apply; drop it", strings.Join(set, ", ")))
	}
	ss, err := compare.PlatformSystems(splitList(sysList), p)
	if err != nil {
		return fail(fmt.Errorf("--systems: %w", err))
	}
	if !slices.ContainsFunc(ss, func(s systems.System) bool { return s.Kind == systems.ACE }) {
		if err := refuseFlags(fs, aceFlagNames, "is for ACE, which --systems does not include"); err != nil {
			return fail(err)
		}
	}
	set, err := chakra.LoadSet(wl, machine.Machine.N())
	if err != nil {
		return fail(fmt.Errorf("--workload: %w", err))
	}
	var groups map[string][]int
	if *tf.groups != "" {
		if groups, err = runner.LoadGroups(*tf.groups); err != nil {
			return fail(fmt.Errorf("--comm-groups: %w", err))
		}
	}
	opts, err := compare.PlatformOptions(p)
	if err != nil {
		return fail(err)
	}
	opts.Machine, opts.Systems, opts.Workers = machine, ss, workers
	opts.Trace = &compare.Trace{Set: set, Units: units, Groups: groups}
	rep, err := compare.Run(opts)
	if err != nil {
		return fail(err)
	}
	how := traceUnitsNote(units)
	res := result{full: &summary{}, prov: provenanceOf(p)}
	res.header, res.rows = compareTable(rep.Systems, rep.SpeedupOfACE, nil, false)
	res.full.header, res.full.rows = compareTable(rep.Systems, rep.SpeedupOfACE, nil, true)
	res.lead = append(res.lead, "compute: "+how)
	res.notes = append(res.notes, compareLegend,
		fmt.Sprintf("Chakra trace %s on %s (%d NPUs, one rank each), %s priority, memory policy %s; cycles at 1245 MHz; every NPU simulated. The trace is reported as one iteration: compute is the rank that ended last's, the rest of the run exposed communication (docs/chakra.md).",
			rep.Workload, rep.Topology, rep.NPUs, rep.Policy, rep.Memory))
	if slices.ContainsFunc(ss, func(s systems.System) bool { return s.Kind == systems.Baseline }) {
		res.notes = append(res.notes, libraryNote(p.Library))
	}
	res.doc, res.wide = commandReport{Report: rep, Compute: "chakra: " + how}, wide
	if err := res.write(stdout, format); err != nil {
		return fail(err)
	}
	return 0
}

// traceUnitsNote says, on screen, which reading of duration_micros a run
// uses.
func traceUnitsNote(u runner.Units) string {
	if u == runner.Nanos {
		return "duration_micros read as nanoseconds (--chakra-time ns: Chakra's converter from ASTRA-sim text files and acemu chakra gen write nanoseconds there), stretched over num_ops and tensor_size where given (docs/chakra.md)"
	}
	return "duration_micros read as microseconds (--chakra-time us, as ASTRA-sim 2.x reads it; ns for traces converted from ASTRA-sim text files), stretched over num_ops and tensor_size where given (docs/chakra.md)"
}

const chakraUsage = `Usage: acemu chakra gen --kind KIND --out PREFIX [flags]

Write a Chakra execution trace, one file per rank (PREFIX.0.et,
PREFIX.1.et, …), for the comparator to run (acemu --workload PREFIX.0.et;
docs/chakra.md). KIND is one of Chakra's microbenchmarks, %s, or
data-parallel: the trace of an ASTRA-sim 1.0 DATA workload (--workload)
with the training loop's dependences, its durations in nanoseconds (run it
with --chakra-time ns).

Flags:
`

// runChakra is acemu chakra: gen.
func runChakra(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "gen" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			return runChakra([]string{"gen", "--help"}, stdout, stderr)
		}
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", args[0])
		}
		fmt.Fprintf(stderr, "acemu chakra: %s: the command is acemu chakra gen (acemu chakra gen --help)\n", got)
		return 2
	}
	fs := pflag.NewFlagSet("chakra gen", pflag.ContinueOnError)
	kind := fs.String("kind", "", "what to write: "+strings.Join(append(gen.Kinds(), "data-parallel"), ", "))
	out := fs.String("out", "", "the files' prefix: PREFIX.0.et, PREFIX.1.et, …")
	npus := intFlag(fs, "npus", 0, "ranks (one file each): the NPUs of the machine it will run on")
	duration := intFlag(fs, "duration", 5, "each compute node's duration_micros (microbenchmarks), as the trace's reader will read it (docs/chakra.md, \"Time\")")
	size := fs.String("size", "64KiB", "each collective's comm_size (bytes per NPU)")
	coll := fs.String("collective", "ALL_REDUCE", "each collective's comm_type: "+strings.Join(chakra.CollectiveNames(), ", ")+" (acemu runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL)")
	steps := intFlag(fs, "steps", 4, "compute–collective pairs of comm-comp-chain")
	wl := fs.String("workload", "", "data-parallel: the ASTRA-sim 1.0 DATA workload file")
	iters := intFlag(fs, "iterations", 1, "data-parallel: training iterations in the trace")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), chakraUsage, strings.Join(gen.Kinds(), ", "))
		fmt.Fprint(fs.Output(), fs.FlagUsages())
	}
	if done, code := parseFlags(fs, args[1:], stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu chakra gen: %v\n", err)
		return 1
	}
	if *out == "" {
		return fail(fmt.Errorf("--out is missing: give the files' prefix, e.g. --out traces/ar (writes traces/ar.0.et, …)"))
	}
	if *npus < 1 {
		return fail(fmt.Errorf("--npus %d: give the ranks, 1 to %d: one per NPU of the machine the trace will run on", *npus, gen.MaxNPUs))
	}
	var s *chakra.Set
	var err error
	switch *kind {
	case "data-parallel":
		if *wl == "" {
			return fail(fmt.Errorf("--kind data-parallel needs --workload: an ASTRA-sim 1.0 DATA file"))
		}
		w, err := workload.Load(*wl)
		if err != nil {
			return fail(fmt.Errorf("--workload: %w", err))
		}
		if s, err = gen.DataParallel(w, *npus, *iters); err != nil {
			return fail(err)
		}
	case "":
		return fail(fmt.Errorf("--kind is missing: give one of %s", strings.Join(append(gen.Kinds(), "data-parallel"), ", ")))
	default:
		if fs.Changed("workload") || fs.Changed("iterations") {
			return fail(fmt.Errorf("--workload and --iterations are for --kind data-parallel, not %s", *kind))
		}
		if *duration < 0 {
			return fail(fmt.Errorf("--duration %d: must be ≥ 0", *duration))
		}
		ct, err := chakra.ParseCollective(*coll)
		if err != nil {
			return fail(fmt.Errorf("--collective: %w", err))
		}
		b, err := units.ParseSize(*size)
		if err != nil {
			return fail(fmt.Errorf("--size: %w", err))
		}
		if s, err = gen.Micro(gen.MicroOptions{Kind: *kind, NPUs: *npus, Duration: uint64(*duration), Collective: ct, Bytes: b, Steps: *steps}); err != nil {
			return fail(err)
		}
	}
	if dir := filepath.Dir(*out); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
	}
	first, err := s.Save(*out)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "wrote %d ranks of %d nodes each: %s to %s.%d.et\n", len(s.Ranks), len(s.Ranks[0].Nodes), first, strings.TrimSuffix(*out, ".et"), len(s.Ranks)-1)
	return 0
}
