package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/validation"
)

const reproduceUsage = `Usage: acemu reproduce fig4|fig5|fig6|fig9a|fig9b|fig11|ccube-fig12a|ccube-fig13|blueconnect-fig3 [flags]
       acemu reproduce all [--quick] [--out DIR [--only NAME,…] [--docs FILE]] [--workers N]
       acemu reproduce fig4|…|sec6a|fig10|mxnet-policies|libra-e3 --report [--quick] [--out DIR]
       acemu reproduce choices [--quick] [--out DIR] [--workers N]

Rerun the sweeps behind the ACE paper's figures from the model:
  fig4   an all-reduce (default 100 MB per NPU) alone and beside a GEMM of
         dimension 1000 and an embedding lookup (Section III), on Table VI's
         overlapping systems and the ideal endpoint: the all-reduce's and the
         kernel's slowdown under --memory-policy
  fig5   network bandwidth of a hierarchical all-reduce as the memory bandwidth
         given to communication grows: baseline (all 80 SMs) vs ACE vs ideal
  fig6   baseline network bandwidth as the communication SMs grow (all memory)
  fig9a  ACE's SRAM size × FSM count: two training iterations of every
         workload on every topology (default the paper's three in the
         default compute regime, on 4x4x4 and 4x8x4), normalised to 4 MiB
         and 16 FSMs and averaged as the paper does; it is an acemu sweep
         (docs/sweeps.md) over ace.sram and ace.fsms
  fig9b  ACE's utilisation in the forward pass and in back-propagation,
         per workload (default the paper's three on 4x8x4, the runs of
         Fig. 10), beside the paper's
  fig11  the five systems training every workload on every torus size
         (default the paper's three on 4x2x2, 4x4x2, 4x4x4 and 4x8x4): % of
         ideal and ACE's speed-up over the best baseline per size, and
         Section VI-C's averages beside the paper's

And the related papers' experiments:
  ccube-fig12a  the C-Cube paper's Fig. 12(a) ("Communication
         Algorithm-Architecture Co-Design for Distributed Deep Learning",
         Section 6): its overlapped double tree (C1) against the
         conventional one (B) on the DGX-1 (dgx1), all-reduces of 1 to
         64 MiB (--size: one), one-shot and in 64 KiB chunks, on the ideal
         endpoint, the SM-driven baseline and ACE, beside the paper's gain
         and its model's
  ccube-fig13  the C-Cube paper's Fig. 13 (Section 6): training on dgx1
         under its configurations B, C1, C2, CC and R (--workloads, default
         resnet50; --systems, default baseline-commopt,ace), one iteration in
         the steady state, each beside B, with the paper's gains
  blueconnect-fig3
         the BlueConnect paper's Fig. 3 analogue: a 100 MB (ResNet-50, FP32)
         all-reduce by the flat ring, two-level (GLOO) and BlueConnect on
         switch fabrics of 4 to 192 GPUs (switch:4 … switch:4x16x3) on the
         ideal endpoint, beside the paper's α-β model and its 192-GPU
         headline (docs/validation.md, "BlueConnect"); --quick runs 1 MB

acemu reproduce all runs every figure the validation report holds (the
ACE paper's Figs. 4(a), 5, 6, 8 with Section VI-A (sec6a), 9(a), 9(b),
10 and 11; C-Cube's Figs. 12(a) and 13; BlueConnect's Fig. 3; the
MXNet-MPI paper's issue policies (mxnet-policies); LIBRA's comparison on
8 NPUs (libra-e3)) as its paper set it up and prints the report: each of the paper's values beside
acemu's, their ratio and whether acemu is within the paper's own
precision, and the paper's findings checked (docs/validation.md, "How to
read the report"); --out DIR also writes DIR/report.md, DIR/report.json and each
figure's plots and sweep points (DIR/NAME/); NAME --report gives one
figure's part of it. --quick runs each figure's CI-sized
subset (small tori and sizes: its findings are what to read) and fails
(exit 1) when a finding does not hold. --docs docs/validation.md
regenerates that page from the report and the analysis in
docs/validation/. acemu reproduce choices runs the report again with each
of the model's choices where a paper is silent set to its other values,
one at a time, and prints the rows each moves and the findings it turns
(with --quick, on each figure's quick subset).

Each point is a full cycle-level run, folded to one NPU where the torus
allows it: fig4 takes about ten seconds on two cores, fig5 and fig6 under a
minute, fig9b about 20 seconds, fig11 about a minute, fig9a (120 training
runs) about five minutes, ccube-fig12a about a minute, ccube-fig13
(ten training runs on dgx1, every GPU simulated) about eight CPU-minutes;
blueconnect-fig3 about 38 CPU-minutes and 5 GB with two runs at once
(half of it on 192 GPUs), --quick about 19 CPU-seconds.

Flags:
`

// figure is one figure acemu reproduce runs.
type figure struct {
	name string
	// unused are the flags it does not take, refused when given; the
	// platform parameters it does not use are its validation.Figure's
	// Ignores, refused too.
	unused []string
	// lists: it takes --sram and --fsms as lists (a grid).
	lists bool
	run   func(r *figRun) error
}

// figures are the figures, in the order the usage gives them.
var figures = []figure{
	// Figs. 4, 5 and 6 run lone all-reduces on the platform's links
	// (reproduce.LinkKeys) with the default algorithm and chunk
	// (afi.DefaultConfig), and the baseline
	// without its library's latencies (docs/baseline-model.md, "Where it
	// is not charged").
	{name: "fig4", unused: []string{"sms", "fig6-mem", "workloads", "mem"}, run: runFig4},
	{name: "fig5", unused: []string{"sms", "fig6-mem", "workloads", "memory-policy", "systems"}, run: runFig5},
	{name: "fig6", unused: append([]string{"mem", "workloads", "memory-policy", "systems"}, aceFlagNames...), run: runFig6},
	{name: "fig9a", unused: []string{"size", "mem", "sms", "fig6-mem", "systems"}, lists: true, run: runFig9a},
	// The comparator's runs take every platform parameter.
	{name: "fig9b", unused: []string{"size", "mem", "sms", "fig6-mem", "systems"}, run: runFig9b},
	{name: "fig11", unused: []string{"size", "mem", "sms", "fig6-mem", "systems"}, run: runFig11},
	// The C-Cube paper's figures run on its machine, dgx1.
	{name: "ccube-fig12a", unused: []string{"topos", "sms", "fig6-mem", "workloads", "mem", "systems", "memory-policy"}, run: runCCubeFig12a},
	// Each configuration sets the all-reduce's algorithm.
	{name: "ccube-fig13", unused: []string{"topos", "size", "sms", "fig6-mem", "mem"}, run: runCCubeFig13},
	// The BlueConnect comparison sets its own links (the paper's
	// bandwidths) and runs the ideal endpoint with its own algorithms.
	{name: "blueconnect-fig3", unused: append([]string{"mem", "sms", "fig6-mem", "workloads", "memory-policy", "systems"}, aceFlagNames...), run: runBlueConnectFig3},
}

// figureNames lists the figures as a sentence: "fig4, fig5 or fig6".
func figureNames() string {
	var names []string
	for _, f := range figures {
		names = append(names, f.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// figRun is one run of a figure: the flags and what the command made of
// them; the figure's run sets res.
type figRun struct {
	fs       *pflag.FlagSet
	p        platform.Platform
	topos    []string
	size     int64
	workers  int
	progress func(done, total int)
	// plotDir is where the figure is drawn ("" : not), plotFlag the flag
	// that asked for it; outDir is --out.
	plotDir, plotFlag, outDir                string
	systems, mem, sms, workloads, sram, fsms string
	fig6Mem                                  int64
	quick                                    bool // blueconnect-fig3 --quick
	res                                      result
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce", pflag.ContinueOnError)
	topos := fs.String("topos", "4x2x2,4x4x4", "machines, comma-separated: tori LxVxH, dgx1, switch:P0xP1 (16 and 64 NPUs in the paper; fig9a: 4x4x4,4x8x4; fig9b: 4x8x4; fig11: 4x2x2,4x4x2,4x4x4,4x8x4)")
	wlList := fs.String("workloads", "", "fig9a, fig9b, fig11: workloads (built-in names or ASTRA-sim files), comma-separated (default resnet50,gnmt,dlrm in the default compute regime, docs/workloads.md)")
	size := fs.String("size", "64MiB", "all-reduce size per NPU (fig4: default 100MB, the paper's)")
	fs.String("memory-policy", defaultOf("training.memory_policy"), "fig4, fig9a, fig9b, fig11: how compute and communication share each NPU: "+strings.Join(contend.Policies(), " or ")+" (docs/memory-system.md)")
	sysList := fs.String("systems", "", "fig4: systems, comma-separated (default baseline-commopt,baseline-compopt,ace,ideal)")
	mem := fs.String("mem", "", "fig5: memory bandwidths for communication in GB/s, comma-separated (default 32,64,…,900)")
	sms := fs.String("sms", "", "fig6: communication SM counts, comma-separated (default 1,…,8,10,12,16)")
	fig6Mem := int64Flag(fs, "fig6-mem", 900, "fig6: memory bandwidth given to the baseline's communication, GB/s")
	format := fs.String("format", "table", "output: "+formats)
	var wide bool
	registerWide(fs, &wide)
	outDir := fs.String("out", "", "also write every artifact of the run into this directory: result.txt, result.csv, result.json, the platform configuration used (platform.yaml) and the figure (as --plot); fig9a, fig9b and fig11 keep their sweep's points in DIR/sweep, so that the same command again runs only the missing ones")
	plotDir := fs.String("plot", "", "draw the figure as PNG and SVG into this directory")
	workers := intFlag(fs, "workers", 0, "simulations run at once (default: GOMAXPROCS; results do not depend on it)")
	registerACEDesignFlags(fs)
	var pf platformFlags
	pf.register(fs)
	sramList := fs.String("sram", "", "ACE SRAM size; fig9a: sizes, comma-separated (default 4MiB; fig9a 1MiB,2MiB,4MiB,8MiB)")
	quick := fs.Bool("quick", false, "all: each figure's CI-sized subset; blueconnect-fig3: 1 MB instead of the paper's 100 MB (about 19 CPU-seconds instead of 38 CPU-minutes)")
	report := fs.Bool("report", false, "NAME --report: the figure's rows of the validation report (the paper's values beside acemu's, its findings checked), as acemu reproduce all gives them, for this figure alone; NAME may also be one that runs only there: "+strings.Join(validation.Names(), ", "))
	only := fs.String("only", "", "all: rerun only these figures (comma-separated) and put their results in place of theirs in --out DIR's report.json (their sweeps resume from DIR/NAME/)")
	docs := fs.String("docs", "", "all: also write this Markdown file (docs/validation.md) from the report and the analysis beside it (docs/validation/), with the report as report.json and the figures' SVGs; needs --out")
	fsmList := fs.String("fsms", "", "ACE FSM count; fig9a: counts, comma-separated (default 16; fig9a 4,8,12,16,20)")
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", reproduceUsage, fs.FlagUsages()) }
	if done, code := parseFlagsArgs(fs, args, 1, stdout, stderr); done {
		return code
	}
	noteBareSize(stderr, "acemu reproduce", fs)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	if fs.NArg() == 1 && fs.Arg(0) == "all" {
		return runReproduceAll(fs, *quick, *outDir, *docs, *workers, nil, splitList(*only), stdout, stderr)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "choices" {
		return runReproduceChoices(fs, *quick, *outDir, *workers, stdout, stderr)
	}
	if err := refuseFlags(fs, []string{"docs", "only"}, "is for acemu reproduce all"); err != nil {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	// --docs is refused above: the docs are written from every figure.
	if *report && fs.NArg() == 1 {
		if _, ok := validation.Lookup(fs.Arg(0)); ok {
			return runReproduceAll(fs, *quick, *outDir, *docs, *workers, []string{fs.Arg(0)}, nil, stdout, stderr)
		}
	}
	fi := slices.IndexFunc(figures, func(f figure) bool { return fs.NArg() == 1 && f.name == fs.Arg(0) })
	if fi < 0 {
		fmt.Fprintf(stderr, "acemu reproduce: name one figure, %s\n\n%s%s", figureNames(), reproduceUsage, fs.FlagUsages())
		return 2
	}
	fig := figures[fi]
	if err := checkWorkers(*workers); err != nil {
		return fail(err)
	}
	if err := checkFormat(*format); err != nil {
		return fail(err)
	}
	r := &figRun{fs: fs, workers: *workers, plotDir: *plotDir, plotFlag: "--plot", outDir: *outDir, quick: *quick,
		systems: *sysList, mem: *mem, sms: *sms, workloads: *wlList, sram: *sramList, fsms: *fsmList, fig6Mem: *fig6Mem}
	if r.outDir != "" && r.plotDir == "" && !slices.Contains(fig.unused, "plot") {
		r.plotDir, r.plotFlag = r.outDir, "--out" // the figure goes with the results
	}
	// Flags a figure does not use would be silently ignored: refuse them.
	// A lone collective has no compute beside it to share the NPU with:
	// figs. 5 and 6 sweep communication's allotment itself.
	if err := refuseFlags(fs, fig.unused, "is not used by "+fig.name); err != nil {
		return fail(err)
	}
	if fig.name != "blueconnect-fig3" {
		if err := refuseFlags(fs, []string{"quick"}, "is for blueconnect-fig3"); err != nil {
			return fail(err)
		}
	}
	if fig.name == "fig4" && !fs.Changed("size") {
		*size = "100MB"
	}
	var err error
	if r.size, err = units.ParseSize(*size); err != nil {
		return fail(fmt.Errorf("--size: %w", err))
	}
	// The platform: --sram and --fsms are lists for fig9a, read there.
	keys := map[string]string{}
	for f, k := range flagKeys {
		if f != "sram" && f != "fsms" {
			keys[f] = k
		}
	}
	if r.p, err = pf.buildWith(fs, keys); err != nil {
		return fail(err)
	}
	// The sweeps of lone collectives build their own runs on the
	// platform's links and Table V's AFI; fig5 sweeps ACE's memory itself,
	// and figs. 5 and 6 run no compute (validation.Figure.Ignores).
	vf, _ := validation.Lookup(fig.name)
	ignored := vf.Ignores
	if fig.name == "fig4" && fs.Changed("systems") && !slices.Contains(splitList(*sysList), "ace") {
		if err := refuseFlags(fs, aceFlagNames, "is for ACE, which --systems does not include"); err != nil {
			return fail(err)
		}
		ignored = append(slices.Clone(ignored), "ace.")
	}
	if err := unusedParams(r.p, "acemu reproduce "+fig.name, ignored...); err != nil {
		return fail(err)
	}
	if r.topos = splitList(*topos); len(r.topos) == 0 {
		return fail(fmt.Errorf("--topos is empty; give shapes like 4x2x2,4x4x4"))
	}
	if !fig.lists {
		if strings.Contains(*sramList, ",") || strings.Contains(*fsmList, ",") {
			return fail(fmt.Errorf("--sram and --fsms take lists only with fig9a; give %s one SRAM size and one FSM count", fig.name))
		}
		if *sramList != "" {
			if err := r.p.Set("ace.sram", *sramList); err != nil {
				return fail(fmt.Errorf("--sram: %w", err))
			}
		}
		if *fsmList != "" {
			if err := r.p.Set("ace.fsms", *fsmList); err != nil {
				return fail(fmt.Errorf("--fsms: %w", err))
			}
		}
		if err := r.p.Validate(); err != nil {
			return fail(err)
		}
	}
	if err := r.refuseClashes(fig, pf.config); err != nil {
		return fail(err)
	}
	// On a terminal, a sweep that runs more than two seconds shows its
	// progress (runs finished) on stderr.
	pb := newProgressBars(stderr, []string{fig.name}, barsRunning)
	if pb != nil {
		r.progress = func(done, total int) { pb.update(fig.name, int64(done), int64(total)) }
		failed := fail
		fail = func(err error) int {
			pb.finish() // before the message
			return failed(err)
		}
	}
	if err := fig.run(r); err != nil {
		return fail(err)
	}
	pb.finish()
	r.res.prov, r.res.wide = provenanceOf(r.p), wide
	if r.outDir != "" {
		if err := r.res.writeOut(r.outDir, r.p); err != nil {
			return fail(err)
		}
	}
	if err := r.res.write(stdout, *format); err != nil {
		return fail(err)
	}
	return 0
}

// refuseClashes refuses a figure's run whose --out or --plot would write
// over one of its inputs (--config, the files among --workloads and
// --topos) or one another (refuseClashes): --out's results, the figure
// and the sweep's points kept in DIR/sweep, --plot's figure.
func (r *figRun) refuseClashes(fig figure, config string) error {
	inputs := append([]fileUse{{flag: "--config", path: config}}, listedFiles("--workloads", splitList(r.workloads))...)
	inputs = append(inputs, listedFiles("--topos", r.topos)...)
	outs := dirFiles("--out", r.outDir, append(slices.Clone(resultFiles), "summary.csv")...)
	if slices.Contains([]string{"fig9a", "fig9b", "fig11"}, fig.name) {
		outs = append(outs, sweepDirFiles("--out", r.outDir, "sweep")...)
	}
	if !slices.Contains(fig.unused, "plot") {
		outs = append(outs, dirFiles(r.plotFlag, r.plotDir, fig.name+".png", fig.name+".svg")...)
	}
	return refuseClashes(inputs, outs)
}

// sweepDir is where a figure's sweep keeps its points: DIR/sweep under
// --out, none without.
func (r *figRun) sweepDir() string {
	if r.outDir == "" {
		return ""
	}
	return filepath.Join(r.outDir, "sweep")
}

// trained is a figure's training runs as the flags give them: the
// platform, the workers and progress, the sweep's points kept under --out
// (DIR/sweep: run again, only the missing ones run), and --topos and
// --workloads when given, else def's.
func (r *figRun) trained(def reproduce.Trained) (reproduce.Trained, error) {
	t := def
	t.Platform, t.Workers, t.Progress = r.p, r.workers, r.progress
	t.Dir = r.sweepDir()
	if r.fs.Changed("topos") {
		t.Topos = r.topos
	}
	if r.fs.Changed("workloads") {
		if t.Workloads = splitList(r.workloads); len(t.Workloads) == 0 {
			return t, fmt.Errorf("--workloads is empty; give built-in names or ASTRA-sim files, e.g. resnet50,dlrm")
		}
	}
	return t, nil
}

func runFig4(r *figRun) error {
	o := reproduce.DefaultFig4()
	o.Progress = r.progress
	o.Size, o.Policy, o.Workers, o.ACE, o.Links = r.size, r.p.Memory, r.workers, r.p.ACE, reproduce.LinkKeys(r.p)
	if r.fs.Changed("topos") {
		o.Topos = r.topos
	}
	if r.systems != "" {
		o.Systems = splitList(r.systems)
	}
	x, err := drawn(r, func() (*reproduce.Fig4Result, error) { return reproduce.Fig4(o) }, plots.Fig4)
	if err != nil {
		return err
	}
	r.res = result{doc: x, keys: 3, header: []string{"topology", "system", "beside", "all-reduce cycles", "all-reduce slowdown", "kernel alone", "kernel beside", "kernel slowdown"}}
	for _, x := range x.Rows {
		k, ka, kb, ks := "nothing", "-", "-", "-"
		if x.Kernel != "" {
			k, ka, kb, ks = x.Kernel, fmt.Sprint(x.KernelAlone), fmt.Sprint(x.KernelBeside), fmt.Sprintf("%.3f×", x.KernelSlowdown)
		}
		r.res.rows = append(r.res.rows, []string{x.Topo, x.System, k, fmt.Sprint(x.CommCycles), fmt.Sprintf("%.3f×", x.CommSlowdown), ka, kb, ks})
	}
	r.res.notes = append(r.res.notes, fmt.Sprintf("%s all-reduce per NPU, memory policy %s; the paper (an NCCL all-reduce of 100 MB on 8 V100s, Fig. 4(a)): 1.16× beside GEMM 1000, 1.42× beside EmbLookup 10000",
		fmtBytes(o.Size), x.Policy))
	return nil
}

func runFig9a(r *figRun) error {
	o := reproduce.DefaultFig9a()
	o.ACE, o.Memory = r.p.ACE, r.p.Memory
	var err error
	o.SRAM = o.SRAM[:0]
	for _, x := range splitList(cmp.Or(r.sram, "1MiB,2MiB,4MiB,8MiB")) {
		v, err := units.ParseSize(x)
		if err != nil {
			return fmt.Errorf("--sram: %w", err)
		}
		o.SRAM = append(o.SRAM, v)
	}
	if o.FSMs, err = parseCounts(cmp.Or(r.fsms, "4,8,12,16,20"), "--fsms"); err != nil {
		return err
	}
	x, err := runTrained(r, &o.Trained, func() (*reproduce.Fig9aResult, error) { return reproduce.Fig9a(o) }, plots.Fig9a)
	if err != nil {
		return err
	}
	r.res.header = []string{"SRAM \\ FSMs"}
	for _, f := range o.FSMs {
		r.res.header = append(r.res.header, fmt.Sprint(f))
	}
	// CSV: one row per design point (SRAM in bytes, FSMs, performance).
	r.res.full = &summary{header: []string{"SRAM B", "FSMs", "perf vs reference ×"}}
	for i, sz := range o.SRAM {
		row := []string{fmtBytes(sz)}
		for j, f := range o.FSMs {
			perf := strconv.FormatFloat(x.Cells[i*len(o.FSMs)+j].Perf, 'f', 3, 64)
			row = append(row, perf)
			r.res.full.rows = append(r.res.full.rows, []string{strconv.FormatInt(sz, 10), strconv.Itoa(f), perf})
		}
		r.res.rows = append(r.res.rows, row)
	}
	r.res.notes = append(r.res.notes, fmt.Sprintf("performance normalised to %s and %d FSMs, mean over %d workloads × %d topologies (paper: diminishing returns past 4 MB and 16 FSMs, +6 %% at 8 MB and 20 FSMs)",
		fmtBytes(o.BaseSRAM), o.BaseFSMs, len(o.Workloads), len(o.Topos)))
	if x.WorstFrom != nil {
		r.res.notes = append(r.res.notes, fmt.Sprintf("largest loss from more SRAM or FSMs: %.2f %% (%s/%d FSMs → %s/%d FSMs)",
			100*x.WorstStep, fmtBytes(x.WorstFrom.SRAM), x.WorstFrom.FSMs, fmtBytes(x.WorstTo.SRAM), x.WorstTo.FSMs))
	} else {
		r.res.notes = append(r.res.notes, "more SRAM or FSMs never cost anything")
	}
	return nil
}

func runFig5(r *figRun) error {
	o := reproduce.DefaultFig5()
	o.Progress = r.progress
	o.Topos, o.Size, o.Workers, o.ACE, o.Links = r.topos, r.size, r.workers, r.p.ACE, reproduce.LinkKeys(r.p)
	if r.mem != "" {
		var err error
		if o.MemGBps, err = parseInts(r.mem, "--mem"); err != nil {
			return err
		}
	}
	x, err := drawn(r, func() (*reproduce.Fig5Result, error) { return reproduce.Fig5(o) }, plots.Fig5)
	if err != nil {
		return err
	}
	r.res.header = []string{"topology", "comm mem GB/s", "baseline GB/s", "baseline % ideal", "ACE GB/s", "ACE % ideal", "ideal GB/s"}
	for _, x := range x.Rows {
		r.res.rows = append(r.res.rows, []string{x.Topo, fmt.Sprint(x.MemGBps), f1(x.BaselineBW), f1(100 * x.BaselineOfIdeal), f1(x.ACEBW), f1(100 * x.ACEOfIdeal), f1(x.IdealBW)})
	}
	for _, t := range x.Thresholds {
		r.res.notes = append(r.res.notes, fmt.Sprintf("%s: 90 %% of ideal first reached at baseline %s, ACE %s%s (paper: ≈ 450 vs 128 GB/s, ≈ 3.5×)",
			t.Topo, gbOrNone(t.Baseline), gbOrNone(t.ACE), ratio(t.Ratio)))
	}
	return nil
}

func runFig6(r *figRun) error {
	o := reproduce.DefaultFig6()
	o.Progress = r.progress
	o.Topos, o.Size, o.MemGBps, o.Workers, o.Links = r.topos, r.size, r.fig6Mem, r.workers, reproduce.LinkKeys(r.p)
	if r.sms != "" {
		var err error
		if o.SMs, err = parseCounts(r.sms, "--sms"); err != nil {
			return err
		}
	}
	x, err := drawn(r, func() (*reproduce.Fig6Result, error) { return reproduce.Fig6(o) }, plots.Fig6)
	if err != nil {
		return err
	}
	r.res.header = []string{"topology", "comm SMs", "baseline GB/s", "% ideal", "SM busy %", "memory read GB/s", "ideal GB/s"}
	for _, x := range x.Rows {
		r.res.rows = append(r.res.rows, []string{x.Topo, fmt.Sprint(x.SMs), f1(x.BaselineBW), f1(100 * x.OfIdeal), f1(100 * x.SMBusy), f1(x.MemReadBW), f1(x.IdealBW)})
	}
	for _, t := range x.Thresholds {
		s := "not reached"
		if t.Baseline > 0 {
			s = fmt.Sprintf("%d SMs", t.Baseline)
		}
		r.res.notes = append(r.res.notes, fmt.Sprintf("%s: 90 %% of ideal first reached with %s (paper: ≈ 6 SMs)", t.Topo, s))
	}
	return nil
}

// drawn runs fig, draws the figure it gives with plot (--plot, --out)
// and makes it the result's document.
func drawn[X any](r *figRun, fig func() (X, error), plot func(X, string) ([]string, error)) (x X, err error) {
	if x, err = fig(); err != nil {
		return x, err
	}
	if err := draw(r.plotFlag, r.plotDir, func(dir string) error { _, err := plot(x, dir); return err }); err != nil {
		return x, err
	}
	r.res.doc = x
	return x, nil
}

// runTrained runs a figure made of training runs: t, its options' runs,
// from the flags (figRun.trained), then the figure (drawn), with a lead
// line per workload saying where its compute comes from.
func runTrained[X any](r *figRun, t *reproduce.Trained, fig func() (X, error), plot func(X, string) ([]string, error)) (x X, err error) {
	if *t, err = r.trained(*t); err != nil {
		return x, err
	}
	if x, err = drawn(r, fig, plot); err != nil {
		return x, err
	}
	r.res.lead, err = regimeLines(r.p, t.Workloads)
	return x, err
}

func runFig9b(r *figRun) error {
	o := reproduce.DefaultFig9b()
	x, err := runTrained(r, &o.Trained, func() (*reproduce.Fig9bResult, error) { return reproduce.Fig9b(o) }, plots.Fig9b)
	if err != nil {
		return err
	}
	r.res.keys = 2
	r.res.header = []string{"workload", "topology", "forward % (paper)", "back-prop % (paper)", "whole run %", "forward share of run %"}
	// CSV: the paper's back-propagation figure a column of its own (its
	// forward figure is a word, "low", in the table only).
	r.res.full = &summary{header: []string{"workload", "topology", "forward %", "back-prop %", "paper back-prop %", "whole run %", "forward share of run %"}}
	for _, x := range x.Rows {
		fwd, back, paperBack := f1(100*x.Forward), f1(100*x.Backprop), "-"
		share := f1(100 * float64(x.ForwardCycles) / float64(x.ForwardCycles+x.BackpropCycles))
		if x.PaperForward != "" {
			paperBack = f1(100 * x.PaperBackprop)
		}
		r.res.full.rows = append(r.res.full.rows, []string{x.Workload, x.Topo, fwd, back, paperBack, f1(100 * x.Whole), share})
		if x.PaperForward != "" {
			fwd += " (" + x.PaperForward + ")"
			back += " (" + paperBack + ")"
		}
		r.res.rows = append(r.res.rows, []string{x.Workload, x.Topo, fwd, back, f1(100 * x.Whole), share})
	}
	r.res.notes = append(r.res.notes, fmt.Sprintf("ACE utilised: holding at least one chunk (the paper: \"at least one chunk for processing\"); %s, memory policy %s; (paper): Section VI-B, \"ACE Utilization\"; docs/validation.md defines the passes",
		units.Count(r.p.Iterations, "iteration"), r.p.Memory))
	return nil
}

func runFig11(r *figRun) error {
	o := reproduce.DefaultFig11()
	x, err := runTrained(r, &o.Trained, func() (*reproduce.Fig11Result, error) { return reproduce.Fig11(o) }, plots.Fig11)
	if err != nil {
		return err
	}
	r.res.keys = 2
	r.res.header = []string{"workload", "topology", "NPUs", "NoOverlap % of ideal", "CommOpt %", "CompOpt %", "ACE %", "best baseline", "ACE over best"}
	for _, row := range x.Rows {
		cells := []string{row.Workload, row.Topo, fmt.Sprint(row.NPUs)}
		for _, s := range append(slices.Clone(reproduce.Fig11Baselines), "ace") {
			cells = append(cells, f1(100*row.System(s).FractionOfIdeal))
		}
		r.res.rows = append(r.res.rows, append(cells, row.Best, x2(row.OverBest)))
	}
	sum := &summary{header: []string{"average (Section VI-C)", "acemu", "paper", "difference"}}
	for _, v := range x.FractionOfIdeal {
		sum.rows = append(sum.rows, []string{"% of ideal, " + v.What + " (mean over sizes and workloads)", f1(100 * v.Acemu), f1(100 * v.Paper), signed(100*(v.Acemu-v.Paper), 1)})
	}
	for _, v := range x.OverBest {
		sum.rows = append(sum.rows, versusRow("ACE over the best baseline, "+v.What+" over sizes", v))
	}
	for _, v := range x.Bandwidth {
		sum.rows = append(sum.rows, versusRow("ACE's effective network bandwidth over every baseline, "+v.What, v))
	}
	r.res.summary = sum
	r.res.notes = append(r.res.notes, fmt.Sprintf("%s, memory policy %s; %% of ideal = ideal's time over the system's; the bandwidth's mean and max are over every baseline, size and workload (Fig. 11(b)'s points) of the baseline's time over ACE's, as the paper takes them; measured: of ACE's bytes per second over the baseline's. docs/validation.md, \"Scaling: Fig. 11\"",
		units.Count(r.p.Iterations, "iteration"), r.p.Memory))
	return nil
}

// versusRow is a ratio beside the paper's, with their difference ("–"
// where the paper gives none).
func versusRow(what string, v reproduce.Versus) []string {
	if v.Paper == 0 {
		return []string{what, x2(v.Acemu), "–", "–"}
	}
	return []string{what, x2(v.Acemu), x2(v.Paper), signed(v.Acemu-v.Paper, 2)}
}

// x2 prints a ratio: 1.23×.
func x2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }

// signed prints a difference with its sign and d decimals (+0.00 for
// what rounds to zero).
func signed(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
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

// fmtBytes prints a size in MiB or KiB when it is a whole number of them.
func fmtBytes(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n%1_000_000 == 0:
		return fmt.Sprintf("%d MB", n/1_000_000)
	}
	return fmt.Sprintf("%d B", n)
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func gbOrNone(v int64) string {
	if v == 0 {
		return "not reached"
	}
	return fmt.Sprintf("%d GB/s", v)
}

func ratio(r float64) string {
	if r == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.2f×)", r)
}

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
