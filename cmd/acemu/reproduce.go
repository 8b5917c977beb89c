package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

const reproduceUsage = `Usage: acemu reproduce fig4|fig5|fig6|fig9a [flags]

Rerun the sweeps behind the ACE paper's figures from the model:
  fig4   an all-reduce (default 100 MB per NPU) alone and beside a GEMM of
         dimension 1000 and an embedding lookup (Section III), on Table VI's
         overlapping systems and the ideal endpoint: the all-reduce's and the
         kernel's slowdown under --memory-policy
  fig5   network bandwidth of a hierarchical all-reduce as the memory bandwidth
         given to communication grows: baseline (all 80 SMs) vs ACE vs ideal
  fig6   baseline network bandwidth as the communication SMs grow (all memory)
  fig9a  ACE's SRAM size × FSM count: two training iterations of every
         workload on every topology (default the three built-ins and
         ASTRA-sim's two files in testdata/, on 4x4x4 and 4x8x4), normalised
         to 4 MiB and 16 FSMs and averaged as the paper does; it is an
         acemu sweep (docs/sweeps.md) over ace.sram and ace.fsms

Each point is a full cycle-level run, folded to one NPU where the torus
allows it: fig4 takes about ten seconds on two cores, fig5 and fig6 under a
minute, fig9a (200 training runs) about five minutes.

Flags:
`

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce", pflag.ContinueOnError)
	topos := fs.String("topos", "4x2x2,4x4x4", "torus shapes, comma-separated (16 and 64 NPUs in the paper; fig9a: 4x4x4,4x8x4)")
	wlList := fs.String("workloads", "", "fig9a: workloads (built-in names or ASTRA-sim files), comma-separated (default resnet50,gnmt,dlrm in the default compute regime, docs/workloads.md)")
	size := fs.String("size", "64MiB", "all-reduce size per NPU (fig4: default 100MB, the paper's)")
	fs.String("memory-policy", defaultOf("training.memory_policy"), "fig4, fig9a: how compute and communication share each NPU: "+strings.Join(contend.Policies(), " or ")+" (docs/memory-system.md)")
	sysList := fs.String("systems", "", "fig4: systems, comma-separated (default baseline-commopt,baseline-compopt,ace,ideal)")
	mem := fs.String("mem", "", "fig5: memory bandwidths for communication in GB/s, comma-separated (default 32,64,…,900)")
	sms := fs.String("sms", "", "fig6: communication SM counts, comma-separated (default 1,…,8,10,12,16)")
	fig6Mem := fs.Int64("fig6-mem", 900, "fig6: memory bandwidth given to the baseline's communication, GB/s")
	format := fs.String("format", "table", "output: "+formats)
	outDir := fs.String("out", "", "also write every artifact of the run into this directory: result.txt, result.csv, result.json, the platform configuration used (platform.yaml) and the figure (as --plot); fig9a keeps its sweep's points in DIR/sweep, so that the same command again runs only the missing ones")
	plotDir := fs.String("plot", "", "fig5, fig6, fig9a: draw the figure as PNG and SVG into this directory")
	workers := fs.Int("workers", 0, "simulations run at once (default: GOMAXPROCS; results do not depend on it)")
	registerACEDesignFlags(fs)
	var pf platformFlags
	pf.register(fs)
	sramList := fs.String("sram", "", "ACE SRAM size; fig9a: sizes, comma-separated (default 4MiB; fig9a 1MiB,2MiB,4MiB,8MiB)")
	fsmList := fs.String("fsms", "", "ACE FSM count; fig9a: counts, comma-separated (default 16; fig9a 4,8,12,16,20)")
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", reproduceUsage, fs.FlagUsages()) }
	if done, code := parseFlagsArgs(fs, args, 1, stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	if fs.NArg() != 1 || (fs.Arg(0) != "fig4" && fs.Arg(0) != "fig5" && fs.Arg(0) != "fig6" && fs.Arg(0) != "fig9a") {
		fmt.Fprintf(stderr, "acemu reproduce: name one figure, fig4, fig5, fig6 or fig9a\n\n%s%s", reproduceUsage, fs.FlagUsages())
		return 2
	}
	if err := checkWorkers(*workers); err != nil {
		return fail(err)
	}
	if err := checkFormat(*format); err != nil {
		return fail(err)
	}
	plotFlag := "--plot"
	if *outDir != "" && *plotDir == "" && fs.Arg(0) != "fig4" {
		*plotDir, plotFlag = *outDir, "--out" // the figure goes with the results
	}
	// Flags a figure does not use would be silently ignored: refuse them.
	// A lone collective has no compute beside it to share the NPU with:
	// figs. 5 and 6 sweep communication's allotment itself.
	unused := map[string][]string{
		"fig4":  {"sms", "fig6-mem", "workloads", "mem", "plot"},
		"fig5":  {"sms", "fig6-mem", "workloads", "memory-policy", "systems"},
		"fig6":  append([]string{"mem", "workloads", "memory-policy", "systems"}, aceFlagNames...),
		"fig9a": {"size", "mem", "sms", "fig6-mem", "systems"},
	}[fs.Arg(0)]
	if err := refuseFlags(fs, unused, "is not used by "+fs.Arg(0)); err != nil {
		return fail(err)
	}
	if fs.Arg(0) == "fig4" && !fs.Changed("size") {
		*size = "100MB"
	}
	n, err := units.ParseSize(*size)
	if err != nil {
		return fail(fmt.Errorf("--size: %w", err))
	}
	// The platform: --sram and --fsms are lists for fig9a, read below.
	keys := map[string]string{}
	for f, k := range flagKeys {
		if f != "sram" && f != "fsms" {
			keys[f] = k
		}
	}
	p, err := pf.buildWith(fs, keys)
	if err != nil {
		return fail(err)
	}
	// The sweeps build their own runs on Table V's links and AFI; fig5
	// sweeps ACE's memory itself, and figs. 5 and 6 run no compute.
	ignored := map[string][]string{
		"fig4":  {"links.", "afi.", "training.iterations", "training.priority", "training.mem_bound_share", "npu.compute_speed"},
		"fig5":  {"links.", "afi.", "training.", "ace.mem_bw", "npu.compute_speed"},
		"fig6":  {"links.", "afi.", "training.", "ace.", "npu.compute_speed"},
		"fig9a": {"links.", "afi.", "training.iterations", "training.priority", "training.mem_bound_share", "npu.compute_speed"},
	}[fs.Arg(0)]
	if fs.Arg(0) == "fig4" && fs.Changed("systems") && !slices.Contains(splitList(*sysList), "ace") {
		if err := refuseFlags(fs, aceFlagNames, "is for ACE, which --systems does not include"); err != nil {
			return fail(err)
		}
		ignored = append(ignored, "ace.")
	}
	if err := unusedParams(p, "acemu reproduce "+fs.Arg(0), ignored...); err != nil {
		return fail(err)
	}
	mp := p.Memory
	tl := splitList(*topos)
	if len(tl) == 0 {
		return fail(fmt.Errorf("--topos is empty; give shapes like 4x2x2,4x4x4"))
	}
	if fs.Arg(0) != "fig9a" {
		if strings.Contains(*sramList, ",") || strings.Contains(*fsmList, ",") {
			return fail(fmt.Errorf("--sram and --fsms take lists only with fig9a; give %s one SRAM size and one FSM count", fs.Arg(0)))
		}
		if *sramList != "" {
			if err := p.Set("ace.sram", *sramList); err != nil {
				return fail(fmt.Errorf("--sram: %w", err))
			}
		}
		if *fsmList != "" {
			if err := p.Set("ace.fsms", *fsmList); err != nil {
				return fail(fmt.Errorf("--fsms: %w", err))
			}
		}
		if err := p.Validate(); err != nil {
			return fail(err)
		}
	}
	acfg := p.ACE
	var out any
	var header []string
	var rows [][]string
	var notes []string
	// On a terminal, a sweep that runs more than two seconds shows its
	// progress (runs finished) on stderr.
	var progress func(done, total int)
	pb := newProgressBars(stderr, []string{fs.Arg(0)})
	if pb != nil {
		progress = func(done, total int) { pb.update(fs.Arg(0), done, total) }
		failed := fail
		fail = func(err error) int {
			pb.finish() // before the message
			return failed(err)
		}
	}
	switch fs.Arg(0) {
	case "fig4":
		o := reproduce.DefaultFig4()
		o.Progress = progress
		o.Size, o.Policy, o.Workers, o.ACE = n, mp, *workers, acfg
		if fs.Changed("topos") {
			o.Topos = tl
		}
		if *sysList != "" {
			o.Systems = splitList(*sysList)
		}
		r, err := reproduce.Fig4(o)
		if err != nil {
			return fail(err)
		}
		out = r
		header = []string{"topology", "system", "beside", "all-reduce cycles", "all-reduce slowdown", "kernel alone", "kernel beside", "kernel slowdown"}
		for _, x := range r.Rows {
			k, ka, kb, ks := "nothing", "-", "-", "-"
			if x.Kernel != "" {
				k, ka, kb, ks = x.Kernel, fmt.Sprint(x.KernelAlone), fmt.Sprint(x.KernelBeside), fmt.Sprintf("%.3f×", x.KernelSlowdown)
			}
			rows = append(rows, []string{x.Topo, x.System, k, fmt.Sprint(x.CommCycles), fmt.Sprintf("%.3f×", x.CommSlowdown), ka, kb, ks})
		}
		notes = append(notes, fmt.Sprintf("%s all-reduce per NPU, memory policy %s; the paper (an NCCL all-reduce of 100 MB on 8 V100s, Fig. 4(a)): 1.16× beside GEMM 1000, 1.42× beside EmbLookup 10000",
			fmtBytes(o.Size), r.Policy))
	case "fig9a":
		o := reproduce.DefaultFig9a()
		o.Progress = progress
		o.Workers, o.ACE, o.Memory = *workers, acfg, mp
		if *outDir != "" {
			o.Dir = filepath.Join(*outDir, "sweep") // its points: run again, only the missing ones run
		}
		if *sramList == "" {
			*sramList = "1MiB,2MiB,4MiB,8MiB"
		}
		if *fsmList == "" {
			*fsmList = "4,8,12,16,20"
		}
		if fs.Changed("topos") {
			o.Topos = tl
		}
		if fs.Changed("workloads") {
			if o.Workloads = splitList(*wlList); len(o.Workloads) == 0 {
				return fail(fmt.Errorf("--workloads is empty; give built-in names or ASTRA-sim files, e.g. resnet50,dlrm"))
			}
		}
		o.SRAM = o.SRAM[:0]
		for _, x := range splitList(*sramList) {
			v, err := units.ParseSize(x)
			if err != nil {
				return fail(fmt.Errorf("--sram: %w", err))
			}
			o.SRAM = append(o.SRAM, v)
		}
		if o.FSMs, err = parseCounts(*fsmList, "--fsms"); err != nil {
			return fail(err)
		}
		r, err := reproduce.Fig9a(o)
		if err != nil {
			return fail(err)
		}
		out = r
		if err := draw(plotFlag, *plotDir, func(dir string) error { _, err := plots.Fig9a(r, dir); return err }); err != nil {
			return fail(err)
		}
		header = []string{"SRAM \\ FSMs"}
		for _, f := range o.FSMs {
			header = append(header, fmt.Sprint(f))
		}
		for i, sz := range o.SRAM {
			row := []string{fmtBytes(sz)}
			for j := range o.FSMs {
				row = append(row, strconv.FormatFloat(r.Cells[i*len(o.FSMs)+j].Perf, 'f', 3, 64))
			}
			rows = append(rows, row)
		}
		notes = append(notes, fmt.Sprintf("performance normalised to %s and %d FSMs, mean over %d workloads × %d topologies (paper: diminishing returns past 4 MB and 16 FSMs, +6 %% at 8 MB and 20 FSMs)",
			fmtBytes(o.BaseSRAM), o.BaseFSMs, len(o.Workloads), len(o.Topos)))
		if r.WorstFrom != nil {
			notes = append(notes, fmt.Sprintf("largest loss from more SRAM or FSMs: %.2f %% (%s/%d FSMs → %s/%d FSMs)",
				100*r.WorstStep, fmtBytes(r.WorstFrom.SRAM), r.WorstFrom.FSMs, fmtBytes(r.WorstTo.SRAM), r.WorstTo.FSMs))
		} else {
			notes = append(notes, "more SRAM or FSMs never cost anything")
		}
	case "fig5":
		o := reproduce.DefaultFig5()
		o.Progress = progress
		o.Topos, o.Size, o.Workers, o.ACE = tl, n, *workers, acfg
		if *mem != "" {
			if o.MemGBps, err = parseInts(*mem, "--mem"); err != nil {
				return fail(err)
			}
		}
		r, err := reproduce.Fig5(o)
		if err != nil {
			return fail(err)
		}
		out = r
		if err := draw(plotFlag, *plotDir, func(dir string) error { _, err := plots.Fig5(r, dir); return err }); err != nil {
			return fail(err)
		}
		header = []string{"topology", "comm mem GB/s", "baseline GB/s", "baseline % ideal", "ACE GB/s", "ACE % ideal", "ideal GB/s"}
		for _, x := range r.Rows {
			rows = append(rows, []string{x.Topo, fmt.Sprint(x.MemGBps), f1(x.BaselineBW), f1(x.BaselinePct), f1(x.ACEBW), f1(x.ACEPct), f1(x.IdealBW)})
		}
		for _, t := range r.Thresholds {
			notes = append(notes, fmt.Sprintf("%s: 90 %% of ideal first reached at baseline %s, ACE %s%s (paper: ≈ 450 vs 128 GB/s, ≈ 3.5×)",
				t.Topo, gbOrNone(t.Baseline), gbOrNone(t.ACE), ratio(t.Ratio)))
		}
	default:
		o := reproduce.DefaultFig6()
		o.Progress = progress
		o.Topos, o.Size, o.MemGBps, o.Workers = tl, n, *fig6Mem, *workers
		if *sms != "" {
			if o.SMs, err = parseCounts(*sms, "--sms"); err != nil {
				return fail(err)
			}
		}
		r, err := reproduce.Fig6(o)
		if err != nil {
			return fail(err)
		}
		out = r
		if err := draw(plotFlag, *plotDir, func(dir string) error { _, err := plots.Fig6(r, dir); return err }); err != nil {
			return fail(err)
		}
		header = []string{"topology", "comm SMs", "baseline GB/s", "% ideal", "SM busy %", "memory read GB/s", "ideal GB/s"}
		for _, x := range r.Rows {
			rows = append(rows, []string{x.Topo, fmt.Sprint(x.SMs), f1(x.BaselineBW), f1(x.Pct), f1(100 * x.SMBusy), f1(x.MemReadBW), f1(x.IdealBW)})
		}
		for _, t := range r.Thresholds {
			s := "not reached"
			if t.Baseline > 0 {
				s = fmt.Sprintf("%d SMs", t.Baseline)
			}
			notes = append(notes, fmt.Sprintf("%s: 90 %% of ideal first reached with %s (paper: ≈ 6 SMs)", t.Topo, s))
		}
	}
	pb.finish()
	res := result{header: header, rows: rows, notes: notes, doc: out}
	if *outDir != "" {
		if err := res.writeOut(*outDir, p); err != nil {
			return fail(err)
		}
	}
	if err := res.write(stdout, *format); err != nil {
		return fail(err)
	}
	return 0
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
		v, err := strconv.ParseInt(x, 10, 64)
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
