package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/validation"
)

const reproduceUsage = `Usage: acemu reproduce NAME [flags]
       acemu reproduce NAME --report [--quick] [--out DIR]
       acemu reproduce all [--quick] [--out DIR [--only NAME,…] [--docs FILE]] [--workers N]
       acemu reproduce NAME|all --shard i/n --out DIR_i ...   then
       acemu reproduce merge DIR_0 DIR_1 ... --out DIR
       acemu reproduce choices [--quick] [--out DIR] [--keys K,…] [--into FILE] [--workers N] [--shard i/n]

Rerun a figure of the papers from the model. NAME is one of the
validation report's figures:
  fig4   an all-reduce (default 100 MB per NPU) alone and beside a GEMM of
         dimension 1000 and an embedding lookup (Section III), on Table VI's
         overlapping systems and the ideal endpoint: the all-reduce's and the
         kernel's slowdown under --memory-policy (--topos, --size, --systems)
  fig5   network bandwidth of a hierarchical all-reduce as the memory bandwidth
         given to communication grows: baseline (all 80 SMs) vs ACE vs ideal
         (--topos, --size, --mem)
  fig6   baseline network bandwidth as the communication SMs grow (all memory)
         (--topos, --size, --sms, --fig6-mem)
  sec6a  memory traffic per byte sent, the baseline against ACE (Fig. 8)
  fig9a  ACE's SRAM size × FSM count: two training iterations of every
         workload on every topology (default the paper's three in the
         default compute regime, on 4x4x4 and 4x8x4), normalised to 4 MiB
         and 16 FSMs and averaged as the paper does (--topos, --workloads,
         --sram and --fsms as lists)
  fig9b  ACE's utilisation in the forward pass and in back-propagation,
         per workload (default the paper's three on 4x8x4), beside the
         paper's (--topos, --workloads)
  fig10  the five systems training each workload on 128 NPUs
  fig11  the five systems training every workload on every torus size
         (default the paper's three on 4x2x2, 4x4x2, 4x4x4 and 4x8x4): % of
         ideal and ACE's speed-up over the best baseline per size, and
         Section VI-C's averages beside the paper's (--topos, --workloads)
  ccube-fig12a  the C-Cube paper's Fig. 12(a) ("Logical/Physical
         Topology-Aware Collective Communication in Deep Learning
         Training", Section V-B): its overlapped double tree (C1) against the
         conventional one (B) on the DGX-1 (dgx1), all-reduces of 1 to
         64 MiB (--size: one), one-shot and in 64 KiB chunks, on the ideal
         endpoint, the SM-driven baseline and ACE, beside the paper's gain
         and its model's
  ccube-fig13  the C-Cube paper's Fig. 13 (Section V-B): training on dgx1
         under its configurations B, C1, C2, CC and R (--workloads, default
         resnet50; --systems, default baseline-commopt,ace), one iteration in
         the steady state, each beside B, with the paper's gains
  blueconnect-fig3
         the BlueConnect paper's Fig. 3 analogue: a 100 MB (ResNet-50, FP32)
         all-reduce by the flat ring, two-level (GLOO) and BlueConnect on
         switch fabrics of 4 to 192 GPUs (switch:4 … switch:4x16x3) on the
         ideal endpoint, beside the paper's α-β model and its 192-GPU
         headline (docs/validation.md, "BlueConnect") (--topos, --size)
  mxnet-policies  the MXNet-MPI paper's issue policies
  libra-e3  LIBRA's comparison on 8 NPUs

acemu reproduce NAME prints the figure's table, then its part of the
validation report: each of the paper's values beside acemu's, their ratio
and whether acemu is within the paper's own precision, and the paper's
findings checked (docs/validation.md, "How to read the report"), a line
each; with --format csv or json, the table's rows or the runs' result
alone. A figure
takes the flags named beside it above and the platform's parameters it
reads (--set, --config, the ACE flags, --memory-policy), and refuses the
others, naming those it takes. --quick runs its CI-sized subset. --out DIR
writes result.txt (the table), result.csv, result.json, platform.yaml
(a figure without a table, sec6a, fig10, mxnet-policies and libra-e3:
report.md and report.json instead), the figure's plots and its runs'
points (DIR/sweep, as an acemu sweep keeps them: the same command again
runs only the missing ones); NAME
--report prints the report's part alone (with --out, as report.md and
report.json).

acemu reproduce all runs every figure as its paper set it up and prints
the report; --out DIR also writes DIR/report.md, DIR/report.json and each
figure's plots and sweep points (DIR/NAME/). --quick runs each figure's
CI-sized subset (small tori and sizes: its findings are what to read) and
fails (exit 1) when a finding does not hold. --docs docs/validation.md
regenerates that page from the report and the analysis in
docs/validation/. acemu reproduce choices runs the report again with each
of the model's choices where a paper is silent set to its other values,
one at a time, and prints the rows each moves and the findings it turns
(with --quick, on each figure's quick subset); with --out DIR it keeps
every run's points there (the base report's in DIR/NAME, so a report's
--out is its base at no cost, each choice's in DIR/choices/KEY=VALUE/NAME)
and, run again, runs only what is missing; --keys sweeps only those keys
and --into FILE merges the runs into FILE (docs/validation/choices-full.json),
so that the sweep can run in parts.

Every figure's runs are sweeps (docs/sweeps.md): --shard i/n runs the
points whose index modulo n is i of each of them into --out DIR_i;
acemu reproduce merge DIR_0 … DIR_n-1 --out DIR combines the shards'
points, and the same command without --shard and with --out DIR then
runs no simulation and prints (and writes) the results.

Each point is a full cycle-level run, folded to one NPU where the torus
allows it: fig4 takes about ten seconds on two cores, fig5 and fig6 under a
minute, fig9b about 20 seconds, fig11 about a minute, fig9a (120 training
runs) about five minutes, ccube-fig12a about a minute, ccube-fig13
(ten training runs on dgx1, every GPU simulated) about eight CPU-minutes;
blueconnect-fig3 about 38 CPU-minutes and 5 GB with two runs at once
(half of it on 192 GPUs), --quick about 19 CPU-seconds.

Flags:
`

// optionFlags are the flags that choose a figure's runs beside the
// platform (validation.Options); a figure takes those its
// validation.Figure.Flags declares.
var optionFlags = []string{validation.FlagTopos, validation.FlagWorkloads, validation.FlagSystems, validation.FlagSize,
	validation.FlagMem, validation.FlagSMs, validation.FlagFig6Mem, validation.FlagSRAM, validation.FlagFSMs}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce", pflag.ContinueOnError)
	fs.String(validation.FlagTopos, "", "machines, comma-separated: tori LxVxH, dgx1, switch:P0xP1 (default the figure's: fig4, fig5 and fig6 4x2x2,4x4x4; fig9a 4x4x4,4x8x4; fig9b 4x8x4; fig11 4x2x2,4x4x2,4x4x4,4x8x4; blueconnect-fig3 switch:4,switch:4x2,…,switch:4x16x3)")
	fs.String(validation.FlagWorkloads, "", "fig9a, fig9b, fig11, ccube-fig13: workloads (built-in names or ASTRA-sim files), comma-separated (default resnet50,gnmt,dlrm in the default compute regime, docs/workloads.md)")
	fs.String(validation.FlagSize, "", "all-reduce size per NPU (default the figure's: fig4 100MB, fig5 and fig6 64MiB, blueconnect-fig3 100MB; ccube-fig12a: one size instead of 1MiB,4MiB,16MiB,64MiB)")
	fs.String("memory-policy", defaultOf("training.memory_policy"), "fig4 and the figures that train (fig9a, fig9b, fig10, fig11, ccube-fig13, mxnet-policies, libra-e3): how compute and communication share each NPU: "+strings.Join(contend.Policies(), " or ")+" (docs/memory-system.md)")
	sysList := fs.String(validation.FlagSystems, "", "fig4: systems, comma-separated (default baseline-commopt,baseline-compopt,ace,ideal); ccube-fig13: default baseline-commopt,ace")
	fs.String(validation.FlagMem, "", "fig5: memory bandwidths for communication in GB/s, comma-separated (default 32,64,…,900)")
	fs.String(validation.FlagSMs, "", "fig6: communication SM counts, comma-separated (default 1,…,8,10,12,16)")
	int64Flag(fs, validation.FlagFig6Mem, 900, "fig6: memory bandwidth given to the baseline's communication, GB/s")
	format := fs.String("format", "table", "output: "+formats)
	var wide bool
	registerWide(fs, &wide)
	outDir := fs.String("out", "", "also write every artifact of the run into this directory: result.txt, result.csv, result.json, platform.yaml, the figure (as --plot) and the runs' points (DIR/sweep), so that the same command again runs only the missing ones; with --report, report.md and report.json")
	plotDir := fs.String("plot", "", "draw the figure as PNG and SVG into this directory")
	workers := intFlag(fs, "workers", 0, "simulations run at once (default: GOMAXPROCS; results do not depend on it)")
	registerACEDesignFlags(fs)
	var pf platformFlags
	pf.register(fs)
	fs.String(validation.FlagSRAM, "", "ACE SRAM size; fig9a: sizes, comma-separated (default 4MiB; fig9a 1MiB,2MiB,4MiB,8MiB)")
	quick := fs.Bool("quick", false, "the figure's (all: each figure's) CI-sized subset; blueconnect-fig3: 1 MB instead of the paper's 100 MB (about 19 CPU-seconds instead of 38 CPU-minutes)")
	report := fs.Bool("report", false, "NAME --report: the figure's part of the validation report alone (the paper's values beside acemu's, its findings checked), as acemu reproduce all gives it")
	only := fs.String("only", "", "all: rerun only these figures (comma-separated) and put their results in place of theirs in --out DIR's report.json (their sweeps resume from DIR/NAME/)")
	docs := fs.String("docs", "", "all: also write this Markdown file (docs/validation.md) from the report and the analysis beside it (docs/validation/), with the report as report.json and the figures' SVGs; needs --out")
	fs.String(validation.FlagFSMs, "", "ACE FSM count; fig9a: counts, comma-separated (default 16; fig9a 4,8,12,16,20)")
	keys := fs.String("keys", "", "choices: sweep only these choices' keys (comma-separated; default every key of docs/validation/choices.md)")
	into := fs.String("into", "", "choices: merge the runs into this file (docs/validation/choices-full.json; created if missing), each key's runs in place of its earlier ones; refused where a row both moved has another default in each (another build's simulation)")
	shard := fs.String("shard", "", "run only shard i/n of each of the figure's sweeps (the points whose index modulo n is i) into --out; acemu reproduce merge combines the shards")
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", reproduceUsage, fs.FlagUsages()) }
	if len(args) > 0 && args[0] == "merge" {
		return runReproduceMerge(args[1:], stdout, stderr)
	}
	if done, code := parseFlagsArgs(fs, args, 1, stdout, stderr); done {
		return code
	}
	noteBareSize(stderr, "acemu reproduce", fs)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	var sh sweep.Shard
	if *shard != "" {
		var err error
		if sh, err = sweep.ParseShard(*shard); err != nil {
			return fail(err)
		}
		if *outDir == "" {
			return fail(fmt.Errorf("--shard needs --out: a shard's points are kept there for acemu reproduce merge"))
		}
	}
	if !(fs.NArg() == 1 && fs.Arg(0) == "choices") {
		if err := refuseFlags(fs, []string{"keys", "into"}, "is for acemu reproduce choices"); err != nil {
			return fail(err)
		}
	}
	if fs.NArg() == 1 && fs.Arg(0) == "all" {
		return runReproduceAll(fs, reportRun{quick: *quick, outDir: *outDir, docs: *docs, workers: *workers, only: splitList(*only), shard: sh}, stdout, stderr)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "choices" {
		return runReproduceChoices(fs, reportRun{quick: *quick, outDir: *outDir, workers: *workers, shard: sh, keys: splitList(*keys), into: *into}, stdout, stderr)
	}
	if err := refuseFlags(fs, []string{"docs", "only"}, "is for acemu reproduce all"); err != nil {
		return fail(err)
	}
	fig, ok := validation.Figure{}, false
	if fs.NArg() == 1 {
		fig, ok = validation.Lookup(fs.Arg(0))
	}
	if !ok {
		fmt.Fprintf(stderr, "acemu reproduce: name one figure, %s, or all\n\n%s%s", figureNames(), reproduceUsage, fs.FlagUsages())
		return 2
	}
	if *report {
		return runReproduceAll(fs, reportRun{quick: *quick, outDir: *outDir, workers: *workers, names: []string{fig.Name}, shard: sh}, stdout, stderr)
	}
	if err := checkWorkers(*workers); err != nil {
		return fail(err)
	}
	if err := checkFormat(*format); err != nil {
		return fail(err)
	}
	// The flags the figure does not take would change nothing: refuse
	// them, naming those it takes.
	lists := slices.Contains(fig.Flags, validation.FlagSRAM)
	if err := refuseUntaken(fs, fig, lists); err != nil {
		return fail(err)
	}
	// ACE's flags set ACE's design: a figure running the systems
	// --systems names, ACE not among them, would not use them.
	if fs.Changed(validation.FlagSystems) && !slices.Contains(splitList(*sysList), "ace") {
		if err := refuseFlags(fs, aceFlagNames, "is for ACE, which --systems does not include"); err != nil {
			return fail(err)
		}
	}
	if *plotDir != "" && !fig.Draws {
		return fail(fmt.Errorf("--plot: %s draws no figure, only its part of the report; drop --plot", fig.Name))
	}
	if *format == "csv" && !fig.Tabled {
		return fail(fmt.Errorf("--format csv: %s has no table of its own, only its part of the report; use --format table or json", fig.Name))
	}
	if *quick && !fig.Quick {
		return fail(fmt.Errorf("--quick: %w", fig.NoQuick()))
	}
	o, err := figureOptions(fs)
	if err != nil {
		return fail(err)
	}
	p, err := figurePlatform(fs, pf, fig, &o)
	if err != nil {
		return fail(err)
	}
	if err := unusedParams(p, "acemu reproduce "+fig.Name, fig.Ignores...); err != nil {
		return fail(err)
	}
	plots := cmp.Or(*plotDir, *outDir)
	if err := refuseFigureClashes(fig, pf.config, o, *outDir, plots); err != nil {
		return fail(err)
	}
	if *plotDir != "" {
		if err := makeDir("--plot", *plotDir); err != nil {
			return fail(err)
		}
	}
	e := validation.Env{Platform: p, Quick: *quick, Workers: *workers, Dir: *outDir, PlotDir: plots, Options: &o, Shard: sh}
	// On a terminal, a sweep that runs more than two seconds shows its
	// progress (runs finished) on stderr.
	pb := newProgressBars(stderr, []string{fig.Name}, barsRunning)
	if pb != nil {
		e.Progress = func(done, total int) { pb.update(fig.Name, int64(done), int64(total)) }
	}
	rep, err := validation.RunIn(e, fig.Name)
	pb.finish()
	if err != nil {
		return fail(err)
	}
	if len(rep.Results) == 0 { // a shard
		shardDone(stdout, sh.String()+" of "+fig.Name, *outDir)
		return 0
	}
	return writeFigure(rep, p, *format, wide, *outDir, stdout, stderr)
}

// figureOptions reads the option flags given (validation.Options).
func figureOptions(fs *pflag.FlagSet) (validation.Options, error) {
	val := func(name string) string { return fs.Lookup(name).Value.String() }
	o := validation.Options{Topos: splitList(val(validation.FlagTopos)), Workloads: splitList(val(validation.FlagWorkloads)), Systems: splitList(val(validation.FlagSystems))}
	if fs.Changed(validation.FlagTopos) && len(o.Topos) == 0 {
		return o, fmt.Errorf("--topos is empty; give shapes like 4x2x2,4x4x4")
	}
	if fs.Changed(validation.FlagWorkloads) && len(o.Workloads) == 0 {
		return o, fmt.Errorf("--workloads is empty; give built-in names or ASTRA-sim files, e.g. resnet50,dlrm")
	}
	if fs.Changed(validation.FlagSystems) && len(o.Systems) == 0 {
		return o, fmt.Errorf("--systems is empty; give system names, e.g. baseline-commopt,ace")
	}
	var err error
	if fs.Changed(validation.FlagSize) {
		if o.Size, err = units.ParseSize(val(validation.FlagSize)); err != nil {
			return o, fmt.Errorf("--size: %w", err)
		}
	}
	if m := val(validation.FlagMem); m != "" {
		if o.Mem, err = parseInts(m, "--mem"); err != nil {
			return o, err
		}
	}
	if n := val(validation.FlagSMs); n != "" {
		if o.SMs, err = parseCounts(n, "--sms"); err != nil {
			return o, err
		}
	}
	if fs.Changed(validation.FlagFig6Mem) {
		v, _ := strconv.ParseInt(val(validation.FlagFig6Mem), 10, 64) // int64Flag read it
		if v < 1 || v > npu.MemoryGBps {
			return o, fmt.Errorf("--fig6-mem %d: give 1 to %d GB/s (the NPU's memory, Table V)", v, npu.MemoryGBps)
		}
		o.Fig6Mem = v
	}
	return o, nil
}

// figurePlatform is the platform of fig's runs from the flags: --sram
// and --fsms are its options (into o) when it takes them as lists
// (fig9a), else ACE's one SRAM size and FSM count.
func figurePlatform(fs *pflag.FlagSet, pf platformFlags, fig validation.Figure, o *validation.Options) (platform.Platform, error) {
	keys := map[string]string{}
	for f, k := range flagKeys {
		if f != validation.FlagSRAM && f != validation.FlagFSMs {
			keys[f] = k
		}
	}
	p, err := pf.buildWith(fs, keys)
	if err != nil {
		return p, err
	}
	sram, fsms := fs.Lookup(validation.FlagSRAM).Value.String(), fs.Lookup(validation.FlagFSMs).Value.String()
	if slices.Contains(fig.Flags, validation.FlagSRAM) {
		for _, x := range splitList(sram) {
			v, err := units.ParseSize(x)
			if err != nil {
				return p, fmt.Errorf("--sram: %w", err)
			}
			o.SRAM = append(o.SRAM, v)
		}
		if fsms != "" {
			if o.FSMs, err = parseCounts(fsms, "--fsms"); err != nil {
				return p, err
			}
		}
		return p, nil
	}
	if strings.Contains(sram, ",") || strings.Contains(fsms, ",") {
		return p, fmt.Errorf("--sram and --fsms take lists only with fig9a; give %s one SRAM size and one FSM count", fig.Name)
	}
	for _, f := range []struct{ flag, key, v string }{{"--sram", "ace.sram", sram}, {"--fsms", "ace.fsms", fsms}} {
		if f.v != "" {
			if err := p.Set(f.key, f.v); err != nil {
				return p, fmt.Errorf("%s: %w", f.flag, err)
			}
		}
	}
	return p, p.Validate()
}

// refuseUntaken refuses a flag given that fig does not take: an option
// flag its Flags do not declare, or one setting a platform parameter it
// does not read (its Ignores). lists: --sram and --fsms are its options.
func refuseUntaken(fs *pflag.FlagSet, fig validation.Figure, lists bool) error {
	var bad string
	fs.Visit(func(f *pflag.Flag) {
		if bad != "" {
			return
		}
		if slices.Contains(optionFlags, f.Name) && (f.Name != validation.FlagSRAM && f.Name != validation.FlagFSMs || lists) {
			if !slices.Contains(fig.Flags, f.Name) {
				bad = f.Name
			}
			return
		}
		if k, ok := flagKeys[f.Name]; ok && !fig.Takes(k) {
			bad = f.Name
		}
	})
	if bad == "" {
		return nil
	}
	return fmt.Errorf("--%s is not used by %s; drop it (%s takes %s)", bad, fig.Name, fig.Name, takenFlags(fs, fig))
}

// takenFlags says which flags fig takes beside --quick, --out, --plot,
// --workers and --format: its options, the platform's flags whose
// parameters it reads, and --set and --config.
func takenFlags(fs *pflag.FlagSet, fig validation.Figure) string {
	var own, platformFlags []string
	for _, f := range fig.Flags {
		own = append(own, "--"+f)
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if k, ok := flagKeys[f.Name]; ok && fig.Takes(k) && !slices.Contains(fig.Flags, f.Name) {
			platformFlags = append(platformFlags, "--"+f.Name)
		}
	})
	s := "no flag of its own"
	if len(own) > 0 {
		s = sentence(own)
	}
	if len(platformFlags) > 0 {
		s += ", the platform flags " + sentence(platformFlags)
	}
	return s + ", and --set or --config for the platform parameters it reads"
}

// sentence joins names as a sentence: "a, b and c".
func sentence(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// refuseFigureClashes refuses a figure's run whose --out or --plot would
// write over one of its inputs (--config, the files among --workloads and
// --topos) or one another: --out's results and report, the runs' points
// kept in DIR/sweep, the plots.
func refuseFigureClashes(fig validation.Figure, config string, o validation.Options, outDir, plotDir string) error {
	inputs := append([]fileUse{{flag: "--config", path: config}}, listedFiles("--workloads", o.Workloads)...)
	inputs = append(inputs, listedFiles("--topos", o.Topos)...)
	outs := dirFiles("--out", outDir, append(slices.Clone(resultFiles), "summary.csv")...)
	outs = append(outs, sweepDirFiles("--out", outDir, "sweep")...)
	flag := "--plot"
	if plotDir == outDir {
		flag = "--out"
	}
	outs = append(outs, dirFiles(flag, plotDir, fig.Name+".png", fig.Name+".svg")...)
	return refuseClashes(inputs, outs)
}

// reportPartLead begins the part of the report acemu reproduce NAME
// prints after the figure's table.
const reportPartLead = "The validation report's part for "

// writeFigure prints a figure run by name: its table (format) and, in
// the table format, its part of the report after it (reportPart); with
// outDir, the table's files (result.txt, .csv, .json, platform.yaml)
// there too (a figure without a table: its part of the report as
// report.md and report.json, as NAME --report writes them).
func writeFigure(rep *validation.Report, p platform.Platform, format string, wide bool, outDir string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	res := rep.Results[0]
	part := reportPart(rep)
	t := res.Table
	if t == nil { // a figure of the report alone: its part is its result
		if outDir != "" {
			var md bytes.Buffer
			if err := rep.WriteMarkdown(&md); err != nil {
				return fail(err)
			}
			if err := writeReportFiles(rep, md.Bytes(), outDir); err != nil {
				return fail(err)
			}
		}
		var err error
		if format == "json" {
			err = rep.WriteJSON(stdout)
		} else {
			err = writeProse(stdout, part, fitWidth(wide))
		}
		if err != nil {
			return fail(err)
		}
		return 0
	}
	r := result{header: t.Header, rows: t.Rows, keys: t.Keys, notes: t.Notes, doc: t.Doc, wide: wide, prov: provenanceOf(p)}
	if t.Summary != nil {
		r.summary = &summary{header: t.Summary.Header, rows: t.Summary.Rows}
	}
	if t.Full != nil {
		r.full = &summary{header: t.Full.Header, rows: t.Full.Rows}
	}
	var err error
	if r.lead, err = regimeLines(p, t.Workloads); err != nil {
		return fail(err)
	}
	if outDir != "" {
		if err := r.writeOut(outDir, p); err != nil {
			return fail(err)
		}
	}
	if err := r.write(stdout, format); err != nil {
		return fail(err)
	}
	if format == "table" {
		if _, err := io.WriteString(stdout, "\n"); err != nil {
			return fail(err)
		}
		if err := writeProse(stdout, part, fitWidth(wide)); err != nil {
			return fail(err)
		}
	}
	return 0
}

// reportPart is the figure's part of the report as lines of prose that
// fit the terminal (unless wide): what it is and the summary, each of the
// paper's values beside acemu's, each of the paper's findings checked,
// and the figure's notes (the report's tables, as the lines of a list:
// their prose cells would not fit a terminal's columns).
func reportPart(rep *validation.Report) []string {
	res := rep.Results[0]
	f := res.Figure
	lines := []string{fmt.Sprintf("%s%s: %q, %s (acemu reproduce %s --report). %s", reportPartLead, f.Name, f.Source.Title, f.Where, f.Name, rep.Summary())}
	if len(res.Values) > 0 {
		lines = append(lines, "The paper's values beside acemu's:")
		h := validation.ValueHeader
		for _, v := range res.ValueRows() {
			lines = append(lines, fmt.Sprintf("  %s: %s %s, %s %s, %s %s, %s: %s", v[0], h[1], v[1], h[2], v[2], h[3], v[3], h[4], v[4]))
		}
	}
	if len(res.Findings) > 0 {
		lines = append(lines, "The paper's findings, whether each holds:")
		for _, x := range res.FindingRows("no") {
			lines = append(lines, fmt.Sprintf("  %s: %s: %s", x[1], x[0], x[2]))
		}
	}
	return append(lines, res.Notes...)
}

// figureNames lists the figures as a sentence: "fig4, fig5 or fig6".
func figureNames() string {
	names := validation.Names()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// runReproduceMerge is acemu reproduce merge DIR... --out DIR: the
// shards' directories of a figure's (or the report's) sweeps combined
// into one directory (sweep.MergeDirs), which the same command, without
// --shard, then reads instead of running.
func runReproduceMerge(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce merge", pflag.ContinueOnError)
	out := fs.String("out", "", "the directory the shards' points are merged into: the --out of the command run again without --shard")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: acemu reproduce merge DIR... --out DIR\n\nCombine the directories of the shards of acemu reproduce NAME|all --shard i/n\n(their --out) into --out; the same command without --shard and with that --out\nthen runs no simulation.\n\nFlags:\n%s", fs.FlagUsages())
	}
	if done, code := parseFlagsArgs(fs, args, 1<<20, stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err) // sweep.MergeDirs's errors begin "merge:"
		return 1
	}
	if fs.NArg() == 0 {
		return fail(errors.New("merge: name the shards' directories (their --out), e.g. acemu reproduce merge out/shard-* --out out/all"))
	}
	if *out == "" {
		return fail(errors.New("merge: give --out DIR, where the merged points go (then run the command again without --shard, with --out DIR)"))
	}
	rels, err := sweep.MergeDirs(fs.Args(), *out)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "merged %s into %s; run the command again without --shard and with --out %s: it runs no simulation\n", units.Count(len(rels), "sweep"), *out, *out)
	return 0
}

// regimeLines says, for each workload, where its compute comes from on
// platform p (regimeLine).
func regimeLines(p platform.Platform, workloads []string) ([]string, error) {
	var lines []string
	for _, n := range workloads {
		w, err := compare.PlatformWorkload(p, n)
		if err != nil {
			return nil, err
		}
		lines = append(lines, w.Name+": "+regimeLine(w))
	}
	return lines, nil
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// parseCounts is parseInts for counts (SMs, FSMs).
func parseCounts(s, flag string) ([]int, error) {
	v, err := parseInts(s, flag)
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out, err
}

func parseInts(s, flag string) ([]int64, error) {
	var out []int64
	for _, x := range splitList(s) {
		v, err := units.ParseInt(x)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%s %q: %q is not a positive whole number (%w); write e.g. 64,128,450", flag, s, x, err)
		}
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%s %q: %q is not a positive whole number; write e.g. 64,128,450", flag, s, x)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%s %q: %d given twice", flag, s, v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty", flag)
	}
	return out, nil
}
